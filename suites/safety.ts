/**
 * The one tool-call safety policy. A tools/call executes the tool for real,
 * so every path of the suite that calls a tool asks here first: generated
 * valid calls (suites/args), the input_required survey (suites/targets.ts,
 * suites/mrtr.ts), the fixture calls (suites/fixtures.ts), the calls of the
 * statelessness checks, and the tools the configuration file names
 * (capabilityTool, slowTool, the listChanged trigger).
 *
 * - `tools.exclude` (configuration file) always wins: an excluded tool is
 *   never called, whatever else says it may be, fixtures included.
 * - A call the user wrote (a fixture, a tool the file names) is otherwise made
 *   as written: the user asked for it.
 * - A call the suite makes up (generated valid arguments, an empty-argument
 *   call) needs consent: the tool is annotated `readOnlyHint: true`, or named
 *   by `--tools` / `tools.include`, or `--allow-side-effects` /
 *   `tools.allowSideEffects` allows every tool.
 *
 * Globs are picomatch globs matched with `dot: true`, so `*` matches a name
 * that starts with a dot (`.hidden`) as well.
 */
import picomatch from 'picomatch';
import type { Config } from '../model/config.js';
import type { JsonObject } from '../model/json.js';

/** What the command line adds to the configuration file's `tools` section. */
export interface CallConsent {
  /** `--tools` globs. */
  include: string[];
  /** `--allow-side-effects`. */
  allowSideEffects: boolean;
}

/** Where the policy reads its inputs: the run's config and settings (a SuiteContext fits). */
export interface PolicyScope {
  config: Config;
  settings: { arguments?: CallConsent };
}

const GLOB = { dot: true } as const;

function firstMatch(name: string, globs: readonly string[] | undefined): string | undefined {
  return (globs ?? []).find((g) => picomatch.isMatch(name, g, GLOB));
}

/** The `tools.exclude` glob that excludes `name`, if any. */
export function excludedBy(config: Config, name: string): string | undefined {
  return firstMatch(name, config.tools?.exclude);
}

/** Why a call the user wrote (fixture, configured tool) to `name` may not be made; undefined when it may. */
export function whyNotCallableAsWritten(scope: PolicyScope, name: string): string | undefined {
  const glob = excludedBy(scope.config, name);
  return glob === undefined ? undefined : `not called: excluded by tools.exclude ${JSON.stringify(glob)} in the config file`;
}

/**
 * Why the suite may not call `tool` with arguments it makes up (generated
 * valid ones, or none); undefined when it may.
 */
export function whyNotCallable(scope: PolicyScope, tool: JsonObject): string | undefined {
  const name = String(tool.name);
  const cfg = scope.config.tools ?? {};
  const consent = scope.settings.arguments;
  const glob = excludedBy(scope.config, name);
  if (glob !== undefined) return `not called with valid arguments: excluded by tools.exclude ${JSON.stringify(glob)} in the config file`;
  if (consent?.allowSideEffects === true || cfg.allowSideEffects === true) return undefined;
  const annotations = tool.annotations as JsonObject | undefined;
  if (annotations?.readOnlyHint === true) return undefined;
  if (firstMatch(name, [...(cfg.include ?? []), ...(consent?.include ?? [])]) !== undefined) return undefined;
  return (
    'not called with valid arguments: a valid call executes the tool for real, and it is not annotated readOnlyHint: true ' +
    '(name it with --tools or tools.include in the config file, or pass --allow-side-effects)'
  );
}

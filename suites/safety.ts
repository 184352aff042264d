/**
 * The one tool-call safety policy. A tools/call executes the tool for real,
 * so every path of the suite that calls a tool asks here first, and the
 * session layer asks again as the call goes out (`callGuard`, the gate of
 * harness/call-guard.ts: a call it refuses is never sent, and is a harness
 * error).
 *
 * - `tools.exclude` (configuration file) always wins: an excluded tool gets
 *   no tools/call of any kind, whatever else says it may, fixtures and
 *   --allow-side-effects included.
 * - A call the user wrote (a fixture, a tool a key of the file names:
 *   slowTool, taskTool, capabilityTool, a listChanged or subscriptionEnd
 *   trigger) is otherwise made as written: the user asked for it.
 * - A call the suite makes up, of any kind (generated valid or invalid
 *   arguments, protocol probes, MRTR variations, task-augmented calls,
 *   header probes), needs consent: the tool is annotated
 *   `readOnlyHint: true`, or named by `--tools` / `tools.include`, or
 *   `--allow-side-effects` / `tools.allowSideEffects` allows every tool. A
 *   server that does not validate executes an invalid call, so invalid
 *   calls need the same consent as valid ones.
 * - A check that may not call a tool for want of consent reports it held
 *   back (`notCalled`, `heldBackNames`): the report names the tool and the
 *   flag that lets it run.
 *
 * Globs are picomatch globs matched with `dot: true`, so `*` matches a name
 * that starts with a dot (`.hidden`) as well.
 */
import picomatch from 'picomatch';
import type { CallGuard, GuardedCall } from '../harness/call-guard.js';
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

/** What a made-up call is made with, for the reason that holds it back. */
export type MadeUp = 'valid arguments' | 'invalid arguments' | 'a protocol probe' | 'a task' | 'header probes';

/** The flag that lets the suite call a held-back tool (the reports name it). */
export const HELD_BACK_FLAG = '--tools <name>';

/**
 * Why the suite may not call `tool` with arguments it makes up (generated
 * valid or invalid ones, none, probes of its own); undefined when it may.
 */
export function whyNotCallable(scope: PolicyScope, tool: JsonObject, what: MadeUp = 'valid arguments'): string | undefined {
  const name = String(tool.name);
  const glob = excludedBy(scope.config, name);
  if (glob !== undefined) return `not called with ${what}: excluded by tools.exclude ${JSON.stringify(glob)} in the config file`;
  if (consented(scope, name)) return undefined;
  const annotations = tool.annotations as JsonObject | undefined;
  if (annotations?.readOnlyHint === true) return undefined;
  return (
    `not called with ${what}: a call executes the tool for real, and it is not annotated readOnlyHint: true ` +
    `(held back: ${HELD_BACK_FLAG} or tools.include in the config file lets the suite call it, --allow-side-effects every tool)`
  );
}

/** `--allow-side-effects` / `tools.allowSideEffects`, or the name matches `--tools` / `tools.include`. */
function consented(scope: PolicyScope, name: string): boolean {
  const cfg = scope.config.tools ?? {};
  const consent = scope.settings.arguments;
  if (consent?.allowSideEffects === true || cfg.allowSideEffects === true) return true;
  return firstMatch(name, [...(cfg.include ?? []), ...(consent?.include ?? [])]) !== undefined;
}

/** Held back by the read-only rule (not excluded): the user can let the suite call it, and the report says how. */
export function isHeldBack(scope: PolicyScope, tool: JsonObject): boolean {
  return excludedBy(scope.config, String(tool.name)) === undefined && whyNotCallable(scope, tool) !== undefined;
}

/** The names of those of `tools` the read-only rule holds back. */
export function heldBackNames(scope: PolicyScope, tools: JsonObject[]): string[] {
  return tools.filter((tool) => isHeldBack(scope, tool)).map((tool) => String(tool.name));
}

/** ` (held back: a, b: --tools <name> lets the suite call them)`, or '' when none is held back: for a reason that names them. */
export function heldBackClause(names: string[]): string {
  if (names.length === 0) return '';
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
  return ` (held back, not annotated readOnlyHint: true: ${shown}; ${HELD_BACK_FLAG} lets the suite call ${names.length === 1 ? 'it' : 'them'})`;
}

/** The tools the configuration file names in a key that calls them (a trigger, slowTool, fixtures…): the user wrote those calls. */
export function namedTools(config: Config): Set<string> {
  const names = new Set<string>(Object.keys(config.fixtures ?? {}));
  const add = (spec: { name?: string; tool?: string } | undefined) => {
    const name = spec?.name ?? spec?.tool;
    if (typeof name === 'string') names.add(name);
  };
  add(config.slowTool);
  add(config.slowTool?.release);
  add(config.taskTool);
  add(config.capabilityTool);
  const lc = config.listChanged;
  for (const t of [lc?.trigger, lc?.undo, lc?.prompts?.trigger, lc?.prompts?.undo, lc?.resources?.trigger, lc?.resources?.undo])
    add(t as { tool?: string } | undefined);
  add(config.subscriptionEnd?.trigger as { tool?: string } | undefined);
  return names;
}

/**
 * The gate (harness/call-guard.ts): may any tools/call at all go out to this
 * tool? `tools.exclude` refuses, whatever else; then consent, a read-only
 * annotation (in every listing), or a name the configuration file calls
 * lets it; a name the server does not list (its list walked to the end) is
 * no tool of the server's, nor is a call without a name.
 */
export function whyRefused(scope: PolicyScope, call: GuardedCall): string | undefined {
  if (call.name === undefined) return undefined;
  const glob = excludedBy(scope.config, call.name);
  if (glob !== undefined) return `excluded by tools.exclude ${JSON.stringify(glob)} in the config file`;
  if (consented(scope, call.name) || namedTools(scope.config).has(call.name)) return undefined;
  if (call.listed) {
    const annotations = call.listed.annotations as JsonObject | undefined;
    return annotations?.readOnlyHint === true ? undefined : 'not annotated readOnlyHint: true, and not named by the user';
  }
  return call.listComplete ? undefined : 'a tool the run has not seen listed (no complete tools/list walk yet), not named by the user';
}

/** The run's gate, for the harness: `whyRefused` over this run's configuration and flags. */
export function callGuard(scope: PolicyScope): CallGuard {
  return (call) => whyRefused(scope, call);
}

/** End a probe not-observed because `name` may not be called; a held-back tool (not an excluded one) is named in the report. */
export function notCalled(
  t: { ctx: PolicyScope; notObserved(reason: string, opts?: { heldBack?: string[] }): never },
  name: string,
  why: string,
): never {
  return t.notObserved(why, excludedBy(t.ctx.config, name) === undefined ? { heldBack: [name] } : {});
}

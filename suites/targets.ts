/**
 * Which tools a check may call, and with what. Tool calls execute for real,
 * so without the user's consent the suite calls only tools annotated
 * read-only, with arguments generated valid from their inputSchema. The
 * configuration file widens that (`tools.include`, `tools.allowSideEffects`),
 * narrows it (`tools.exclude`), and its fixtures give example calls that are
 * always made as written.
 */
import { INPUT_CAPABILITIES } from '../harness/mrtr.js';
import { validExample } from '../harness/values.js';
import type { FixtureCall, InputCapability } from '../model/config.js';
import { whyNotCallable, whyNotCallableAsWritten, type PolicyScope } from './safety.js';
import { isObject, type JsonObject } from '../model/json.js';

/** One call the suite will make: a fixture's, or generated. */
export interface PlannedCall {
  name: string;
  arguments: JsonObject;
  /** The fixture call it comes from, when it does. */
  fixture?: FixtureCall;
}

/**
 * The call to probe a tool with: its first fixture call that declares every
 * input capability and is not expected to fail, else generated valid arguments when the tool may be
 * called that way. A string says why the tool is not called.
 */
export function probeCall(scope: PolicyScope, tool: JsonObject): PlannedCall | string {
  const name = String(tool.name);
  const config = scope.config;
  // tools.exclude wins over fixtures too.
  const excluded = whyNotCallableAsWritten(scope, name);
  if (excluded) return excluded;
  const outcome = (c: FixtureCall) => c.expect?.outcome;
  const fixture = config.fixtures?.[name]?.calls?.find(
    (c) => c.capabilities === undefined && outcome(c) !== 'error' && outcome(c) !== 'isError',
  );
  if (fixture) return { name, arguments: (fixture.arguments ?? {}) as JsonObject, fixture };
  const why = whyNotCallable(scope, tool);
  if (why) return why;
  const example = validExample(tool.inputSchema ?? { type: 'object' });
  if (!example.ok) return `no valid arguments could be generated: ${example.problem}`;
  const args = example.value;
  if (!isObject(args)) return 'its inputSchema does not describe an object';
  return { name, arguments: args as JsonObject };
}

/** Client capabilities for a list of capability names (undefined: every one the suite can answer). */
export function capabilitiesFor(names: InputCapability[] | undefined): JsonObject {
  if (!names) return { ...INPUT_CAPABILITIES };
  return Object.fromEntries(names.map((n) => [n, INPUT_CAPABILITIES[n]]));
}

/** Every input capability except these. */
export function capabilitiesWithout(...withheld: string[]): JsonObject {
  return Object.fromEntries(Object.entries(INPUT_CAPABILITIES).filter(([k]) => !withheld.includes(k)));
}

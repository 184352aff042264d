/**
 * Which tools a check may call, and with what. Tool calls execute for real,
 * so without the user's consent the suite calls only tools annotated
 * read-only, with arguments generated valid from their inputSchema. The
 * configuration file widens that (`tools.include`, `tools.allowSideEffects`),
 * narrows it (`tools.exclude`), and its fixtures give example calls that are
 * always made as written.
 */
import picomatch from 'picomatch';
import { INPUT_CAPABILITIES } from '../harness/mrtr.js';
import { validExample } from '../harness/values.js';
import type { Config, FixtureCall, InputCapability } from '../model/config.js';
import type { JsonObject } from '../model/json.js';

/** One call the suite will make: a fixture's, or generated. */
export interface PlannedCall {
  name: string;
  arguments: JsonObject;
  /** The fixture call it comes from, when it does. */
  fixture?: FixtureCall;
}

/** May the suite call this tool with generated valid arguments? */
export function mayCallGenerated(config: Config, tool: JsonObject): boolean {
  const name = String(tool.name);
  const t = config.tools ?? {};
  if (t.exclude?.length && picomatch(t.exclude)(name)) return false;
  if (t.allowSideEffects) return true;
  if (t.include?.length && picomatch(t.include)(name)) return true;
  const annotations = tool.annotations as JsonObject | undefined;
  return annotations?.readOnlyHint === true;
}

/**
 * The call to probe a tool with: its first fixture call that declares every
 * input capability and is not expected to fail, else generated valid arguments when the tool may be
 * called that way. A string says why the tool is not called.
 */
export function probeCall(config: Config, tool: JsonObject): PlannedCall | string {
  const name = String(tool.name);
  const outcome = (c: FixtureCall) => c.expect?.outcome;
  const fixture = config.fixtures?.[name]?.calls?.find(
    (c) => c.capabilities === undefined && outcome(c) !== 'error' && outcome(c) !== 'isError',
  );
  if (fixture) return { name, arguments: (fixture.arguments ?? {}) as JsonObject, fixture };
  if (!mayCallGenerated(config, tool)) return 'not annotated readOnlyHint and not allowed by the configuration file';
  const example = validExample(tool.inputSchema ?? { type: 'object' });
  if (!example.ok) return `no valid arguments could be generated: ${example.problem}`;
  const args = example.value;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'its inputSchema does not describe an object';
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

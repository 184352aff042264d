/**
 * The last gate of the tool-call safety promise: every `tools/call` a
 * session sends (a request, a raw request, a raw HTTP body, a batch) is put
 * to the run's guard on its way out, and a call the guard refuses never
 * leaves. The guard is the policy of suites/safety.ts, handed down by the
 * engine (the harness knows no policy); the session only supplies what it
 * saw of the server's tools, in this ledger, shared by a target's connections.
 *
 * Every path that calls a tool asks the policy itself first and reports a
 * tool it may not call; the gate is there so that a path that forgets cannot
 * execute anything: a refusal is a harness error (exit code 2).
 */
import { isObject, type JsonObject } from '../model/json.js';

/** One tools/call on its way out, with what the run knows of its tool. */
export interface GuardedCall {
  /** `params.name` (undefined when the call names none, or not as a string). */
  name: string | undefined;
  /** The tool as listed, with `annotations.readOnlyHint` true only if every listing said so; undefined when never listed. */
  listed?: JsonObject;
  /** Whether a tools/list walk was seen through to its last page (a name not listed is then no tool the server offers). */
  listComplete: boolean;
}

/** Why a call may not go out, or undefined when it may. */
export type CallGuard = (call: GuardedCall) => string | undefined;

/** A tools/call the guard refused: nothing was sent. */
export class RefusedCallError extends Error {
  override name = 'RefusedCallError';
  constructor(
    readonly tool: string | undefined,
    readonly reason: string,
  ) {
    super(`the suite refused its own tools/call ${tool === undefined ? '(no name)' : JSON.stringify(tool)}: ${reason}`);
  }
}

/** What the connections of a target have seen the server list as tools. */
export class ToolLedger {
  private readonly tools = new Map<string, JsonObject>();
  private readonly notReadOnly = new Set<string>();
  /** Cursors reached from a first page: the walk is complete when one of them, or the first page, has no nextCursor. */
  private readonly reachable = new Set<string>();
  private completeWalk = false;

  /** Learn from one tools/list answer (`params`: the request's, for its cursor). */
  learn(params: JsonObject | undefined, result: JsonObject): void {
    if (!Array.isArray(result.tools)) return;
    for (const tool of result.tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      this.tools.set(tool.name, tool);
      const annotations = tool.annotations;
      if (!isObject(annotations) || annotations.readOnlyHint !== true) this.notReadOnly.add(tool.name);
    }
    const cursor = params?.cursor;
    const fromStart = cursor === undefined || (typeof cursor === 'string' && this.reachable.has(cursor));
    if (!fromStart) return;
    const next = result.nextCursor;
    if (typeof next === 'string' && next !== '' && this.reachable.size < 100_000) this.reachable.add(next);
    else if (next === undefined || next === null || next === '') this.completeWalk = true;
  }

  /** The tool as listed, read-only only when every listing said so; undefined when never listed. */
  lookup(name: string): JsonObject | undefined {
    const tool = this.tools.get(name);
    if (!tool) return undefined;
    if (!this.notReadOnly.has(name)) return tool;
    const annotations = isObject(tool.annotations) ? tool.annotations : {};
    return { ...tool, annotations: { ...annotations, readOnlyHint: false } };
  }

  get complete(): boolean {
    return this.completeWalk;
  }
}

/**
 * The params of every tools/call request or notification in a message, a
 * batch, or a body's text ({} for params that are not an object; undefined
 * for a text that is not JSON yet mentions tools/call, which is refused).
 */
export function toolCallsIn(message: unknown): Array<JsonObject | undefined> {
  let value = message;
  if (typeof message === 'string') {
    try {
      value = JSON.parse(message);
    } catch {
      // Not JSON: a lenient server might still read a tools/call out of it.
      return /tools\/call/.test(message) ? [undefined] : [];
    }
  }
  const items = Array.isArray(value) ? value : [value];
  return items.filter((m) => isObject(m) && m.method === 'tools/call').map((m) => (isObject(m.params) ? m.params : {}));
}

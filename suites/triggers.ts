/**
 * The triggers the suite finds on its own when the configuration file names
 * none: a call that stays in flight and reports progress (what `slowTool`
 * names), found among the calls the suite already made to tools it may call.
 *
 * Every generated tools/call carries a progressToken (suites/args/calls.ts),
 * so the run knows which calls reported progress before their answer and how
 * long each took. A tool the safety policy (suites/safety.ts) lets the suite
 * call with arguments it made up, whose call was answered without an error
 * and reported progress or took a while, is a found slow tool: the same call
 * (same arguments) serves the progress and cancellation checks. "A while"
 * is a measurement used only to choose a call, never a verdict: the checks
 * that use it wait on events (the answer, a later request's answer), and a
 * call that turns out too quick is not observed, as a configured one would be.
 *
 * Each choice is remembered (`chosenTriggers`) so the report says which tool
 * it chose for what, and the user can pin it in the configuration file.
 */
import { argumentRun, type CallRecord } from './args/calls.js';
import { memoKey, type SuiteContext } from './check.js';
import { whyNotCallable, whyNotCallableAsWritten } from './safety.js';
import type { Exchange, RequestOptions, Session } from '../harness/session.js';
import type { SlowToolSpec, ToolCallSpec } from '../model/config.js';
import type { JsonObject } from '../model/json.js';
import type { TriggerChoice } from '../model/results.js';

/** A call measured at least this long counts as running long (for the choice only). */
export const LONG_CALL_MS = 1000;

/**
 * What a found slow call must have shown: `progress` (progress notifications,
 * or a long run) for the checks that read what it sends; `in-flight` (a run of
 * LONG_CALL_MS or more) for those that cancel it, since a call that ends at
 * once makes a cancellation's outcome a matter of timing, not of the server.
 */
export type SlowNeed = 'progress' | 'in-flight';

/** The slow call a check uses: the configured one, or one the suite found; else why there is none. */
export type SlowCall = { call: SlowToolSpec; found: boolean } | { call?: undefined; reason: string };

const chosen = memoKey<Map<string, TriggerChoice>>('triggers: the calls the suite chose');

/** Every trigger the suite chose on its own in this run, for the report. */
export function chosenTriggers(ctx: Pick<SuiteContext, 'run'>): TriggerChoice[] {
  return [...(ctx.run.peek(chosen)?.values() ?? [])];
}

/** Remember that `check` used the found call `choice` (one entry per key). */
function remember(ctx: SuiteContext, choice: Omit<TriggerChoice, 'checks'>, check: string): void {
  const map = ctx.run.memo(chosen, () => new Map<string, TriggerChoice>());
  const entry = map.get(choice.key) ?? { ...choice, checks: [] };
  if (!entry.checks.includes(check)) entry.checks.push(check);
  map.set(choice.key, entry);
}

/** An answered, error-free valid call: the one kind a found trigger is drawn from. */
function answeredWell(r: CallRecord): boolean {
  const ex = r.exchange;
  return r.purpose === 'valid' && !!ex?.result && !ex.error && ex.result.isError !== true && r.cutShort === undefined;
}

/** The best found slow call among the run's records: reports progress first, then the longest. */
function bestSlowRecord(records: readonly CallRecord[], callable: (name: string) => boolean, need: SlowNeed): CallRecord | undefined {
  const ranLong = (r: CallRecord) => (r.exchange?.durationMs ?? 0) >= LONG_CALL_MS;
  const candidates = records.filter(
    (r) =>
      answeredWell(r) &&
      r.tool !== undefined &&
      callable(r.tool) &&
      (need === 'in-flight' ? ranLong(r) : (r.progress ?? 0) > 0 || ranLong(r)),
  );
  const score = (r: CallRecord) => [(r.progress ?? 0) > 0 ? 1 : 0, r.exchange?.durationMs ?? 0] as const;
  return candidates.sort((a, b) => score(b)[0] - score(a)[0] || score(b)[1] - score(a)[1])[0];
}

/**
 * The slow call for `check`: the configuration's slowTool (unless tools.exclude
 * names it), else the found one. The reason for none names the key that would give one.
 */
export async function slowCall(ctx: SuiteContext, check: string, need: SlowNeed = 'progress'): Promise<SlowCall> {
  const configured = ctx.config.slowTool;
  if (configured) {
    const excluded = whyNotCallableAsWritten(ctx, configured.name);
    return excluded ? { reason: `slowTool ${JSON.stringify(configured.name)} ${excluded}` } : { call: configured, found: false };
  }
  const tools = await ctx.tools().catch(() => undefined);
  const byName = new Map<string, JsonObject>((tools?.items ?? []).map((t) => [String(t.name), t]));
  const callable = (name: string) => byName.has(name) && whyNotCallable(ctx, byName.get(name)!) === undefined;
  const records = argumentRun(ctx).records;
  const best = bestSlowRecord(records, callable, need);
  if (!best) {
    const valid = records.filter((r) => r.purpose === 'valid').length;
    return {
      reason:
        valid === 0
          ? 'no slowTool in the configuration file, and the run made no generated tools/call to find one (select the tools-call/* checks too, or name one: slowTool)'
          : `no slowTool in the configuration file, and none of the ${valid} generated tools/call the suite may make ${need === 'in-flight' ? `ran ${LONG_CALL_MS} ms or longer` : 'reported progress or ran long (each carried a progressToken)'}: name one (slowTool)`,
    };
  }
  const call: ToolCallSpec = { name: best.tool!, arguments: (best.params.arguments ?? {}) as JsonObject };
  const measured = `${best.progress ?? 0} progress notification(s) before its answer, answered in ${Math.round(best.exchange!.durationMs)} ms`;
  remember(ctx, { key: 'slowTool', tool: call.name, arguments: call.arguments ?? {}, why: measured }, check);
  return { call, found: true };
}

/** How a held slow call is let finish: hand `onHeaders` to its request, await `done()` once it is over. */
export interface SlowRelease {
  onHeaders: () => void;
  done: () => Promise<void>;
}

/**
 * Let a held slow call finish: once the server shows it holds the call (its
 * first notifications/progress for `token`, or over HTTP its answer's
 * headers), the configuration's `slowTool.release` goes out, once. Without a
 * release nothing is sent: the call ends on its own. An event, never a delay,
 * decides when.
 */
export function releaseWhenHeld(session: Session, slow: SlowToolSpec, token: string): SlowRelease {
  const release = slow.release;
  if (!release) return { onHeaders: () => {}, done: async () => {} };
  let sent: Promise<unknown> | undefined;
  const send = () => {
    if (sent) return;
    off();
    sent = session.request('tools/call', { name: release.name, arguments: release.arguments ?? {} }).catch(() => undefined);
  };
  const off = session.onMessage((m) => {
    if (m.method === 'notifications/progress' && (m.params as JsonObject | undefined)?.progressToken === token) send();
  });
  return {
    onHeaders: send,
    done: async () => {
      off();
      await sent;
    },
  };
}

/**
 * A call of the slow tool that is let finish (releaseWhenHeld): its answer. It carries `token` as its
 * progressToken, or, with a release configured, one of its own (the sign that the server holds it); without
 * either, it goes as written.
 */
export async function finishedSlowCall(
  session: Session,
  slow: SlowToolSpec,
  opts: { token?: string } & Pick<RequestOptions, 'id' | 'timeoutMs'> = {},
): Promise<Exchange> {
  const { token = slow.release ? `mcpc-slow-${String(session.nextId())}` : undefined, ...options } = opts;
  const release = token === undefined ? undefined : releaseWhenHeld(session, slow, token);
  try {
    const meta = token === undefined ? {} : { _meta: { progressToken: token } };
    const params = { name: slow.name, arguments: slow.arguments ?? {}, ...meta };
    return await session.request('tools/call', params, { ...options, ...(release ? { onHeaders: release.onHeaders } : {}) });
  } finally {
    await release?.done();
  }
}

/**
 * The argument suite's run-wide state: which tools may be called with valid
 * arguments (the safety rules), one generation plan per tool, and one record
 * per distinct tools/call the suite made.
 *
 * Calls are shared between checks: several checks explore the same tool
 * with the same seed, so they draw the same values, and a value already sent
 * is judged from its recorded exchange instead of being sent again. A tool
 * with side effects is therefore executed once per distinct call, whatever
 * the number of checks.
 *
 * Every call goes through the Session. When a stdio server dies mid-check,
 * the remaining calls of that check go to a fresh connection (the engine
 * restarts the primary one between checks).
 */
import { AbortedError, HarnessError, RequestTimeoutError } from '../../harness/errors.js';
import { continueRequest, INPUT_CAPABILITIES } from '../../harness/mrtr.js';
import type { Exchange, Session } from '../../harness/session.js';
import { memoKey, type SuiteContext } from '../check.js';
import { validArguments, type ValidPlan } from './generate.js';
import type { Mutant } from './mutate.js';
import { whyNotCallable, whyNotCallableAsWritten, type MadeUp } from '../safety.js';
import { canonical, type JsonObject } from '../../model/json.js';
import type { WireFrame } from '../../model/wire.js';

export type Purpose = 'valid' | 'invalid' | 'probe';

/** One tools/call the suite made and everything that came back. */
export interface CallRecord {
  /** The tool named in the request (a probe may name none or an unknown one). */
  tool?: string;
  purpose: Purpose;
  /** The request params (without `_meta`). */
  params: JsonObject;
  /** For invalid calls: the keyword and location the arguments break. */
  mutant?: Omit<Mutant, 'value'>;
  /** For protocol probes: what the probe is. */
  probe?: string;
  /** The exchange, when the server answered. */
  exchange?: Exchange;
  /** Why no answer came (timeout, the connection closed, a transport failure). */
  noAnswer?: string;
  /** The input_required round trip did not complete: why (the mrtr/* checks judge it). */
  cutShort?: string;
  /** Whether the wait ended by timeout. */
  timedOut?: boolean;
  /** Invalid calls and probes: the tools/list sent right after, to see the server still serving. */
  followUp?: { ok: boolean; detail: string; frames: WireFrame[] };
  /** The frames of this call (the follow-up has its own). */
  frames: WireFrame[];
  /** The progressToken the call carried (every call carries one), when it did. */
  progressToken?: string;
  /** notifications/progress naming that token that arrived before the answer. */
  progress?: number;
}

export interface ArgumentSettings {
  /** Generated calls per tool and property. */
  runs: number;
  seed: number;
  /** Replay one case: the fast-check path and the tool it belongs to. */
  replay?: { path: string; tool: string };
  /** Tool name globs that may be called with valid arguments besides read-only ones. */
  include: string[];
  /** Call every tool with valid arguments. */
  allowSideEffects: boolean;
}

export const DEFAULT_RUNS = 20;

/** The argument settings of a run (defaults when the engine gave none). */
export function argumentSettings(ctx: SuiteContext): ArgumentSettings {
  return ctx.settings.arguments ?? { runs: DEFAULT_RUNS, seed: 0, include: [], allowSideEffects: false };
}

/**
 * The one place the multi round-trip (MRTR) driver plugs in: a tools/call
 * answered with `resultType: "input_required"` is driven through its rounds
 * by the shared driver (harness/mrtr.ts: answer the input requests, retry
 * with a new id). The last answer is the call's answer; a drive cut short
 * leaves its last interim result, which the mrtr/* checks judge.
 */
export async function completeInputRequired(
  session: Session,
  first: Exchange,
  maxRounds: number,
): Promise<{ exchange: Exchange; cutShort?: string }> {
  const drive = await continueRequest(session, first, { maxRounds });
  const exchange = drive.final ?? first;
  if (drive.status === 'complete' || drive.status === 'error') return { exchange };
  return { exchange, cutShort: `${drive.status}${drive.detail ? `: ${drive.detail}` : ''}` };
}

/** `<path>@<tool>` (the form a failure's replay command uses); null when malformed. */
export function parseReplay(text: string): { path: string; tool: string } | null {
  const m = /^(\d+(?::\d+)*)@(.+)$/s.exec(text);
  return m ? { path: m[1]!, tool: m[2]! } : null;
}

const runs = memoKey<ArgumentRun>('tools-call: the generated calls');

/** The argument suite's state for this run. */
export function argumentRun(ctx: SuiteContext): ArgumentRun {
  return ctx.run.memo(runs, () => new ArgumentRun(ctx));
}

export class ArgumentRun {
  private readonly calls = new Map<string, Promise<CallRecord>>();
  private readonly settled = new Set<string>();
  private readonly plans = new Map<string, ValidPlan>();
  private replacement: Session | undefined;
  private readonly losses = new Map<string, number>();
  private readonly timeoutsByTool = new Map<string, number>();
  /** Every call made so far, in order. */
  readonly records: CallRecord[] = [];

  constructor(private readonly ctx: SuiteContext) {}

  get settings(): ArgumentSettings {
    return argumentSettings(this.ctx);
  }

  /** Why `tool` may not be called with valid arguments, or undefined when it may (the one policy: suites/safety.ts). */
  whyNotCallable(tool: JsonObject, what?: MadeUp): string | undefined {
    return whyNotCallable(this.ctx, tool, what);
  }

  /** Why `tool` gets no tools/call at all (tools.exclude), or undefined. */
  whyExcluded(name: string): string | undefined {
    return whyNotCallableAsWritten(this.ctx, name);
  }

  /** The generation plan for a tool's inputSchema (memoized; the seed is the run's). */
  validPlan(tool: JsonObject): ValidPlan {
    const key = canonical(tool.inputSchema ?? null);
    let plan = this.plans.get(key);
    if (!plan) {
      plan = validArguments(tool.inputSchema, this.settings.seed);
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** Has this exact call already been made (so judging it costs no request)? */
  has(purpose: Purpose, params: JsonObject): boolean {
    return this.settled.has(callKey(purpose, params));
  }

  /** How many valid calls to a tool got no answer within the request timeout. */
  validTimeouts(tool: string): number {
    return this.timeoutsByTool.get(tool) ?? 0;
  }

  /** How many calls to this tool ended without an answer other than by timeout (a crash, a dropped connection). */
  connectionLosses(tool: string): number {
    return this.losses.get(tool) ?? 0;
  }

  /** Call a tool (once per distinct purpose and params); invalid calls get a follow-up tools/list. */
  call(purpose: Purpose, params: JsonObject, extra: { mutant?: Omit<Mutant, 'value'>; probe?: string } = {}): Promise<CallRecord> {
    const key = callKey(purpose, params);
    let p = this.calls.get(key);
    if (!p) {
      p = this.send(purpose, params, extra).then((r) => {
        this.settled.add(key);
        return r;
      });
      // A call abandoned by an interrupt is not remembered.
      p.catch(() => this.calls.delete(key));
      this.calls.set(key, p);
    }
    return p;
  }

  /** The connection argument calls use: the primary one while it lives, else a fresh one. */
  private async session(): Promise<Session> {
    const primary = this.ctx.session();
    if (!primary.closed) return primary;
    if (this.replacement && !this.replacement.closed) return this.replacement;
    this.replacement = await this.ctx.openSession();
    return this.replacement;
  }

  private async send(purpose: Purpose, params: JsonObject, extra: { mutant?: Omit<Mutant, 'value'>; probe?: string }): Promise<CallRecord> {
    const record: CallRecord = {
      ...(typeof params.name === 'string' ? { tool: params.name } : {}),
      purpose,
      params,
      ...(extra.mutant ? { mutant: extra.mutant } : {}),
      ...(extra.probe ? { probe: extra.probe } : {}),
      frames: [],
    };
    const session = await this.session();
    const off = session.tap((f) => record.frames.push(f));
    const stopCounting = countProgress(session, record, params);
    try {
      // Valid calls declare every input capability the driver can answer, as a full client would.
      const meta = purpose === 'valid' ? { capabilities: { ...INPUT_CAPABILITIES } } : undefined;
      const sent = record.progressToken ? { ...params, _meta: { progressToken: record.progressToken } } : params;
      let ex = await session.request('tools/call', sent, meta ? { meta } : {});
      if (ex.result?.resultType === 'input_required') {
        const done = await completeInputRequired(session, ex, this.ctx.settings.maxRounds);
        ex = done.exchange;
        if (done.cutShort) record.cutShort = done.cutShort;
      }
      record.exchange = ex;
    } catch (err) {
      if (err instanceof AbortedError || !(err instanceof HarnessError)) throw err;
      record.noAnswer = err.message;
      record.timedOut = err instanceof RequestTimeoutError;
      if (!record.timedOut && record.tool !== undefined) this.losses.set(record.tool, this.connectionLosses(record.tool) + 1);
      if (record.timedOut && record.tool !== undefined && purpose === 'valid')
        this.timeoutsByTool.set(record.tool, this.validTimeouts(record.tool) + 1);
    } finally {
      off();
      stopCounting();
    }
    if (purpose !== 'valid' && !record.timedOut) record.followUp = await followUp(session);
    this.records.push(record);
    return record;
  }
}

let callTokens = 0;

/**
 * Every call carries a progressToken (unless its params already have a `_meta`, as a
 * probe's may): the notifications/progress naming it before the answer are counted, so
 * the run knows which tools report progress (suites/triggers.ts).
 */
function countProgress(session: Session, record: CallRecord, params: JsonObject): () => void {
  if (params._meta !== undefined) return () => undefined;
  const token = `mcpc-call-${++callTokens}`;
  record.progressToken = token;
  record.progress = 0;
  return session.onMessage((msg) => {
    if (msg.method !== 'notifications/progress' || record.exchange) return;
    if ((msg.params as JsonObject | undefined)?.progressToken === token) record.progress = (record.progress ?? 0) + 1;
  });
}

function callKey(purpose: Purpose, params: JsonObject): string {
  return `${purpose}\u0000${canonical(params)}`;
}

/** tools/list right after an invalid call, on the same connection: is the server still serving? */
async function followUp(session: Session): Promise<NonNullable<CallRecord['followUp']>> {
  if (session.closed) return { ok: false, detail: `the connection is gone: ${session.closed}`, frames: [] };
  const frames: WireFrame[] = [];
  const off = session.tap((f) => frames.push(f));
  try {
    const ex = await session.request('tools/list');
    if (ex.error) return { ok: false, detail: `tools/list answered with JSON-RPC error ${JSON.stringify(ex.error)}`, frames };
    if (!Array.isArray(ex.result?.tools)) return { ok: false, detail: 'tools/list answered without a tools array', frames };
    return { ok: true, detail: 'tools/list answered', frames };
  } catch (err) {
    if (err instanceof AbortedError || !(err instanceof HarnessError)) throw err;
    return { ok: false, detail: `tools/list got no answer: ${err.message}`, frames };
  } finally {
    off();
  }
}

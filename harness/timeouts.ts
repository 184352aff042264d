/**
 * At most one full timeout per tool or method. Once a request to a tool
 * (tools/call, by name), a prompt (prompts/get), a resource (resources/read,
 * by URI) or any other method has gone unanswered for the full per-request
 * timeout, the next request to it only gets a short probe; when that one is
 * silent too, later requests to it fail at once, naming the timeout that
 * decided it. While no request of a method has been answered at all in the
 * run, a timeout of one of its tools (prompts, resources) makes the first
 * request to each other one a short probe too; once the method has answered
 * anything, each other subject gets its own full wait. An answer clears the
 * subject's record. One ledger serves every connection of a target.
 */
import { formatSeconds, RequestTimeoutError } from './errors.js';
import type { RequestId } from './session.js';
import type { JsonObject } from '../model/json.js';

interface Silence {
  /** The first request that waited the full timeout. */
  connection: number;
  id: RequestId;
  timeoutMs: number;
  /** A short probe was silent too: no more waits. */
  confirmed: boolean;
}

/** How long a request waits: the full timeout, a short probe, or not at all. */
export type WaitPlan = { timeoutMs: number; probe?: Silence; known?: Silence };

/** A request not sent because its tool or method was already found silent. */
export class KnownSilentError extends RequestTimeoutError {
  override name = 'KnownSilentError';
  constructor(method: string, what: string, earlier: Silence) {
    super(method, earlier.timeoutMs);
    this.message = `no answer to ${what}: an earlier request to it (connection ${earlier.connection}, id ${JSON.stringify(earlier.id)}) got none within ${formatSeconds(earlier.timeoutMs)}, and a short probe none either; not waited for again`;
  }
}

export class TimeoutLedger {
  private readonly silent = new Map<string, Silence>();
  /** Per method: some subject of it timed out (the first one that did). */
  private readonly silentMethods = new Map<string, Silence>();
  /** Methods some request of which was answered in this run. */
  private readonly answeredMethods = new Set<string>();

  constructor(
    /** The full per-request timeout: only requests waiting that long are governed here. */
    private readonly fullMs: number,
  ) {}

  /** The short probe after a full timeout of the same subject. */
  get probeMs(): number {
    return Math.round(Math.max(Math.min(200, this.fullMs / 2), Math.min(2000, this.fullMs / 10)));
  }

  /** The probe for a new subject of a method none of whose requests was ever answered. */
  get firstProbeMs(): number {
    return Math.round(Math.min(this.probeMs, Math.max(Math.min(50, this.fullMs / 4), this.fullMs / 100)));
  }

  /** What a request to `method` with `params` is: `tools/call "search"`, `resources/read "file:///a"`, or the method. */
  static subject(method: string, params: JsonObject | undefined): string {
    const name = method === 'resources/read' ? params?.uri : method === 'tools/call' || method === 'prompts/get' ? params?.name : undefined;
    return typeof name === 'string' ? `${method} ${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)}` : method;
  }

  /** How long to wait for this request (`timeoutMs` is what the caller asked for). */
  plan(method: string, params: JsonObject | undefined, timeoutMs: number): WaitPlan {
    if (timeoutMs !== this.fullMs) return { timeoutMs };
    const s = this.silent.get(TimeoutLedger.subject(method, params));
    if (s?.confirmed) return { timeoutMs: 0, known: s };
    if (s) return { timeoutMs: this.probeMs, probe: s };
    const m = this.silentMethods.get(method);
    if (m && !this.answeredMethods.has(method)) return { timeoutMs: this.firstProbeMs, probe: m };
    return { timeoutMs };
  }

  /** A request waited `plan.timeoutMs` for nothing. */
  timedOut(method: string, params: JsonObject | undefined, plan: WaitPlan, connection: number, id: RequestId): void {
    if (plan.timeoutMs !== this.fullMs && !plan.probe) return;
    const key = TimeoutLedger.subject(method, params);
    if (plan.probe) {
      const first = this.silent.get(key) ?? plan.probe;
      this.silent.set(key, { ...first, confirmed: true });
      return;
    }
    const silence: Silence = { connection, id, timeoutMs: plan.timeoutMs, confirmed: false };
    if (!this.silent.has(key)) this.silent.set(key, silence);
    if (!this.silentMethods.has(method)) this.silentMethods.set(method, silence);
  }

  /** An answer came: the subject is not silent (a method found silent stays so for its other subjects). */
  answered(method: string, params: JsonObject | undefined): void {
    this.answeredMethods.add(method);
    if (this.silent.size) this.silent.delete(TimeoutLedger.subject(method, params));
  }

  /** The error of a request not sent. */
  static known(method: string, params: JsonObject | undefined, s: Silence): KnownSilentError {
    return new KnownSilentError(method, TimeoutLedger.subject(method, params), s);
  }
}

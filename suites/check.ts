/**
 * How a check is written. A check names the spec page and section it enforces
 * and its level, then states what it sends and what it expects through a
 * Probe. The engine turns the probe's findings into a verdict:
 * no finding → pass; findings → fail (MUST) or warn (SHOULD / MAY).
 */
import type { ProtocolSchema } from '../harness/schema.js';
import { sessionOf, type Exchange, type RequestOptions, type Session } from '../harness/session.js';
import type { Subscription } from '../harness/subscription.js';
import type { RunTokens } from '../harness/authorization.js';
import type { Discovery } from '../harness/negotiate.js';
import type { ListMethod, ListWalk } from '../harness/walk.js';
import type { ArgumentSettings } from './args/calls.js';
import type { CheckInfo, Finding, ReplayCase } from '../model/results.js';
import type { Config, ConfigKey } from '../model/config.js';
import { levelAtMost, type Citation, type Level, type SpecRef } from '../model/spec.js';
import type { Era, TransportKind, WireFrame } from '../model/wire.js';
import { canonical, type JsonObject } from '../model/json.js';

export type { Discovery };

/** Settings a run passes to its checks (the engine fills them from flags and defaults). */
export interface CheckSettings {
  /** Per-request timeout, milliseconds. */
  requestTimeoutMs: number;
  /** Longest cursor chain a list walk follows. */
  maxPages: number;
  /** Largest message accepted from the server, in bytes. */
  maxMessageBytes: number;
  /** Most requests one multi round-trip drive sends. */
  maxRounds: number;
  /** How long to wait for a change notification after causing a change. */
  notificationTimeoutMs: number;
  /** Budget, seed, replay and safety rules of the generated tools/call checks. */
  arguments?: ArgumentSettings;
}

/** A key of state shared by the checks of one run (`Run.memo`); its name says what it holds. */
export interface MemoKey<T> {
  readonly name: string;
  /** Never set: carries the type of what the key holds. */
  readonly __type?: T;
}

export function memoKey<T>(name: string): MemoKey<T> {
  return Object.freeze({ name });
}

/** A fact several checks depend on, established once by the check that owns it. */
export interface Fact<T> {
  /** The check that judges the fact and reports its failure. */
  owner: Check;
  /** What was established (when it held). */
  value?: T;
  /** Why it does not hold: the owner's finding, in a few words. */
  failed?: string;
}

/**
 * The state of one run that checks share: what one check works out and others
 * reuse (a survey, a set of calls, a walk), memoized per run, never per module.
 * The engine makes one per run; everything in it ends with the run.
 */
export class Run {
  private readonly memos = new Map<MemoKey<unknown>, unknown>();
  /** Methods whose responses a check has judged against the schema in this run. */
  readonly schemaJudged = new Set<string>();
  /** Inbound frames (see `frameKey`) a check has judged as its own finding; the wire-wide observers leave them alone. */
  readonly framesJudged = new Set<string>();
  /** Single exchanges a check has judged against the schema (when the method as a whole is not). */
  readonly schemaJudgedExchanges = new WeakSet<Exchange>();

  /** The value under `key`, made by `make` the first time it is asked for in this run. */
  memo<T>(key: MemoKey<T>, make: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = make();
    this.memos.set(key, value);
    return value;
  }

  /** The value under `key` if it was made (without making it). */
  peek<T>(key: MemoKey<T>): T | undefined {
    return this.memos.get(key) as T | undefined;
  }

  /** Forget a memoized value (it is made again when next asked for). */
  forget<T>(key: MemoKey<T>): void {
    this.memos.delete(key);
  }
}

/** Shared state and services a check can use; the engine provides it. */
export interface SuiteContext {
  /** The run's shared state. */
  readonly run: Run;
  readonly transport: TransportKind;
  readonly revision: string;
  /** The era the run speaks (every session of the run speaks it). */
  readonly era: Era;
  readonly settings: CheckSettings;
  /** The configuration file's content ({} without a file). */
  readonly config: Config;
  readonly signal: AbortSignal;
  /** The primary connection. */
  session(): Session;
  /**
   * A fresh connection (stdio: a new process), closed by the engine after the
   * check. In the legacy era it has done the initialize handshake, unless
   * `handshake: false` (for checks of the handshake itself); `capabilities`
   * replaces the client capabilities it declares.
   */
  openSession(opts?: { handshake?: boolean; capabilities?: JsonObject }): Promise<Session>;
  discovery(): Discovery;
  /** The full tools/list walk on the primary connection (memoized: one walk per run). */
  tools(): Promise<ListWalk>;
  /** The full tools/list walk on a second, fresh connection (memoized). */
  toolsFresh(): Promise<ListWalk>;
  /**
   * The full walk of any paginated list (memoized per method): on the primary
   * connection, or on a fresh connection opened for it. `walk('tools/list')`
   * is `tools()`.
   */
  walk(method: ListMethod, where?: 'primary' | 'fresh'): Promise<ListWalk>;
  /** Every connection the run has opened so far, closed ones included. */
  allSessions(): Session[];
  /** Methods whose responses a check has judged against the schema in this run. */
  readonly schemaJudged: Set<string>;
  /** Inbound frames (see `frameKey`) a check has judged as its own finding; the wire-wide observers leave them alone. */
  readonly framesJudged: Set<string>;
  /** Single exchanges a check has judged against the schema (when the method as a whole is not). */
  readonly schemaJudgedExchanges: WeakSet<Exchange>;
  /** The protocol schema of the run (to validate parts of a message). */
  readonly protocolSchema: ProtocolSchema;
  /** Authorization is active (`--auth` or `authorization.tokenCommand`): the run's tokens; the session layer sends the valid one. */
  readonly authorization?: RunTokens;
}

/** Thrown to end a check with skip or not-observed. */
export class VerdictSignal extends Error {
  constructor(
    readonly verdict: 'skip' | 'not-observed',
    readonly reason: string,
    /** Not observed because the safety policy held these tools back. */
    readonly heldBack?: string[],
  ) {
    super(reason);
  }
}

/** The id of a check, for messages that send the reader to it (a check refers to another by its object). */
export function idOf(check: Pick<Check, 'id'>): string {
  return check.id;
}

export type WireEvidence = Exchange | Exchange[] | WireFrame[] | undefined;

export interface Expectation {
  expected: string;
  actual: string;
  /** The exchanges or frames that show it (default: what this check sent and received). */
  wire?: WireEvidence;
  /** The finding breaks one of the check's `parts` (its own quote and level) instead of the check's main rule. */
  part?: string;
  /**
   * Judge this finding below its rule's level, for a reason the user gave (the
   * configuration file documents an exception); never above it.
   */
  downgrade?: { level: Level; why: string };
  /** A generated case: how to replay it. */
  replay?: ReplayCase;
}

/** One subject's run of one check: what the body uses to talk and to judge. */
export class Probe {
  readonly findings: Finding[] = [];
  readonly details: Record<string, unknown> = {};
  /** Notes of this subject's result (see SubjectResult.notes): never a verdict. */
  readonly notes: string[] = [];
  private readonly seen: WireFrame[] = [];
  private readonly deferred: Array<() => unknown> = [];

  constructor(
    readonly ctx: SuiteContext,
    readonly check: Check,
    readonly subject: string,
    /** Evidence to show when a finding names none and the check itself sent nothing. */
    private readonly fallbackWire?: Exchange,
  ) {}

  get session(): Session {
    return this.ctx.session();
  }

  /**
   * The connection an exchange was made on, while it is open (else the
   * primary one): a follow-up to an exchange another check made, such as a
   * retry carrying its state, goes where the exchange went.
   */
  sessionOf(ex: Exchange): Session {
    const s = sessionOf(ex);
    return s && !s.closed ? s : this.session;
  }

  /** Send a request on the primary connection. */
  request(method: string, params?: JsonObject, opts?: RequestOptions): Promise<Exchange> {
    return this.ctx.session().request(method, params, opts);
  }

  /**
   * Run `fn` when this subject's run ends, however it ends (pass, finding,
   * skip, timeout, abort); the last deferred runs first. For cleanup the check
   * would otherwise write as try/finally.
   */
  defer(fn: () => unknown): void {
    this.deferred.push(fn);
  }

  /** @internal The engine runs the deferred cleanups (each at most once; a failing one does not stop the rest). */
  async cleanup(): Promise<void> {
    while (this.deferred.length) {
      const fn = this.deferred.pop()!;
      try {
        await fn();
      } catch {
        // Cleanup is best effort: the connection may be gone already.
      }
    }
  }

  /** Open a subscription on `session` that closes itself when this subject's run ends. */
  listen(session: Session, params: JsonObject, opts?: RequestOptions): Subscription {
    const sub = session.listen(params, opts);
    this.defer(() => sub.cancel());
    return sub;
  }

  /**
   * Require a fact another check owns: when it does not hold, this check ends
   * at once, not-observed, naming the owner and its finding.
   */
  requires<T>(fact: Fact<T>): T {
    if (fact.failed !== undefined) this.notObserved(`${fact.failed} (judged by ${idOf(fact.owner)})`);
    return fact.value as T;
  }

  /** Record every frame of a session while the check runs (the default wire excerpt). */
  observe(frame: WireFrame): void {
    this.seen.push(frame);
    if (this.seen.length > 200) this.seen.splice(0, this.seen.length - 200);
  }

  /** State a requirement: when `ok` is false, a finding with Expected / Actual and the wire. */
  expect(ok: boolean, e: Expectation): boolean {
    if (!ok) {
      const rule = e.part ? this.check.parts?.[e.part] : this.check;
      if (!rule) throw new Error(`${this.check.id}: no part named ${e.part}`);
      const level = e.downgrade && levelAtMost(e.downgrade.level, rule.level) ? e.downgrade.level : rule.level;
      this.findings.push({
        requirement: quoteFor(rule, this.ctx.era),
        expected: e.expected,
        actual: e.downgrade ? `${e.actual}\n(${e.downgrade.why}: reported at ${level}.)` : e.actual,
        wire: this.evidence(e.wire),
        ...(level !== this.check.level ? { level } : {}),
        ...(e.replay ? { replay: e.replay } : {}),
      });
    }
    return ok;
  }

  /** The response is valid against the protocol schema (responses to this method are now judged here). */
  expectSchemaValid(ex: Exchange, what = ex.schemaDef ?? 'the schema'): boolean {
    this.ctx.schemaJudged.add(ex.method);
    return this.expect(ex.schemaErrors.length === 0, {
      expected: `a response valid against ${what} of the ${this.ctx.revision} schema`,
      actual: ex.schemaErrors.join('; '),
      wire: ex,
    });
  }

  /** This exchange's schema validity is judged by this check (the wire-wide check leaves it alone). */
  markSchemaJudged(ex: Exchange): void {
    this.ctx.schemaJudgedExchanges.add(ex);
  }

  /** The check does not apply to this server or subject. */
  skip(reason: string): never {
    throw new VerdictSignal('skip', reason);
  }

  /** The check applies but could not be exercised (`heldBack`: for want of calls to these tools, which the safety policy holds back). */
  notObserved(reason: string, opts: { heldBack?: string[] } = {}): never {
    throw new VerdictSignal('not-observed', reason, opts.heldBack?.length ? opts.heldBack : undefined);
  }

  /** An observation worth reporting even when the check passes. */
  note(key: string, value: unknown): void {
    this.details[key] = value;
  }

  /**
   * A note for the user: behaviour no sentence rules but worth knowing (an
   * endless cursor chain, duplicates across pages, a tool slower than the
   * timeout). Never a finding, never counted; the same text is kept once.
   */
  inform(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  private evidence(wire: WireEvidence): WireFrame[] {
    let frames: WireFrame[];
    if (!wire) frames = this.seen.length ? this.seen : (this.fallbackWire?.frames ?? []);
    else if (!Array.isArray(wire)) frames = wire.frames;
    else if (wire.length === 0) frames = [];
    else if ('seq' in wire[0]!) frames = wire as WireFrame[];
    else frames = (wire as Exchange[]).flatMap((ex) => ex.frames);
    return frames.slice(-12);
  }
}

/** A rule as a check cites it: its level, its place and its words, per era. */
export interface Rule {
  /** The strongest RFC 2119 keyword of the quote, or lower; never higher (a test enforces it). */
  level: Level;
  /**
   * Where the rule lives. Revision `draft` (the modern pages): the check
   * applies in the modern era; revision `2025-11-25`: in the legacy era only.
   */
  spec: SpecRef;
  /** The sentence(s), verbatim from that section (emphasis, code ticks and links may be dropped; whitespace collapsed). */
  quote: string;
  /**
   * The same rule on the 2025-11-25 pages, for a modern check that applies in
   * the legacy era too; `quote` defaults to the modern quote (the same words).
   */
  legacy?: { spec: SpecRef; quote?: string };
}

export interface CheckDef extends Rule {
  id: string;
  title: string;
  /**
   * Further rules one check judges beside its main one (e.g. a SHOULD beside a
   * MUST); a finding names its part with `Expectation.part`.
   */
  parts?: Record<string, Rule>;
  transports?: TransportKind[];
  /**
   * Set when the rule is the user's, not the spec's: the check judges what the
   * configuration file declares under this key (e.g. `fixtures`). Its `spec`
   * then names the configuration file (page CONFIG_PAGE, model/spec.ts), its quote
   * states the user's expectation, and it has no spec citation (citationsOf
   * leaves it out, so no spec sentence is claimed for it). It applies in both
   * eras (no page decides its era), and takes no `legacy` citation.
   */
  fromConfig?: string;
  /**
   * Sections that describe what the check judges without stating its keyword
   * sentence (e.g. server/tools "Error Handling" sorts errors into two kinds,
   * the keyword is the schema's). Never a citation: no quote, no level, not
   * counted by coverage; `list --spec` finds the check by them too.
   */
  context?: SpecRef[];
  /**
   * The configuration keys without which the check can only report
   * not-observed: it needs the call or trigger the key names (what
   * `mcp-conformance init` says each key unlocks; test/init.test.ts holds it
   * to the reasons a run without a file gives).
   */
  unlockedBy?: readonly ConfigKey[];
  /** A server capability (server/discover, or initialize in the legacy era) the check needs; skipped without it. */
  capability?: 'tools' | 'prompts' | 'resources';
  /**
   * Result fields this check alone judges (e.g. the caching hints): while it is
   * selected, schema validation sets them aside, so one defect is reported once.
   */
  resultFields?: string[];
  /** Judged after every other check, from what the whole run saw. */
  observer?: boolean;
  /**
   * The check needs the server to itself and runs alone: it changes the tool
   * list, closes stdin, restarts the server, or counts every message on a
   * connection. Say why (the reason is shown by `list --json`).
   */
  exclusive?: string;
  /** Checks that must have finished before this one starts (when selected): an ordering need, declared. */
  after?: readonly Check[];
  /**
   * The check works with what the run's first connection told it (e.g. it
   * calls the tools that connection listed): it runs on that connection, one
   * at a time with the other checks that declare this, in catalogue order.
   * Say why.
   */
  primary?: string;
  /** The body, for a check whose subject is the server as a whole. */
  run?: (t: Probe) => Promise<void>;
  /** The body, for a check judged once per listed tool. */
  perTool?: {
    /** Which tools the check applies to (default: all). */
    appliesTo?: (tool: JsonObject) => boolean;
    /** The reason to skip when no tool applies. */
    noneReason?: string;
    run: (t: Probe, tool: JsonObject) => Promise<void>;
  };
}

export interface Check extends CheckDef, Omit<CheckInfo, 'spec' | 'requirement'> {
  transports: TransportKind[];
  /** The eras whose pages state the rule (from `spec` and `legacy`). */
  revisions: Era[];
}

export function defineCheck(def: CheckDef): Check {
  const area = def.id.split('/')[0]!;
  if (!/^[a-z0-9-]+\/[a-z0-9-]+$/.test(def.id)) throw new Error(`check id must be area/slug: ${def.id}`);
  if (!def.run === !def.perTool) throw new Error(`${def.id}: give exactly one of run or perTool`);
  if (def.legacy && def.spec.revision !== 'draft') throw new Error(`${def.id}: a legacy citation goes with a draft one`);
  if (def.fromConfig && def.legacy) throw new Error(`${def.id}: a rule of the configuration file has no spec citation, legacy or not`);
  // A rule of the configuration file is the user's in whichever era the server speaks; a spec rule, where its pages state it.
  const revisions: Era[] = def.fromConfig
    ? ['modern', 'legacy']
    : def.spec.revision === '2025-11-25'
      ? ['legacy']
      : def.legacy
        ? ['modern', 'legacy']
        : ['modern'];
  return { ...def, area, transports: def.transports ?? ['stdio', 'http'], revisions };
}

/** The configuration keys that unlock a check: its `unlockedBy`, or the key whose declarations it judges (`fromConfig`). */
export function unlockingKeys(check: Pick<CheckDef, 'unlockedBy' | 'fromConfig'>): ConfigKey[] {
  if (check.unlockedBy) return [...check.unlockedBy];
  return check.fromConfig === 'fixtures' ? ['fixtures'] : [];
}

/**
 * Declare a check's scheduling needs beside its definition (`exclusive`,
 * `after`, `primary`); the engine honours them for any `--jobs`.
 */
export function schedule(check: Check, needs: Pick<CheckDef, 'exclusive' | 'after' | 'primary'>): Check {
  if (needs.exclusive !== undefined) check.exclusive = needs.exclusive;
  if (needs.primary !== undefined) check.primary = needs.primary;
  if (needs.after) check.after = [...(check.after ?? []), ...needs.after];
  return check;
}

/** Where the rule lives in the era's revision (the legacy citation in the legacy era, when there is one). */
export function specFor(rule: Rule, era: Era): SpecRef {
  return era === 'legacy' && rule.legacy ? rule.legacy.spec : rule.spec;
}

/** The rule's words in the era's revision. */
export function quoteFor(rule: Rule, era: Era): string {
  return era === 'legacy' && rule.legacy ? (rule.legacy.quote ?? rule.quote) : rule.quote;
}

/** Every citation of a check, its parts' included: what the quote test verifies against the pages. */
export function citationsOf(check: CheckDef): Array<{ where: string; level: Level; citation: Citation }> {
  const out: Array<{ where: string; level: Level; citation: Citation }> = [];
  if (check.fromConfig) return out;
  const add = (where: string, rule: Rule) => {
    out.push({ where, level: rule.level, citation: { spec: rule.spec, quote: rule.quote } });
    if (rule.legacy)
      out.push({
        where: `${where} (legacy)`,
        level: rule.level,
        citation: { spec: rule.legacy.spec, quote: rule.legacy.quote ?? rule.quote },
      });
  };
  add(check.id, check);
  for (const [name, part] of Object.entries(check.parts ?? {})) add(`${check.id} part ${name}`, part);
  return out;
}

/** Identifies a frame across copies of it: `connection:seq`. */
export function frameKey(frame: WireFrame): string {
  return `${frame.connection}:${frame.seq}`;
}

/** The message a frame carries, when its text is one JSON object (else undefined). */
export function frameMessage(frame: WireFrame): JsonObject | undefined {
  try {
    const m = JSON.parse(frame.text) as unknown;
    return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** A short, readable rendering of a JSON value for Expected / Actual lines. */
export function show(value: unknown, max = 300): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    // Nested too deep for JSON.stringify: the depth-safe canonical form.
    try {
      text = canonical(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** How the response answered: a result summary or the JSON-RPC error. */
export function describeAnswer(ex: Exchange): string {
  if (ex.error) return `JSON-RPC error ${show(ex.error.code)} ${show(ex.error.message)}`;
  return `result ${show(ex.result, 200)}`;
}

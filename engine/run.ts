/**
 * The engine: opens the target, discovers the server, runs the selected
 * checks subject by subject, and returns the result model. It never throws:
 * a run that cannot do its job comes back with `aborted` set and exit code 2.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { AbortedError, ConnectionClosedError, formatSeconds, HarnessError, RequestTimeoutError, TransportError } from '../harness/errors.js';
import { packageRoot } from '../harness/paths.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { withAbortScope } from '../harness/scope.js';
import type { Exchange, Session } from '../harness/session.js';
import { Target } from '../harness/target.js';
import { LIST_METHODS, walkList, type ListMethod, type ListWalk } from '../harness/walk.js';
import { DEFAULT_RUNS, parseReplay, type ArgumentSettings } from '../suites/args/calls.js';
import { Probe, quoteFor, specFor, VerdictSignal, type Check, type SuiteContext } from '../suites/check.js';
import { catalogue } from '../suites/index.js';
import { openEra, type EraMode } from './eras.js';
import { runBothEras } from './all-eras.js';
import { reportProgress } from './progress.js';
import { summarize, type CheckResult, type RunResult, type SubjectResult } from '../model/results.js';
import { LEGACY_REVISION, MODERN_REVISION } from '../harness/era.js';
import type { Config } from '../model/config.js';
import type { Era, TransportKind } from '../model/wire.js';

/** Protocol revisions the suite speaks: modern (2026-07-28, draft) and legacy (2025-11-25). */
export const REVISIONS = ['2026-07-28', 'draft', '2025-11-25'] as const;
/** What `--spec` accepts: a revision, `auto` (detect the server's era) or `all` (every era, one run each). */
export const SPEC_CHOICES = ['auto', ...REVISIONS, 'all'] as const;

export interface RunOptions {
  command?: string;
  url?: string;
  headers?: Record<string, string>;
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Protocol revision, `auto` (the default: the newest released revision the
   * server speaks, detected as the spec tells a dual-era client to), or `all`
   * (one run per era).
   */
  spec?: string;
  /** auto: how long the server/discover era probe may go unanswered before falling back to initialize. */
  probeTimeoutMs?: number;
  /** Validate against this schema file instead of the bundled one. */
  schemaPath?: string;
  /** Check ids or globs; empty selects every check. */
  checks?: string[];
  strict?: boolean;
  requestTimeoutMs?: number;
  checkTimeoutMs?: number;
  runTimeoutMs?: number;
  maxMessageBytes?: number;
  startupTimeoutMs?: number;
  shutdownGraceMs?: number;
  maxRestarts?: number;
  /** Longest cursor chain a list walk follows. */
  maxPages?: number;
  /** Most requests one multi round-trip (input_required) drive sends. */
  maxRounds?: number;
  /** How long to wait for a change notification (default: the config's listChanged.timeoutMs, else NOTIFICATION_TIMEOUT_MS). */
  notificationTimeoutMs?: number;
  /** The configuration file's content (what generic probing cannot know). */
  config?: Config;
  /** Generated calls per tool for each tools-call property (default 20). */
  runs?: number;
  /** Seed of argument generation (default: a random one, reported). */
  seed?: number;
  /** Replay one generated case: `<path>@<tool>` as a failure reports it (needs `seed`). */
  replay?: string;
  /** Tool name globs that may be called with valid arguments besides read-only tools. */
  tools?: string[];
  /** Call every tool with valid arguments, read-only or not. */
  allowSideEffects?: boolean;
  /** The command line of the run (reports print replay commands from it; secrets are redacted). */
  invocation?: string[];
  /** Aborted on interrupt (Ctrl-C / SIGTERM to the suite). */
  signal?: AbortSignal;
  /** Called with each check's result as soon as it is known, in the order checks run. */
  onResult?: (check: CheckResult, index: number, total: number) => void;
}

export const DEFAULTS = {
  spec: 'auto',
  probeTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  checkTimeoutMs: 60_000,
  runTimeoutMs: 600_000,
  maxMessageBytes: 8 * 1024 * 1024,
  startupTimeoutMs: 15_000,
  shutdownGraceMs: 2_000,
  maxRestarts: 3,
  maxPages: 10_000,
  maxRounds: 8,
  runs: DEFAULT_RUNS,
};

/** Default wait for a change notification after the list-changed trigger. */
export const NOTIFICATION_TIMEOUT_MS = 5_000;

export function toolVersion(): { name: string; version: string } {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
    return { name: pkg.name, version: pkg.version };
  } catch {
    return { name: 'mcp-conformance', version: 'unknown' };
  }
}

/** The checks a list of ids / globs selects (all when empty). */
export function selectChecks(patterns: string[] | undefined, all: Check[] = catalogue): Check[] {
  if (!patterns || patterns.length === 0) return all;
  const match = picomatch(patterns);
  return all.filter((c) => match(c.id));
}

export async function runConformance(options: RunOptions): Promise<RunResult> {
  if (options.spec === 'all') return runBothEras(options, runConformance);
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const started = Date.now();
  const clock = () => Date.now() - started;
  const redactor = new Redactor();
  for (const v of Object.values(o.headers ?? {})) {
    redactor.add(v);
    // "Bearer <token>": the token alone is as secret as the whole value.
    const credentials = /^[A-Za-z][\w.+-]*\s+(\S+)$/.exec(v.trim());
    if (credentials) redactor.add(credentials[1]);
  }
  for (const v of Object.values(o.env ?? {})) redactor.add(v);
  const transport: TransportKind = o.url ? 'http' : 'stdio';
  const result: RunResult = {
    tool: toolVersion(),
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    target: {
      transport,
      ...(o.command ? { command: redactor.redact(o.command) } : {}),
      ...(o.url ? { url: redactor.redact(o.url) } : {}),
    },
    revision: o.spec,
    strict: !!o.strict,
    seed: o.seed ?? randomInt(0, 2 ** 31 - 1),
    ...(o.invocation ? { invocation: o.invocation.map((a) => redactor.redact(a)) } : {}),
    checks: [],
    summary: summarize([]),
    stderr: '',
    harnessErrors: [],
    exitCode: 0,
  };
  const finish = (): RunResult => {
    result.durationMs = Date.now() - started;
    // Whatever the server echoed back, no secret reaches a report.
    redactor.redactDeep(result);
    result.summary = summarize(result.checks);
    const s = result.summary;
    if (!result.aborted && s.total > 0 && s.pass + s.fail + s.warn === 0) {
      result.aborted = 'nothing was tested: every check was skipped or not observed';
    }
    result.exitCode = result.aborted || result.harnessErrors.length ? 2 : s.fail > 0 || (o.strict && s.warn > 0) ? 1 : 0;
    return result;
  };

  if (!(SPEC_CHOICES as readonly string[]).includes(o.spec)) {
    result.aborted = `unknown --spec ${o.spec} (known: ${SPEC_CHOICES.join(', ')})`;
    return finish();
  }
  const replay = o.replay === undefined ? undefined : parseReplay(o.replay);
  if (replay === null) {
    result.aborted = `--replay must look like <path>@<tool> as a failure reports it (e.g. 3:1:0@search), got ${JSON.stringify(o.replay)}`;
    return finish();
  }
  if (replay && o.seed === undefined) {
    result.aborted = '--replay needs the --seed of the run that found the case';
    return finish();
  }
  const argumentSettings: ArgumentSettings = {
    runs: o.runs,
    seed: result.seed!,
    ...(replay ? { replay } : {}),
    include: o.tools ?? [],
    allowSideEffects: !!o.allowSideEffects,
  };
  const mode: EraMode = o.spec === 'auto' ? 'auto' : o.spec === LEGACY_REVISION ? 'legacy' : 'modern';
  const modernRevision = mode === 'modern' ? o.spec : MODERN_REVISION;
  const checks = selectChecks(o.checks);
  if (checks.length === 0) {
    result.aborted = `no check matches --check ${(o.checks ?? []).join(', ')} (see "mcp-conformance list")`;
    return finish();
  }
  // --schema replaces the schema of the revision named by --spec (auto: the modern one).
  let schema: ProtocolSchema;
  let legacySchema: ProtocolSchema;
  try {
    // Fields a selected check owns are that check's to judge, not the schema checks'.
    const setAside = [...new Set(checks.flatMap((c) => c.resultFields ?? []))];
    schema = ProtocolSchema.load(modernRevision, mode === 'legacy' ? undefined : o.schemaPath, { setAside });
    legacySchema = ProtocolSchema.load(LEGACY_REVISION, mode === 'legacy' ? o.schemaPath : undefined, { setAside });
  } catch (err) {
    result.aborted = (err as Error).message;
    return finish();
  }

  // One signal for "stop now": the user's interrupt or the run deadline.
  const stop = new AbortController();
  const deadline = setTimeout(
    () => stop.abort(new Error(`the run deadline of ${o.runTimeoutMs / 1000} s was reached`)),
    o.runTimeoutMs,
  );
  const onInterrupt = () => stop.abort(o.signal?.reason instanceof Error ? o.signal.reason : new Error('interrupted'));
  if (o.signal?.aborted) onInterrupt();
  o.signal?.addEventListener('abort', onInterrupt, { once: true });

  let target: Target | undefined;
  const sessions: Session[] = [];
  let primary: Session | undefined;
  try {
    target = await Target.open({
      command: o.command,
      url: o.url,
      headers: o.headers ?? {},
      env: o.env ?? {},
      cwd: o.cwd,
      revision: modernRevision,
      schema,
      redactor,
      requestTimeoutMs: o.requestTimeoutMs,
      maxMessageBytes: o.maxMessageBytes,
      startupTimeoutMs: o.startupTimeoutMs,
      shutdownGraceMs: o.shutdownGraceMs,
      clock,
      runSignal: stop.signal,
    });
    const t = target;
    const opening = await openEra(t, { mode, modernRevision, modernSchema: schema, legacySchema, probeTimeoutMs: o.probeTimeoutMs });
    sessions.push(...opening.sessions);
    if (opening.fatal || !opening.primary) {
      result.aborted = opening.fatal ?? 'no connection to the server';
      return finish();
    }
    primary = opening.primary;
    const discovery = opening.discovery;
    result.revision = opening.revision;
    if (opening.era) result.era = opening.era;
    if (opening.server) result.server = opening.server;
    const era = opening.era?.era ?? 'modern';

    const primaryWalks = new Map<ListMethod, Promise<ListWalk>>();
    const freshWalks = new Map<ListMethod, Promise<ListWalk>>();
    const walkOn = (s: Session, method: ListMethod) => walkList(s, method, LIST_METHODS[method], { maxPages: o.maxPages });
    // The fresh walks of every list share one second connection (stdio: one more process), open until the run ends.
    let freshConnection: Promise<Session> | undefined;
    const freshSession = async (): Promise<Session> => {
      const open = freshConnection && (await freshConnection.catch(() => undefined));
      if (!open || open.closed) {
        freshConnection = t.connect().then((s) => (sessions.push(s), s));
      }
      return freshConnection!;
    };
    const walk = (method: ListMethod, where: 'primary' | 'fresh' = 'primary'): Promise<ListWalk> => {
      const memo = where === 'primary' ? primaryWalks : freshWalks;
      let w = memo.get(method);
      if (!w) {
        const started: Promise<ListWalk> = (where === 'primary' ? walkOn(primary!, method) : freshSession().then((s) => walkOn(s, method))).catch(
          (err: unknown) => {
            // A walk abandoned by an overrunning check is walked again by the next one that needs it.
            if (err instanceof AbortedError && memo.get(method) === started) memo.delete(method);
            throw err;
          },
        );
        w = started;
        memo.set(method, w);
      }
      return w;
    };
    let restarts = 0;
    let gaveUp: string | undefined;
    let checkSessions: Session[] = [];
    const ctx: SuiteContext = {
      transport,
      revision: opening.revision,
      era,
      settings: {
        requestTimeoutMs: o.requestTimeoutMs,
        maxPages: o.maxPages,
        maxRounds: o.maxRounds,
        notificationTimeoutMs: o.notificationTimeoutMs ?? o.config?.listChanged?.timeoutMs ?? NOTIFICATION_TIMEOUT_MS,
        arguments: argumentSettings,
        maxMessageBytes: o.maxMessageBytes,
      },
      config: o.config ?? {},
      signal: stop.signal,
      session: () => primary!,
      openSession: async (opts) => {
        const s = await t.connect(opts);
        sessions.push(s);
        checkSessions.push(s);
        return s;
      },
      discovery: () => discovery,
      tools: () => walk('tools/list'),
      toolsFresh: () => walk('tools/list', 'fresh'),
      walk,
      allSessions: () => sessions,
      schemaJudged: new Set<string>(),
      framesJudged: new Set<string>(),
      schemaJudgedExchanges: new WeakSet<Exchange>(),
      // The schema of the era the run speaks (2025-11-25 results have no resultType).
      protocolSchema: era === 'legacy' ? legacySchema : schema,
    };

    /**
     * stdio: a server that died is restarted for the remaining checks (the
     * spec says a client SHOULD restart it), up to --max-restarts times.
     * Returns false when no restart is left.
     */
    const ensurePrimary = async (previous: CheckResult | undefined): Promise<boolean> => {
      if (gaveUp) return false;
      if (!primary!.closed || transport !== 'stdio') return true;
      const how = primary!.closed;
      if (restarts >= o.maxRestarts) {
        gaveUp = `the server process stopped ${restarts + 1} time(s) and no restart is left (--max-restarts ${o.maxRestarts}); last: ${firstClause(how)}`;
        return false;
      }
      restarts++;
      if (previous) noteRestart(previous, `the server process stopped during or right after this check (${firstClause(how)}); it was restarted for the remaining checks (restart ${restarts} of at most ${o.maxRestarts})`);
      primary = await t.connect();
      sessions.push(primary);
      primaryWalks.clear();
      return true;
    };

    const ordered = [...checks.filter((c) => !c.observer), ...checks.filter((c) => c.observer)];
    let previous: CheckResult | undefined;
    // A streamed result is redacted as the finished run is: no secret the server echoed reaches a live report.
    const push = (c: CheckResult) => {
      result.checks.push(c);
      // The watchdog's copy (engine/progress.ts) and the live stream get the finished check, redacted.
      reportProgress(result, c, redactor);
      o.onResult?.(redactor.redactDeep(c), result.checks.length - 1, ordered.length);
    };
    for (const check of ordered) {
      // Observers judge what the run saw; they send nothing, so they run even after the run was cut short.
      if (!check.observer) {
        if (stop.signal.aborted) {
          push(withResults(check, [notRun(`not run: ${reasonOf(stop.signal)}`)], era));
          continue;
        }
        if (!(await ensurePrimary(previous))) {
          push(withResults(check, [notRun(`not run: ${gaveUp}`)], era));
          continue;
        }
      }
      checkSessions = [];
      const results = await runCheck(check, ctx, o.checkTimeoutMs, result.harnessErrors, t);
      for (const s of checkSessions) await t.disconnect(s);
      previous = withResults(check, results, era);
      push(previous);
    }
    if (stop.signal.aborted && !result.aborted) result.aborted = reasonOf(stop.signal);
    for (const s of sessions) for (const e of s.internalErrors) result.harnessErrors.push(`connection ${s.connection}: ${e}`);
  } catch (err) {
    result.aborted = err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onInterrupt);
    result.stderr = target?.stderrTail(primary ?? sessions[0]) ?? '';
    await target?.close();
  }
  return finish();
}

async function runCheck(
  check: Check,
  ctx: SuiteContext,
  budgetMs: number,
  harnessErrors: string[],
  target: Target,
): Promise<SubjectResult[]> {
  if (!check.revisions.includes(ctx.era)) {
    const reason =
      ctx.era === 'legacy'
        ? `applies from ${MODERN_REVISION} (this run speaks ${ctx.revision}, the legacy era)`
        : `applies to ${LEGACY_REVISION} (the legacy era) only; this run speaks ${ctx.revision}`;
    return [verdictOnly('server', 'skip', reason)];
  }
  if (!check.transports.includes(ctx.transport)) {
    return [verdictOnly('server', 'skip', `applies to the ${check.transports.join(' and ')} transport only`)];
  }
  if (check.capability) {
    const caps = ctx.discovery().capabilities;
    const where = ctx.era === 'legacy' ? 'initialize' : 'server/discover';
    if (!caps) return [verdictOnly('server', 'not-observed', `${where} gave no capabilities to check "${check.capability}" against`)];
    if (caps[check.capability] === undefined) {
      return [verdictOnly('server', 'skip', `the server does not declare the ${check.capability} capability in ${where}`)];
    }
  }
  if (check.run) return [await runSubject(check, ctx, 'server', budgetMs, harnessErrors, target, (t) => check.run!(t))];

  const per = check.perTool!;
  let walk: ListWalk;
  try {
    walk = await ctx.tools();
  } catch (err) {
    return [verdictOnly('server', 'not-observed', `tools/list could not be walked: ${(err as Error).message}`)];
  }
  if (!walk.exhausted) return [verdictOnly('server', 'not-observed', `tools/list could not be walked to the end: ${walk.problem?.detail}`)];
  const tools = walk.items.filter((tool) => (per.appliesTo ? per.appliesTo(tool) : true));
  if (tools.length === 0) return [verdictOnly('server', 'skip', per.noneReason ?? 'the server lists no tools')];
  // The page that listed each tool is the evidence for what the check says about it.
  const pageOf = new Map<unknown, Exchange>();
  for (const p of walk.pages) for (const item of Array.isArray(p.result?.tools) ? p.result.tools : []) pageOf.set(item, p);
  const counts = new Map<string, number>();
  const out: SubjectResult[] = [];
  for (const tool of tools) {
    const name = String(tool?.name);
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    const subject = `tool:${name}${n > 1 ? `#${n}` : ''}`;
    out.push(await runSubject(check, ctx, subject, budgetMs, harnessErrors, target, (t) => per.run(t, tool), pageOf.get(tool)));
  }
  return out;
}

async function runSubject(
  check: Check,
  ctx: SuiteContext,
  subject: string,
  budgetMs: number,
  harnessErrors: string[],
  target: Target,
  body: (t: Probe) => Promise<void>,
  fallbackWire?: Exchange,
): Promise<SubjectResult> {
  const started = Date.now();
  const probe = new Probe(ctx, check, subject, fallbackWire);
  const untaps = ctx.allSessions().map((s) => s.tap((f) => probe.observe(f)));
  let budgetTimer: NodeJS.Timeout | undefined;
  // Everything the body sends is abandoned when its budget runs out.
  const budget = new AbortController();
  const done = (r: Omit<SubjectResult, 'durationMs' | 'subject'>): SubjectResult => ({
    subject,
    ...r,
    ...(Object.keys(probe.details).length ? { details: probe.details } : {}),
    durationMs: Date.now() - started,
  });
  try {
    await Promise.race([
      withAbortScope(budget.signal, () => body(probe)),
      new Promise<never>((_, reject) => {
        budgetTimer = setTimeout(() => {
          const waiting = [...new Set(ctx.allSessions().flatMap((s) => s.pendingMethods()))];
          const reason = `the check did not finish within its budget of ${formatSeconds(budgetMs)}${waiting.length ? ` (still waiting for ${waiting.join(', ')})` : ''}`;
          budget.abort(new Error(reason));
          reject(new VerdictSignal('not-observed', reason));
        }, budgetMs);
      }),
    ]);
  } catch (err) {
    if (err instanceof VerdictSignal) return done({ verdict: err.verdict, reason: err.reason, findings: [] });
    if (err instanceof AbortedError) return done({ verdict: 'not-observed', reason: err.message, findings: [] });
    if (err instanceof HarnessError) {
      probe.expect(false, { expected: expectedFor(err), actual: actualFor(err, target, ctx), wire: err.frames?.length ? err.frames : undefined });
      return done({ verdict: 'fail', findings: probe.findings });
    }
    const message = err instanceof Error ? err.message : String(err);
    harnessErrors.push(`${check.id} [${subject}]: internal error: ${message}`);
    return done({ verdict: 'not-observed', reason: `internal error of the suite: ${message}`, findings: [] });
  } finally {
    clearTimeout(budgetTimer);
    for (const off of untaps) off();
  }
  if (probe.findings.length === 0) return done({ verdict: 'pass', findings: [] });
  const failing = check.level === 'MUST' && probe.findings.some((f) => (f.level ?? check.level) === 'MUST');
  return done({ verdict: failing ? 'fail' : 'warn', findings: probe.findings });
}

function expectedFor(err: HarnessError): string {
  if (err instanceof RequestTimeoutError) return `an answer to ${err.method} within ${err.timeoutMs / 1000} s`;
  if (err instanceof ConnectionClosedError) return `an answer to ${err.method}`;
  return 'a JSON-RPC response';
}

function actualFor(err: HarnessError, target: Target, ctx: SuiteContext): string {
  if (err instanceof ConnectionClosedError || err instanceof TransportError) {
    // A stdio connection's close reason already carries its own process's stderr tail.
    if (err instanceof ConnectionClosedError && err.reason.includes('stderr ends:')) return err.message;
    const tail = target.stderrTail(ctx.session(), 5);
    return tail && !err.message.includes(tail) ? `${err.message}; stderr ends: ${tail}` : err.message;
  }
  return err.message;
}

/** Add a note about a restart to the check during which the server stopped. */
function noteRestart(check: CheckResult, note: string): void {
  for (const r of check.results) {
    r.reason = r.reason ? `${r.reason}; ${note}` : note;
  }
}

/** The first clause of a close reason ("server process exited with code 70"). */
function firstClause(reason: string): string {
  return reason.split(';')[0]!;
}

function withResults(check: Check, results: SubjectResult[], era: Era = 'modern'): CheckResult {
  return {
    id: check.id,
    area: check.area,
    title: check.title,
    level: check.level,
    spec: specFor(check, era),
    requirement: quoteFor(check, era),
    transports: check.transports,
    revisions: check.revisions,
    results,
  };
}

function verdictOnly(subject: string, verdict: 'skip' | 'not-observed', reason: string): SubjectResult {
  return { subject, verdict, reason, findings: [], durationMs: 0 };
}

function notRun(reason: string): SubjectResult {
  return verdictOnly('server', 'not-observed', reason);
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The engine: opens the target, discovers the server, runs the selected
 * checks subject by subject, and returns the result model. It never throws:
 * a run that cannot do its job comes back with `aborted` set and exit code 2.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import {
  AbortedError,
  ConnectionClosedError,
  formatSeconds,
  HarnessError,
  RequestTimeoutError,
  TransportError,
} from '../harness/errors.js';
import { packageRoot } from '../harness/paths.js';
import { Redactor } from '../harness/redact.js';
import type { RunTokens } from '../harness/authorization.js';
import { authorizationOf, refusal as authorizationRefusal, RunAuthorization, unauthorizedHint } from './authorization.js';
import { ProtocolSchema } from '../harness/schema.js';
import { withAbortScope } from '../harness/scope.js';
import type { Exchange, Session } from '../harness/session.js';
import { Target } from '../harness/target.js';
import { LIST_METHODS, walkList, type ListMethod, type ListWalk } from '../harness/walk.js';
import { idOf, Probe, quoteFor, Run, specFor, VerdictSignal, type Check, type Discovery, type SuiteContext } from '../suites/check.js';
import {
  answeredInitialize,
  catalogue,
  callGuard,
  chosenTriggers,
  DEFAULT_RUNS,
  HELD_BACK_FLAG,
  parseReplay,
  toolsListOwner,
  type ArgumentSettings,
} from '../suites/index.js';
import { depthOf } from './depth.js';
import { openEra, type EraMode, type Opening } from '../harness/negotiate.js';
import { runBothEras } from './all-eras.js';
import { RefusedCallError } from '../harness/call-guard.js';
import {
  exitCodeOf,
  heldBackOf,
  summarize,
  type AuthorizationInfo,
  type CheckResult,
  type RunResult,
  type Selection,
  type SubjectResult,
} from '../model/results.js';
import { LEGACY_REVISION, MODERN_REVISION } from '../harness/era.js';
import type { AuthorizationConfig, Config } from '../model/config.js';
import type { Era, TransportKind } from '../model/wire.js';
import { reportProgress } from './progress.js';
import { applyBaseline, loadBaseline, markExpected, type Baseline } from './baseline.js';
import { describePlan, leftOutChecks, planChecks, selectionRecord, type Shard } from './shard.js';

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
  /**
   * A spec working copy's schemas folder: `<revision>/schema.json` there (a modern revision: else `draft/schema.json`),
   * where it exists, replaces the bundled one (`schemaPath` wins).
   */
  schemaDir?: string;
  /** Check ids or globs; empty selects every check. */
  checks?: string[];
  strict?: boolean;
  requestTimeoutMs?: number;
  checkTimeoutMs?: number;
  runTimeoutMs?: number;
  maxMessageBytes?: number;
  startupTimeoutMs?: number;
  shutdownGraceMs?: number;
  /**
   * stdio: server processes launched ahead of the connections that take them
   * (harness/spares.ts; default 0). Only for a server that can run as several
   * processes at once: one that holds a port or a lock fails as a spare.
   */
  spares?: number;
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
  /**
   * How many checks run at once (default `defaultJobs(transport)`). Each job
   * has its own connection (stdio: its own server process). Report order and
   * verdicts do not depend on it.
   */
  jobs?: number;
  /** The results stream: each check's result as soon as it and every one before it are complete (report order). */
  onResult?: (event: ResultEvent) => void;
  /**
   * Authorization (HTTP): the embedded issuer (`embedded`) or a token command
   * (default: the configuration file's `authorization`).
   */
  authorization?: AuthorizationConfig;
  /** Called once the run's authorization is set up, before any check: its issuer and JWKS URL (never a token). */
  onAuthorization?: (info: AuthorizationInfo) => void;
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

/** What lets the suite call the tools its safety policy held back (RunResult.heldBack.remedy). */
export const HELD_BACK_REMEDY = `${HELD_BACK_FLAG} (a glob; or tools.include in the config file) or --allow-side-effects lets the suite call them`;

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

/** One live result, as soon as it and every result before it in the report are complete. */
export interface ResultEvent {
  /** The check's result, exactly as it will appear in the report's `checks`. */
  result: CheckResult;
  /** Its position in the report (0-based) and how many results the run will report. */
  index: number;
  total: number;
  /** The revision the run speaks (with `--spec all`, the era part the result belongs to). */
  revision: string;
  /** The era the run speaks. */
  era: Era;
}

/** Default `--jobs`: stdio, one server process per job; HTTP, one connection per job to the one server. */
export function defaultJobs(transport: TransportKind): number {
  return transport === 'stdio' ? 4 : 6;
}

/** Everything a run needs before it talks to the server; or the result of a run that cannot start. */
interface Prepared {
  o: typeof DEFAULTS & Partial<RunOptions>;
  result: RunResult;
  started: number;
  clock: () => number;
  redactor: Redactor;
  transport: TransportKind;
  checks: Check[];
  mode: EraMode;
  modernRevision: string;
  schema: ProtocolSchema;
  legacySchema: ProtocolSchema;
  argumentSettings: ArgumentSettings;
  /** Authorization is active: the run's tokens (set once the server listens). */
  tokens?: RunTokens;
}

/** The run's stop signal: the user's interrupt or the run deadline; `dispose` clears its timer. */
interface Stop {
  signal: AbortSignal;
  dispose: () => void;
}

/** Runs exactly the checks `options.checks` selects (no skip, shard or baseline: see `runConformance`). */
export async function runSelection(options: RunOptions): Promise<RunResult> {
  if (options.spec === 'all') return runBothEras(options, runSelection);
  const prep = prepare(options);
  if (!('checks' in prep)) return finish(prep.failed);
  const stop = stopSignal(prep.o);
  let target: Target | undefined;
  let primary: Session | undefined;
  let auth: RunAuthorization | undefined;
  try {
    auth = await beginAuthorization(prep);
    const opened = await open(prep, stop.signal, auth);
    target = opened.target;
    primary = opened.primary;
    if (opened.ready) await runChecks(prep, opened.ready, stop.signal);
  } catch (err) {
    prep.result.aborted = err instanceof Error ? err.message : String(err);
  } finally {
    stop.dispose();
    prep.result.stderr = target?.stderrTail(primary) ?? '';
    await target?.close();
    await auth?.end();
  }
  return finish(prep);
}

/**
 * Authorization, before the target opens: refused (one line) when it would
 * send a token off loopback; the embedded issuer started, and a launched
 * server's environment given its URL. The headers become the run's own
 * object, which the connections read (the valid token goes in once minted).
 */
async function beginAuthorization(prep: Prepared): Promise<RunAuthorization | undefined> {
  const { o } = prep;
  const a = authorizationOf(o.authorization, o.config);
  if (!a) return undefined;
  const why = authorizationRefusal(a, o.url);
  if (why) throw new Error(why);
  const auth = await RunAuthorization.begin(a);
  o.env = { ...(o.env ?? {}), ...auth.env() };
  o.headers = { ...(o.headers ?? {}) };
  return auth;
}

/** Once the server listens: the valid token on every request, recorded and announced (false: it could not be had, the run is aborted). */
async function authorize(prep: Prepared, auth: RunAuthorization, signal: AbortSignal): Promise<boolean> {
  const { o, result } = prep;
  try {
    prep.tokens = await auth.tokensFor(o.url!, o.headers!, { redactor: prep.redactor, timeoutMs: o.requestTimeoutMs, cwd: o.cwd, signal });
  } catch (err) {
    result.aborted = (err as Error).message;
    return false;
  }
  result.authorization = auth.record;
  o.onAuthorization?.(auth.record);
  return true;
}

/** Validate the options, load the schemas, select the checks: no server is touched yet. */
function prepare(options: RunOptions): Prepared | { failed: Pick<Prepared, 'o' | 'result' | 'started' | 'redactor'> } {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const started = Date.now();
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
  const fail = (why: string) => {
    result.aborted = why;
    return { failed: { o, result, started, redactor } };
  };
  if (!(SPEC_CHOICES as readonly string[]).includes(o.spec)) return fail(`unknown --spec ${o.spec} (known: ${SPEC_CHOICES.join(', ')})`);
  if (o.jobs !== undefined && (!Number.isInteger(o.jobs) || o.jobs < 1))
    return fail(`--jobs must be a positive whole number, got ${o.jobs}`);
  const replay = o.replay === undefined ? undefined : parseReplay(o.replay);
  if (replay === null) {
    return fail(`--replay must look like <path>@<tool> as a failure reports it (e.g. 3:1:0@search), got ${JSON.stringify(o.replay)}`);
  }
  if (replay && o.seed === undefined) return fail('--replay needs the --seed of the run that found the case');
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
  if (checks.length === 0) return fail(`no check matches --check ${(o.checks ?? []).join(', ')} (see "mcp-conformance list")`);
  // --schema replaces the schema of the revision named by --spec (auto: the modern one).
  let schema: ProtocolSchema;
  let legacySchema: ProtocolSchema;
  try {
    // Fields a selected check owns are that check's to judge, not the schema checks'.
    const setAside = [...new Set(checks.flatMap((c) => c.resultFields ?? []))];
    const fromDir = (rev: string) => schemaIn(o.schemaDir, rev);
    schema = ProtocolSchema.load(modernRevision, (mode === 'legacy' ? undefined : o.schemaPath) ?? fromDir(modernRevision), { setAside });
    legacySchema = ProtocolSchema.load(LEGACY_REVISION, (mode === 'legacy' ? o.schemaPath : undefined) ?? fromDir(LEGACY_REVISION), {
      setAside,
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  return {
    o,
    result,
    started,
    clock: () => Date.now() - started,
    redactor,
    transport,
    checks,
    mode,
    modernRevision,
    schema,
    legacySchema,
    argumentSettings,
  };
}

/** `<dir>/<revision>/schema.json` where a spec copy's schemas folder has it (a modern revision: else its `draft/`). */
function schemaIn(dir: string | undefined, revision: string): string | undefined {
  if (dir === undefined) return undefined;
  const folders = revision === LEGACY_REVISION ? [revision] : [revision, 'draft'];
  return folders.map((f) => join(dir, f, 'schema.json')).find((file) => existsSync(file));
}

/** One signal for "stop now": the user's interrupt or the run deadline. */
function stopSignal(o: Prepared['o']): Stop {
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new Error(`the run deadline of ${o.runTimeoutMs / 1000} s was reached`)), o.runTimeoutMs);
  const onInterrupt = () => stop.abort(o.signal?.reason instanceof Error ? o.signal.reason : new Error('interrupted'));
  if (o.signal?.aborted) onInterrupt();
  o.signal?.addEventListener('abort', onInterrupt, { once: true });
  return {
    signal: stop.signal,
    dispose: () => {
      clearTimeout(deadline);
      o.signal?.removeEventListener('abort', onInterrupt);
    },
  };
}

/** A job's lane: its own primary connection (stdio: its own server process), and the last check it ran. */
interface Lane {
  index: number;
  primary?: Session;
  previous?: CheckResult;
  /** The lane could not open a connection of its own: it shares the first lane's. */
  shared?: boolean;
}

/** What runs the checks: the context they share, the lanes, and how a lane gets its connection back. */
interface Ready {
  target: Target;
  ctx: SuiteContext;
  era: Era;
  lanes: Lane[];
  /** stdio: restart a lane's server if it died (false: no restart left). */
  ensurePrimary: (lane: Lane) => Promise<boolean>;
  gaveUp: () => string | undefined;
  /** Sessions the current check opened (closed after it). */
  checkSessions: () => Session[];
  /** Run `fn` as the work of a check on `lane`. */
  onLane: <T>(lane: Lane, alone: boolean, fn: () => Promise<T>) => Promise<T>;
  /**
   * Which frames the check running here observes (asked when it starts): its
   * own, and unowned ones on its own connections; all of them when it runs alone.
   */
  observer: (mine: AbortSignal) => (session: Session, owner: AbortSignal | undefined) => boolean;
}

interface LaneState {
  lane: Lane;
  alone: boolean;
  sessions: Session[];
}

/** Open the target, settle the era (one call: probe, fallback, handshake), and build the context the checks share. */
async function open(
  prep: Prepared,
  signal: AbortSignal,
  auth?: RunAuthorization,
): Promise<{ target?: Target; primary?: Session; ready?: Ready }> {
  const { o, result, transport } = prep;
  const t = await openTarget(prep, signal);
  if (auth && !(await authorize(prep, auth, signal))) return { target: t };
  const sessions: Session[] = [];
  const opening = await openEra(t, {
    mode: prep.mode,
    modernRevision: prep.modernRevision,
    modernSchema: prep.schema,
    legacySchema: prep.legacySchema,
    probeTimeoutMs: o.probeTimeoutMs,
  });
  sessions.push(...opening.sessions);
  // A protected server refused the opening request: one line naming how to authorize, not a pile of failures.
  const refused = transport === 'http' && !!opening.unauthorized;
  if (opening.fatal || !opening.primary || refused) {
    result.aborted = refused ? unauthorizedHint(auth) : (opening.fatal ?? 'no connection to the server');
    return { target: t, primary: opening.primary ?? opening.sessions[0] };
  }
  result.revision = opening.revision;
  if (opening.era) result.era = opening.era;
  if (opening.server) result.server = opening.server;
  const dual = prep.mode === 'auto' ? dualEraOf(opening) : undefined;
  if (dual) result.dualEra = dual;
  const era = opening.era?.era ?? 'modern';
  const jobs = Math.max(1, o.jobs ?? defaultJobs(transport));
  const lanes: Lane[] = Array.from({ length: jobs }, (_, index) => ({ index }));
  lanes[0]!.primary = opening.primary;
  const first = lanes[0]!;
  const basis: Basis = { prep, t, opening, era, first, sessions };

  const walks = listWalks(basis);
  const laneScope = new AsyncLocalStorage<LaneState>();
  const current = () => laneScope.getStore();
  const ctx = suiteContext(basis, signal, walks.walk, current);
  const keeper = primaryKeeper(basis, walks.forgetPrimary);
  return {
    target: t,
    primary: opening.primary,
    ready: {
      target: t,
      ctx,
      era,
      lanes,
      ensurePrimary: keeper.ensurePrimary,
      gaveUp: keeper.gaveUp,
      checkSessions: () => current()?.sessions ?? [],
      onLane: (lane, alone, fn) => laneScope.run({ lane: lane.shared ? first : lane, alone, sessions: [] }, fn),
      observer: (mine) => {
        const state = current();
        return (session, owner) => {
          if (owner === mine || !state || state.alone) return true;
          return owner === undefined && (session === state.lane.primary || state.sessions.includes(session));
        };
      },
    },
  };
}

/**
 * `--spec auto` on a server whose server/discover answer lists a legacy version in
 * supportedVersions: it speaks both eras. The run tests the modern one (the one the
 * draft tells a client to pick when server/discover answers); the report names `--spec all`.
 */
function dualEraOf(opening: Opening): RunResult['dualEra'] {
  if (opening.era?.era !== 'modern') return undefined;
  const versions = opening.discovery.exchange?.result?.supportedVersions;
  if (!Array.isArray(versions) || !versions.includes(LEGACY_REVISION)) return undefined;
  return dualEraHint('its server/discover answer lists it in supportedVersions');
}

function dualEraHint(how: string): NonNullable<RunResult['dualEra']> {
  return {
    tested: 'modern',
    other: 'legacy',
    hint: `the server also speaks ${LEGACY_REVISION} (legacy): ${how}; this run tested the modern era, the one a client picks when server/discover answers; --spec all tests both, --spec ${LEGACY_REVISION} the legacy one`,
  };
}

/** What `open` has settled before it builds the rest: the target, the opening and its era, the first lane, every connection of the run. */
interface Basis {
  prep: Prepared;
  t: Target;
  opening: Opening;
  era: Era;
  /** The first lane (the run's first connection). */
  first: Lane;
  /** Every connection the run opened (the wire-wide checks read them all). */
  sessions: Session[];
}

/** Open the target (Target.open: validate it, launch a command + URL server) with the run's options. */
function openTarget(prep: Prepared, signal: AbortSignal): Promise<Target> {
  const { o } = prep;
  return Target.open({
    command: o.command,
    url: o.url,
    headers: o.headers ?? {},
    env: o.env ?? {},
    cwd: o.cwd,
    revision: prep.modernRevision,
    schema: prep.schema,
    redactor: prep.redactor,
    requestTimeoutMs: o.requestTimeoutMs,
    maxMessageBytes: o.maxMessageBytes,
    startupTimeoutMs: o.startupTimeoutMs,
    shutdownGraceMs: o.shutdownGraceMs,
    spares: o.spares ?? 0,
    clock: prep.clock,
    runSignal: signal,
    // The last gate of the safety promise: every tools/call of the run is put to the policy on its way out.
    callGuard: callGuard({ config: o.config ?? {}, settings: { arguments: prep.argumentSettings } }),
  });
}

/** The run's memoized list walks, and how the first lane's are dropped when its connection is replaced. */
interface Walks {
  walk: SuiteContext['walk'];
  forgetPrimary: () => void;
}

function listWalks({ prep, t, first, sessions }: Basis): Walks {
  const primaryWalks = new Map<ListMethod, Promise<ListWalk>>();
  const freshWalks = new Map<ListMethod, Promise<ListWalk>>();
  const walkOn = (s: Session, method: ListMethod) => walkList(s, method, LIST_METHODS[method], { maxPages: prep.o.maxPages });
  // The fresh walks of every list share one second connection (stdio: one more process), open until the run ends.
  let freshConnection: Promise<Session> | undefined;
  const freshSession = async (): Promise<Session> => {
    const open = freshConnection && (await freshConnection.catch(() => undefined));
    if (!open || open.closed) freshConnection = t.connect().then((s) => (sessions.push(s), s));
    return freshConnection!;
  };
  // The memoized walks are the first lane's (the run's first connection).
  const walk = (method: ListMethod, where: 'primary' | 'fresh' = 'primary'): Promise<ListWalk> => {
    const memo = where === 'primary' ? primaryWalks : freshWalks;
    let w = memo.get(method);
    if (!w) {
      const started: Promise<ListWalk> = (
        where === 'primary' ? walkOn(first.primary!, method) : freshSession().then((s) => walkOn(s, method))
      ).catch((err: unknown) => {
        // A walk abandoned by an overrunning check is walked again by the next one that needs it.
        if (err instanceof AbortedError && memo.get(method) === started) memo.delete(method);
        throw err;
      });
      w = started;
      memo.set(method, w);
    }
    return w;
  };
  return { walk, forgetPrimary: () => primaryWalks.clear() };
}

/** The context the checks share; `current` is the lane state of the check running here. */
function suiteContext(
  { prep, t, opening, era, first, sessions }: Basis,
  signal: AbortSignal,
  walk: SuiteContext['walk'],
  current: () => LaneState | undefined,
): SuiteContext {
  const { o, transport } = prep;
  const discovery = opening.discovery;
  const run = new Run();
  return {
    run,
    transport,
    revision: opening.revision,
    era,
    settings: {
      requestTimeoutMs: o.requestTimeoutMs,
      maxPages: o.maxPages,
      maxRounds: o.maxRounds,
      notificationTimeoutMs: o.notificationTimeoutMs ?? o.config?.listChanged?.timeoutMs ?? NOTIFICATION_TIMEOUT_MS,
      arguments: prep.argumentSettings,
      maxMessageBytes: o.maxMessageBytes,
    },
    config: o.config ?? {},
    signal,
    session: () => current()?.lane.primary ?? first.primary!,
    openSession: async (opts) => {
      const s = await t.connect(opts);
      sessions.push(s);
      current()?.sessions.push(s);
      return s;
    },
    discovery: () => discovery,
    tools: () => walk('tools/list'),
    toolsFresh: () => walk('tools/list', 'fresh'),
    walk,
    allSessions: () => sessions,
    schemaJudged: run.schemaJudged,
    framesJudged: run.framesJudged,
    schemaJudgedExchanges: run.schemaJudgedExchanges,
    // The schema of the era the run speaks (2025-11-25 results have no resultType).
    protocolSchema: era === 'legacy' ? prep.legacySchema : prep.schema,
    ...(prep.tokens ? { authorization: prep.tokens } : {}),
  };
}

/** How lanes get their connection (and a died server back); `gaveUp` says why no restart is left. */
function primaryKeeper(
  { prep, t, opening, era, first, sessions }: Basis,
  forgetPrimary: () => void,
): Pick<Ready, 'ensurePrimary' | 'gaveUp'> {
  const { o, transport } = prep;
  const discovery = opening.discovery;
  let restarts = 0;
  let gaveUp: string | undefined;
  /**
   * A lane's connection, opened when the lane first runs a check. stdio: a
   * server that died is restarted for the remaining checks (the spec says a
   * client SHOULD restart it), up to --max-restarts times in all.
   */
  const ensurePrimary = async (lane: Lane): Promise<boolean> => {
    if (gaveUp) return false;
    if (!lane.primary) {
      try {
        lane.primary = await openLike(t, era, discovery);
        sessions.push(lane.primary);
      } catch {
        lane.shared = true;
      }
    }
    if (lane.shared) return ensurePrimary(first);
    const p = lane.primary!;
    if (!p.closed || transport !== 'stdio') return true;
    const how = p.closed;
    if (restarts >= o.maxRestarts) {
      gaveUp = `the server process stopped ${restarts + 1} time(s) and no restart is left (--max-restarts ${o.maxRestarts}); last: ${firstClause(how)}`;
      return false;
    }
    restarts++;
    if (lane.previous) {
      noteRestart(
        lane.previous,
        `the server process stopped during or right after this check (${firstClause(how)}); it was restarted for the remaining checks (restart ${restarts} of at most ${o.maxRestarts})`,
      );
    }
    lane.primary = await t.connect();
    sessions.push(lane.primary);
    if (lane === first) forgetPrimary();
    return true;
  };
  return { ensurePrimary, gaveUp: () => gaveUp };
}

/**
 * Run the selected checks: up to `--jobs` at once, each job on its own lane
 * (connection); a check that declares `exclusive` runs alone, one that
 * declares `after` waits for those checks; observers judge at the end, from
 * what the whole run saw. The report keeps the catalogue's order, whatever
 * the order of completion, and each result is streamed as soon as it and
 * every one before it are in.
 */
async function runChecks(prep: Prepared, ready: Ready, signal: AbortSignal): Promise<void> {
  const { o, result } = prep;
  const { ctx, era, lanes, target: t } = ready;
  const ordered = [...prep.checks.filter((c) => !c.observer), ...prep.checks.filter((c) => c.observer)];
  const slots: Array<CheckResult | undefined> = new Array(ordered.length);
  let emitted = 0;
  const settle = (i: number, r: CheckResult) => {
    slots[i] = r;
    while (emitted < ordered.length && slots[emitted]) {
      const done = slots[emitted]!;
      emitted++;
      // The watchdog's copy (engine/progress.ts) and the live stream get the finished check, redacted as the
      // finished run is: no secret the server echoed reaches a live report.
      reportProgress(result, done, prep.redactor);
      try {
        o.onResult?.({ result: prep.redactor.redactDeep(done), index: emitted - 1, total: ordered.length, revision: result.revision, era });
      } catch (err) {
        result.harnessErrors.push(`the results stream's consumer failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const finished = new Map<Check, Promise<void>>();
  const running = new Set<Promise<void>>();
  // The first lane is the primary stream's (checks that declare `primary`, one at a time); the others are the pool's.
  const first = lanes[0]!;
  const free = lanes.length > 1 ? lanes.slice(1) : [];
  let primaryTail: Promise<void> = Promise.resolve();
  let fatal: unknown;
  const waiting: Array<(lane: Lane) => void> = [];
  const acquire = (): Promise<Lane> => (free.length ? Promise.resolve(free.shift()!) : new Promise((resolve) => waiting.push(resolve)));
  const release = (lane: Lane) => {
    const next = waiting.shift();
    if (next) return next(lane);
    free.push(lane);
    free.sort((a, b) => a.index - b.index);
  };

  const runOn = async (i: number, check: Check, lane: Lane, alone: boolean): Promise<void> => {
    for (const dep of check.after ?? []) await finished.get(dep);
    // Observers judge what the run saw; they send nothing, so they run even after the run was cut short.
    if (!check.observer) {
      if (signal.aborted) return settle(i, withResults(check, [notRun(`not run: ${reasonOf(signal)}`)], era));
      if (!(await ready.ensurePrimary(lane))) return settle(i, withResults(check, [notRun(`not run: ${ready.gaveUp()}`)], era));
    }
    const results = await ready.onLane(lane, alone, async () => {
      const r = await runCheck(check, ctx, o.checkTimeoutMs, result.harnessErrors, t, ready);
      for (const s of ready.checkSessions()) await t.disconnect(s);
      return r;
    });
    const r = withResults(check, results, era);
    lane.previous = r;
    settle(i, r);
  };
  const drain = async () => {
    while (running.size) await Promise.race(running);
  };

  for (const [i, check] of ordered.entries()) {
    const alone = !!check.observer || !!check.exclusive || lanes.length === 1;
    let task: Promise<void>;
    if (alone) {
      await drain();
      task = runOn(i, check, first, true);
    } else if (check.primary) {
      // After the previous primary check, on the first connection, beside the pool.
      task = primaryTail.then(() => runOn(i, check, first, false));
      primaryTail = task.catch(() => undefined);
    } else {
      // Queued for the next free lane of the pool (first come, first served: catalogue order).
      task = acquire().then((lane) => runOn(i, check, lane, false).finally(() => release(lane)));
    }
    // A task that cannot go on (e.g. a restart that cannot connect) ends the run, never as an unhandled rejection.
    const tracked: Promise<void> = task.catch((err: unknown) => void (fatal ??= err)).finally(() => running.delete(tracked));
    finished.set(check, tracked);
    running.add(tracked);
    if (alone) await drain();
    if (fatal !== undefined) break;
  }
  await drain();
  result.checks.push(...slots.filter((r): r is CheckResult => !!r));
  if (fatal !== undefined) throw fatal;
  if (signal.aborted && !result.aborted) result.aborted = reasonOf(signal);
  for (const s of ctx.allSessions()) for (const e of s.internalErrors) result.harnessErrors.push(`connection ${s.connection}: ${e}`);
  const found = chosenTriggers(ctx);
  if (found.length) result.triggers = found;
  if (!result.dualEra && prep.mode === 'auto' && result.era?.era === 'modern' && answeredInitialize(ctx))
    result.dualEra = dualEraHint('it answered initialize with a result on a connection of its own (versioning/initialize-error-versions)');
}

/** The result model, complete: duration, redaction, summary, exit code. */
function finish(prep: Pick<Prepared, 'o' | 'result' | 'started' | 'redactor'>): RunResult {
  const { result, redactor } = prep;
  result.durationMs = Date.now() - prep.started;
  // Whatever the server echoed back, no secret reaches a report.
  redactor.redactDeep(result);
  result.summary = summarize(result.checks);
  if (result.checks.length) result.depth = depthOf(result.checks);
  const held = heldBackOf(result.checks, HELD_BACK_REMEDY);
  if (held) result.heldBack = held;
  const s = result.summary;
  if (!result.aborted && s.total > 0 && s.pass + s.fail + s.warn === 0) {
    result.aborted = 'nothing was tested: every check was skipped or not observed';
  }
  result.exitCode = exitCodeOf(result);
  return result;
}

async function runCheck(
  check: Check,
  ctx: SuiteContext,
  budgetMs: number,
  harnessErrors: string[],
  target: Target,
  ready: Ready,
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
  if (check.run) return [await runSubject(check, ctx, 'server', budgetMs, harnessErrors, target, ready, (t) => check.run!(t))];

  const per = check.perTool!;
  let walk: ListWalk;
  try {
    walk = await ctx.tools();
  } catch (err) {
    // A shared precondition: the check that judges the walk reports its failure; the dependants name it.
    return [
      verdictOnly(
        'server',
        'not-observed',
        `tools/list could not be walked: ${(err as Error).message} (judged by ${idOf(toolsListOwner)})`,
      ),
    ];
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
    out.push(await runSubject(check, ctx, subject, budgetMs, harnessErrors, target, ready, (t) => per.run(t, tool), pageOf.get(tool)));
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
  ready: Ready,
  body: (t: Probe) => Promise<void>,
  fallbackWire?: Exchange,
): Promise<SubjectResult> {
  const started = Date.now();
  const probe = new Probe(ctx, check, subject, fallbackWire);
  // Everything the body sends is abandoned when its budget runs out; its frames are the ones this scope owns.
  const budget = new AbortController();
  const observes = ready.observer(budget.signal);
  const untaps = ctx.allSessions().map((s) => s.tap((f, owner) => observes(s, owner) && probe.observe(f)));
  let budgetTimer: NodeJS.Timeout | undefined;
  const done = (r: Omit<SubjectResult, 'durationMs' | 'subject'>): SubjectResult => ({
    subject,
    ...r,
    ...(Object.keys(probe.details).length ? { details: probe.details } : {}),
    ...(probe.notes.length ? { notes: [...probe.notes] } : {}),
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
    if (err instanceof VerdictSignal)
      return done({ verdict: err.verdict, reason: err.reason, findings: [], ...(err.heldBack ? { heldBack: err.heldBack } : {}) });
    // The tool-call gate refused a call the check should not have made: the session recorded the harness error.
    if (err instanceof RefusedCallError) return done({ verdict: 'not-observed', reason: err.message, findings: [] });
    if (err instanceof AbortedError) return done({ verdict: 'not-observed', reason: err.message, findings: [] });
    if (err instanceof HarnessError) {
      probe.expect(false, {
        expected: expectedFor(err),
        actual: actualFor(err, target, ctx),
        wire: err.frames?.length ? err.frames : undefined,
      });
      return done({ verdict: 'fail', findings: probe.findings });
    }
    const message = err instanceof Error ? err.message : String(err);
    harnessErrors.push(`${check.id} [${subject}]: internal error: ${message}`);
    return done({ verdict: 'not-observed', reason: `internal error of the suite: ${message}`, findings: [] });
  } finally {
    clearTimeout(budgetTimer);
    await probe.cleanup();
    for (const off of untaps) off();
  }
  if (probe.findings.length === 0) return done({ verdict: 'pass', findings: [] });
  // A finding fails at its own rule's level: a MUST part of a SHOULD check fails, a SHOULD part (or a downgraded finding) of a MUST check warns.
  const failing = probe.findings.some((f) => (f.level ?? check.level) === 'MUST');
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

/**
 * A job's own connection, opened the way a client opens one and the run's
 * first one was: the legacy handshake (in `connect`), or in the modern era
 * `server/discover` first; then, when the server declares tools, the first
 * page of `tools/list`. A server whose answers depend on what came earlier on
 * a connection (which basic/index "Statelessness" forbids, and some do) then
 * meets every job's checks in the state it met the first connection's.
 */
async function openLike(t: Target, era: Era, discovery: Discovery): Promise<Session> {
  const s = await t.connect();
  if (era === 'modern') await s.request('server/discover').catch(() => undefined);
  // A warm-up, not a judgement: it waits a tenth of the request timeout at most.
  if (discovery.capabilities?.tools !== undefined)
    await s.request('tools/list', {}, { timeoutMs: Math.max(100, s.requestTimeoutMs / 10) }).catch(() => undefined);
  return s;
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

/*
 * The gate around one run: the CLI's selection and baseline options. The library
 * (lib/index.ts) exports these names as they are.
 */

export interface ConformanceOptions extends RunOptions {
  /** Check ids or globs left out (as `--skip`; the config's `checks.exclude` is added). */
  skip?: string[];
  /** Run one part of the catalogue (as `--shard index/total`). */
  shard?: Shard;
  /** A baseline file's path, or its content: listed fails and warns do not fail the run, stale entries do. */
  baseline?: string | Baseline;
  /** The configuration file `config` was read from, for the reports (the CLI sets it). */
  configFile?: Selection['configFile'];
}

/** A result for a run that never started (bad options). */
export function abortedResult(cause: string, options: Pick<RunOptions, 'command' | 'url' | 'spec' | 'strict'> = {}): RunResult {
  return {
    tool: toolVersion(),
    startedAt: new Date().toISOString(),
    durationMs: 0,
    target: {
      transport: options.url ? 'http' : 'stdio',
      ...(options.command ? { command: options.command } : {}),
      ...(options.url ? { url: options.url } : {}),
    },
    revision: options.spec ?? DEFAULTS.spec,
    strict: !!options.strict,
    checks: [],
    summary: summarize([]),
    stderr: '',
    aborted: cause,
    harnessErrors: [],
    exitCode: 2,
  };
}

/**
 * Runs the suite against one server; resolves to the result model, never
 * rejects. The selection (`checks`, `skip`, the config's `checks.exclude`,
 * `shard`) is planned first, and the baseline applied to the result: what the
 * CLI and the library (`import { runConformance } from 'mcp-conformance'`) run.
 */
export async function runConformance(options: ConformanceOptions): Promise<RunResult> {
  const { skip, shard, baseline, configFile, ...engine } = options;
  const selection: Selection = {
    ...(configFile ? { configFile } : {}),
    leftOut: leftOutChecks({ skip, exclude: options.config?.checks?.exclude, include: options.checks }),
  };
  const withSelection = (run: RunResult): RunResult => ({ ...run, selection });
  let loaded: Baseline | undefined;
  try {
    loaded = typeof baseline === 'string' ? loadBaseline(baseline) : baseline;
  } catch (err) {
    return withSelection(abortedResult((err as Error).message, options));
  }
  const plan = {
    include: options.checks ?? [],
    exclude: [...(skip ?? []), ...(options.config?.checks?.exclude ?? [])],
    ...(shard ? { shard } : {}),
  };
  const selected = planChecks(plan);
  if (selected.length === 0)
    return withSelection(abortedResult(`no check is left to run by ${describePlan(plan)} (see "mcp-conformance list")`, options));
  const onResult = engine.onResult;
  const run = await runSelection({
    ...engine,
    checks: selected.map((c) => c.id),
    // A live report shows a baselined failure as expected from the start.
    ...(onResult && loaded ? { onResult: (e) => (markExpected(e.result, loaded!), onResult(e)) } : {}),
  });
  // What `merge` needs to tell shards of one set apart.
  run.catalogue = selectionRecord(plan);
  if (shard) run.shard = shard;
  return withSelection(loaded ? applyBaseline(run, loaded) : run);
}

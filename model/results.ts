/**
 * The verdict and result model shared by every layer: what checks produce,
 * the engine assembles and the renderers read. Ground layer: imports nothing
 * of the project but its sibling modules.
 *
 * A check is a spec-section test case: it names the page and section it
 * enforces, its requirement level, and a body that drives the server through
 * the harness session and states what it expects. The engine turns what the
 * body saw into one verdict per subject.
 */

import type { Level, SpecRef } from './spec.js';
import type { Era, EraInfo, TransportKind, WireFrame } from './wire.js';

export type { Level, SpecRef } from './spec.js';

/**
 * pass: requirement met. fail: a MUST broken. warn: a SHOULD broken.
 * skip: not applicable (with a reason). not-observed: applicable but could not
 * be exercised (with a reason). Neither skip nor not-observed is ever a pass.
 */
export type Verdict = 'pass' | 'fail' | 'warn' | 'skip' | 'not-observed';

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'warn', 'skip', 'not-observed'];

/** What a failed or warned requirement looked like. */
export interface Finding {
  /** What the spec requires, in its own words where possible. */
  requirement: string;
  expected: string;
  actual: string;
  /** The frames that show it. */
  wire: WireFrame[];
  /** Set when this finding is judged below the check's level (e.g. a SHOULD part of a MUST check): a warning, not a failure. */
  level?: Level;
  /** For a generated case: what replays exactly this case (the report prints the command line). */
  replay?: ReplayCase;
}

/** One generated case, as `--seed` and `--replay` name it. */
export interface ReplayCase {
  check: string;
  tool: string;
  seed: number;
  /** fast-check's counterexample path. */
  path: string;
}

/** The verdict for one subject (the server as a whole, or one tool). */
export interface SubjectResult {
  /** `server`, or `tool:<name>` and similar. */
  subject: string;
  verdict: Verdict;
  /** Reason for skip / not-observed, or a short note for pass. */
  reason?: string;
  /** For fail and warn: every finding, first one first. */
  findings: Finding[];
  /** Free-form observations worth reporting (e.g. TTLs seen per page). */
  details?: Record<string, unknown>;
  /**
   * Notes: behaviour a user wants to know about that no sentence of the spec
   * rules (an endless cursor chain, the same item on several pages, a tool
   * slower than the request timeout). A note is never a verdict and is never
   * counted: a result with notes keeps its verdict (Autobahn|Testsuite's
   * INFORMATIONAL outcome). Absent when there is none.
   */
  notes?: string[];
  durationMs: number;
  /** A fail or warn the run's baseline lists: reported, but it does not fail the run. */
  expected?: { reason: string };
  /** Not observed because the safety policy held these tools back (not read-only, not named by the user). */
  heldBack?: string[];
}

/** Static description of a check, as `mcp-conformance list` prints it. */
export interface CheckInfo {
  /** Stable id `area/slug`. */
  id: string;
  area: string;
  title: string;
  level: Level;
  /** Where the rule lives, in the revision of the era the result is for. */
  spec: SpecRef;
  /** The rule's sentence(s), verbatim from that section (the Requirement a report shows). */
  requirement: string;
  /** Transports the check applies to (default: both). */
  transports: TransportKind[];
  /** Protocol eras the check applies to (default: modern only). */
  revisions: Era[];
}

export interface CheckResult extends CheckInfo {
  results: SubjectResult[];
}

/**
 * The counts every report prints (console, JSON `summary`, JUnit, HTML, step
 * summary), from one function (`countRun`). A fail or warn the baseline
 * accepted counts as expected, not as fail or warn; stale counts baseline
 * entries (not results), so total is the number of results.
 */
export interface RunSummary {
  pass: number;
  fail: number;
  warn: number;
  expected: number;
  stale: number;
  skip: number;
  notObserved: number;
  total: number;
}

/** The counts in the order the reports print them, with their labels. */
export const COUNT_LABELS: ReadonlyArray<[Exclude<keyof RunSummary, 'total'>, string]> = [
  ['pass', 'pass'],
  ['fail', 'fail'],
  ['warn', 'warn'],
  ['expected', 'expected'],
  ['stale', 'stale'],
  ['skip', 'skip'],
  ['notObserved', 'not observed'],
];

/** Everything one run produced: what the renderers and the JSON report take. */
/** The authorization of a run: the embedded issuer the server is pointed at, or the user's token command. */
export interface AuthorizationInfo {
  source: 'embedded' | 'command';
  /** The embedded issuer's URL (MCP_CONFORMANCE_ISSUER of a launched server). */
  issuer?: string;
  jwksUri?: string;
  /** The scopes the valid token carries (embedded issuer). */
  scopes?: string[];
}

export interface RunResult {
  tool: { name: string; version: string };
  startedAt: string;
  durationMs: number;
  /** The target as the user named it (secrets redacted). */
  target: { transport: TransportKind; command?: string; url?: string };
  /** Protocol revision the run used (`all`: see `eras`). */
  revision: string;
  /** The era the run spoke and how it was chosen (absent when the run ended before that was settled). */
  era?: EraInfo;
  /** `--spec all`: one complete run per era, in order (modern, then legacy); the top-level counts sum them. */
  eras?: RunResult[];
  /** Server identity from server/discover, when it answered. */
  server?: { name?: string; version?: string };
  strict: boolean;
  /** Seed of argument generation (tools-call checks). */
  seed?: number;
  /** The command line of the run, secrets redacted (to print replay commands). */
  invocation?: string[];
  checks: CheckResult[];
  summary: RunSummary;
  /** stderr the server wrote (tail, redacted); attached, never judged. */
  stderr: string;
  /** Set when the run could not do its job (exit code 2): a one-line cause. */
  aborted?: string;
  /** Internal problems of the suite itself (exit code 2). */
  harnessErrors: string[];
  /** The calls the suite chose on its own for what a configuration key would name (so the user can pin them). */
  triggers?: TriggerChoice[];
  /** How deep the run went: checks judged of those that applied, and what would let the others run. */
  depth?: RunDepth;
  /** Set when the probe showed the server speaks both eras and the run tested only one: which, and how to test the other. */
  dualEra?: { tested: Era; other: Era; hint: string };
  /** Authorization was active (`--auth`, `authorization` in the config file): where the tokens came from (never a token). */
  authorization?: AuthorizationInfo;
  /**
   * The tools the safety policy held back (not annotated readOnlyHint: true,
   * not named by the user), how many results could not run for it, and what
   * lets them run. Absent when none was.
   */
  heldBack?: HeldBack;
  /** Set when the run was judged against a baseline (`--baseline`). */
  baseline?: BaselineOutcome;
  /** What the run left out, and the configuration file it read (absent on results written before it was recorded). */
  selection?: Selection;
  /** `--shard i/n`: which part of the selected checks this run ran. */
  shard?: { index: number; total: number };
  /** The selected checks (before sharding): how many, and a digest of their ids, so `merge` can tell runs of one set apart. */
  catalogue?: { checks: number; digest: string };
  /** Set by `merge --allow-partial` when shards were missing or mismatched: what the merged result lacks. Never a pass. */
  incomplete?: string;
  exitCode: 0 | 1 | 2;
}

/** Where a left-out check's pattern came from. */
export type LeftOutSource = '--skip' | 'checks.exclude' | '--check';

/** Checks one pattern left out of the run. */
export interface LeftOut {
  source: LeftOutSource;
  /** The id or glob as given. */
  pattern: string;
  /** The checks it left out, in catalogue order (a check counts under the first pattern that matches it). */
  checks: string[];
}

/** What a run left out of the catalogue, and the configuration file that took part. */
export interface Selection {
  /** The configuration file read (absolute), and how: named by --config, or found in the current folder. */
  configFile?: { path: string; found: '--config' | 'current folder' };
  /** Every pattern that left checks out, with the checks (`--check` globs that merely did not pick a check are not listed). */
  leftOut: LeftOut[];
}

/** A call the suite found for what a configuration key names (e.g. slowTool), and the checks that used it. */
export interface TriggerChoice {
  key: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** What was measured that made it the choice. */
  why: string;
  checks: string[];
}

/**
 * "judged N of M applicable checks": a check applies when any result is other
 * than skip, and is judged when any is pass, fail or warn. The applicable checks
 * that were only not observed are grouped by what would let them run.
 */
export interface RunDepth {
  applicable: number;
  judged: number;
  notObserved: Array<{ unlock: string; checks: string[] }>;
}

/** What the safety policy held back in a run (RunResult.heldBack). */
export interface HeldBack {
  tools: string[];
  /** Results not observed for it. */
  results: number;
  /** What lets the suite call them. */
  remedy: string;
}

/** The held-back tools of these checks' results (undefined when none). */
export function heldBackOf(checks: CheckResult[], remedy: string): HeldBack | undefined {
  const tools = new Set<string>();
  let results = 0;
  for (const c of checks)
    for (const r of c.results) {
      if (!r.heldBack?.length) continue;
      results++;
      for (const name of r.heldBack) tools.add(name);
    }
  return tools.size ? { tools: [...tools].sort(), results, remedy } : undefined;
}

/** One entry of a baseline file: a known fail or warn of a check (and optionally one subject). */
export interface BaselineEntry {
  check: string;
  subject?: string;
  reason: string;
}

/** How a run measured up to its baseline. */
export interface BaselineOutcome {
  path: string;
  /** Fail and warn results the baseline accepted. */
  expected: number;
  /** Entries that no longer fail or warn: each fails the run (baselines only shrink). */
  stale: Array<BaselineEntry & { why: string }>;
  /** Entries whose check this run did not exercise (not selected, skipped or not observed): neither confirmed nor stale. */
  unconfirmed: Array<BaselineEntry & { why: string }>;
}

/** Counts of these results (a baselined fail or warn as expected), with `stale` baseline entries. */
export function summarize(checks: CheckResult[], stale = 0): RunSummary {
  const s: RunSummary = { pass: 0, fail: 0, warn: 0, expected: 0, stale, skip: 0, notObserved: 0, total: 0 };
  for (const c of checks) {
    for (const r of c.results) {
      s.total++;
      if (r.verdict === 'not-observed') s.notObserved++;
      else if (r.expected && (r.verdict === 'fail' || r.verdict === 'warn')) s.expected++;
      else s[r.verdict]++;
    }
  }
  return s;
}

/** The counts of a whole run (every era of `--spec all`, and its baseline's stale entries): what every report prints. */
export function countRun(run: RunResult): RunSummary {
  return summarize(run.eras ? run.eras.flatMap((e) => e.checks) : run.checks, run.baseline?.stale.length ?? 0);
}

/** What a finished run says: passed, failed, an error (exit 2), or an incomplete merge (exit 2, never a pass). */
export type GateVerdict = 'passed' | 'failed' | 'error' | 'incomplete';

export function gateVerdict(run: RunResult): GateVerdict {
  if (run.aborted !== undefined || run.harnessErrors.length > 0) return 'error';
  if (run.incomplete !== undefined) return 'incomplete';
  const c = countRun(run);
  return c.fail > 0 || c.stale > 0 || (run.strict && c.warn > 0) ? 'failed' : 'passed';
}

/**
 * The exit code a finished result model stands for: 2 when the run could not
 * do its job (or a merge is incomplete), 1 when a check failed (or warned,
 * when strict) that no baseline accepted, or a baseline entry went stale;
 * else 0.
 */
export function exitCodeOf(run: RunResult): 0 | 1 | 2 {
  const v = gateVerdict(run);
  return v === 'passed' ? 0 : v === 'failed' ? 1 : 2;
}

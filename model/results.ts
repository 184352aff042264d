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

export interface RunSummary {
  pass: number;
  fail: number;
  warn: number;
  skip: number;
  notObserved: number;
  total: number;
}

/** Everything one run produced: what the renderers and the JSON report take. */
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
  /** Set when the run was judged against a baseline (`--baseline`). */
  baseline?: BaselineOutcome;
  exitCode: 0 | 1 | 2;
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

export function summarize(checks: CheckResult[]): RunSummary {
  const s: RunSummary = { pass: 0, fail: 0, warn: 0, skip: 0, notObserved: 0, total: 0 };
  for (const c of checks) {
    for (const r of c.results) {
      s.total++;
      if (r.verdict === 'not-observed') s.notObserved++;
      else s[r.verdict]++;
    }
  }
  return s;
}

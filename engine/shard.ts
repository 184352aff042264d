/**
 * Which checks a run runs, and putting sharded runs back together.
 *
 * Selection: `--check` globs pick checks (none: every check); a `!glob`
 * among them, `--skip` globs and the configuration's `checks.exclude` take
 * checks out, whatever the positive globs matched.
 *
 * Sharding (`--shard i/n`): the selected checks are dealt out in catalogue
 * order, the k-th to shard (k mod n) + 1, so every shard gets a fair share
 * and the same flags always give the same split. Observer checks judge what
 * the whole run saw rather than sending anything, so every shard runs them
 * on its own traffic, and `merge` combines their verdicts subject by subject
 * (a finding in any shard stands).
 */
import { createHash } from 'node:crypto';
import picomatch from 'picomatch';
import type { Check } from '../suites/check.js';
import { catalogue } from '../suites/index.js';
import {
  exitCodeOf,
  summarize,
  type CheckResult,
  type LeftOut,
  type LeftOutSource,
  type RunResult,
  type SubjectResult,
  type Verdict,
} from '../model/results.js';
import { mergeHeldBack } from './all-eras.js';

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
}

export interface Plan {
  /** `--check`: ids or globs; a leading `!` excludes. */
  include?: string[];
  /** `--skip` and `checks.exclude`: ids or globs left out. */
  exclude?: string[];
  shard?: Shard;
}

/** `2/4` → { index: 2, total: 4 }; throws with the rule on anything else. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const total = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(total) || total < 1 || index < 1 || index > total) {
    throw new Error(`--shard must look like i/n with 1 ≤ i ≤ n (e.g. 1/3), got ${JSON.stringify(text)}`);
  }
  return { index, total };
}

/** The checks a plan selects, in catalogue order. */
export function planChecks(plan: Plan, all: readonly Check[] = catalogue): Check[] {
  const positive = (plan.include ?? []).filter((p) => !p.startsWith('!'));
  const negative = [...(plan.include ?? []).filter((p) => p.startsWith('!')).map((p) => p.slice(1)), ...(plan.exclude ?? [])].filter(
    (p) => p !== '',
  );
  const included = positive.length ? picomatch(positive) : () => true;
  const excluded = negative.length ? picomatch(negative) : () => false;
  const selected = all.filter((c) => included(c.id) && !excluded(c.id));
  if (!plan.shard || plan.shard.total === 1) return selected;
  const { index, total } = plan.shard;
  let k = 0;
  return selected.filter((c) => c.observer || k++ % total === index - 1);
}

/**
 * The checks each negative pattern left out, by source: `--skip` first, then
 * the configuration's `checks.exclude`, then `--check '!glob'`. A check
 * matched by several patterns counts under the first; patterns that match
 * nothing are listed with no checks, so a typo shows.
 */
export function leftOutChecks(
  sources: { skip?: string[]; exclude?: string[]; include?: string[] },
  all: readonly Check[] = catalogue,
): LeftOut[] {
  const patterns: Array<[LeftOutSource, string]> = [
    ...(sources.skip ?? []).map((p): [LeftOutSource, string] => ['--skip', p]),
    ...(sources.exclude ?? []).map((p): [LeftOutSource, string] => ['checks.exclude', p]),
    ...(sources.include ?? []).filter((p) => p.startsWith('!')).map((p): [LeftOutSource, string] => ['--check', p]),
  ].filter(([, p]) => p !== '' && p !== '!');
  const taken = new Set<string>();
  return patterns.map(([source, pattern]) => {
    const match = picomatch(pattern.replace(/^!/, ''));
    const checks = all.filter((c) => !taken.has(c.id) && match(c.id)).map((c) => c.id);
    for (const id of checks) taken.add(id);
    return { source, pattern, checks };
  });
}

/** What a run records of its selection: the checks selected before sharding, counted and digested (the same flags give the same digest). */
export function selectionRecord(plan: Plan, all: readonly Check[] = catalogue): { checks: number; digest: string } {
  const ids = planChecks({ ...plan, shard: undefined }, all).map((c) => c.id);
  return { checks: ids.length, digest: `sha256:${createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 16)}` };
}

/** Words for an empty selection: which flags left nothing. */
export function describePlan(plan: Plan): string {
  const parts: string[] = [];
  if (plan.include?.length) parts.push(`--check ${plan.include.join(' ')}`);
  if (plan.exclude?.length) parts.push(`--skip / checks.exclude ${plan.exclude.join(' ')}`);
  if (plan.shard) parts.push(`--shard ${plan.shard.index}/${plan.shard.total}`);
  return parts.join(', ') || 'the catalogue';
}

const NOTHING_TESTED = 'nothing was tested';

/** How strongly a verdict speaks when shards disagree about one subject. */
const WEIGHT: Record<Verdict, number> = { fail: 4, warn: 3, pass: 2, 'not-observed': 1, skip: 0 };

function mergeSubjects(a: SubjectResult[], b: SubjectResult[]): SubjectResult[] {
  const out = a.map((r) => ({ ...r }));
  for (const r of b) {
    const i = out.findIndex((x) => x.subject === r.subject);
    if (i < 0) {
      out.push({ ...r });
      continue;
    }
    const x = out[i]!;
    if (WEIGHT[r.verdict] > WEIGHT[x.verdict]) out[i] = { ...r, findings: [...r.findings, ...(x.verdict === r.verdict ? x.findings : [])] };
    else if (WEIGHT[r.verdict] === WEIGHT[x.verdict] && (r.verdict === 'fail' || r.verdict === 'warn'))
      x.findings = [...x.findings, ...r.findings];
  }
  return out;
}

function mergeChecks(lists: CheckResult[][]): CheckResult[] {
  const byId = new Map<string, CheckResult>();
  for (const list of lists) {
    for (const c of list) {
      const seen = byId.get(c.id);
      byId.set(
        c.id,
        seen ? { ...seen, results: mergeSubjects(seen.results, c.results) } : { ...c, results: c.results.map((r) => ({ ...r })) },
      );
    }
  }
  // The engine's order: the catalogue's, observers last.
  const order = new Map(catalogue.map((c, i) => [c.id, i + (c.observer ? catalogue.length : 0)]));
  return [...byId.values()].sort((x, y) => (order.get(x.id) ?? Infinity) - (order.get(y.id) ?? Infinity));
}

export { exitCodeOf };

function mergeParts(parts: RunResult[]): RunResult {
  const first = parts[0]!;
  const checks = mergeChecks(parts.map((p) => p.checks));
  const started = Math.min(...parts.map((p) => Date.parse(p.startedAt)).filter(Number.isFinite));
  // A shard that happened to draw only checks that do not apply tested nothing; the merged run judges that afresh.
  const aborted = parts.filter((p) => p.aborted !== undefined && !p.aborted.startsWith(NOTHING_TESTED)).map((p) => p.aborted!);
  const revisions = [...new Set(parts.map((p) => p.revision))];
  const run: RunResult = {
    tool: first.tool,
    startedAt: Number.isFinite(started) ? new Date(started).toISOString() : first.startedAt,
    // Shards run side by side: the merged run took as long as the slowest.
    durationMs: Math.max(...parts.map((p) => p.durationMs)),
    target: first.target,
    revision: revisions.join(', '),
    ...(first.era ? { era: first.era } : {}),
    ...(parts.find((p) => p.server) ? { server: parts.find((p) => p.server)!.server } : {}),
    strict: parts.some((p) => p.strict),
    ...(first.seed !== undefined ? { seed: first.seed } : {}),
    ...(first.invocation ? { invocation: first.invocation } : {}),
    ...(first.catalogue ? { catalogue: first.catalogue } : {}),
    checks,
    summary: summarize(checks),
    stderr: parts
      .map((p) => p.stderr)
      .filter((s) => s !== '')
      .join('\n'),
    ...(aborted.length ? { aborted: [...new Set(aborted)].join('; ') } : {}),
    harnessErrors: parts.flatMap((p) => p.harnessErrors),
    ...(first.selection ? { selection: first.selection } : {}),
    ...(mergeHeldBack(parts) ? { heldBack: mergeHeldBack(parts)! } : {}),
    exitCode: 0,
  };
  const s = run.summary;
  if (!run.aborted && s.total > 0 && s.pass + s.fail + s.warn === 0)
    run.aborted = `${NOTHING_TESTED}: every check was skipped or not observed`;
  run.exitCode = exitCodeOf(run);
  return run;
}

/** A results file as `merge` read it. */
export interface ShardFile {
  file: string;
  run: RunResult;
}

/** What makes runs shards of one set: the same n, catalogue, target, revision, seed and suite version. */
const SET_FIELDS: Array<[string, (r: RunResult) => string]> = [
  ['shard count', (r) => String(r.shard?.total ?? 1)],
  ['selected catalogue', (r) => (r.catalogue ? `${r.catalogue.digest} (${r.catalogue.checks} checks)` : '(not recorded)')],
  ['target', (r) => `${r.target.transport} ${r.target.command ?? ''}${r.target.url ?? ''}`.trim()],
  ['revision', (r) => r.revision],
  ['seed', (r) => (r.seed === undefined ? '(none)' : String(r.seed))],
  ['suite version', (r) => `${r.tool.name} ${r.tool.version}`],
];

/**
 * What keeps these files from being every shard of one set, exactly once:
 * each line names the field that differs (and the files on each side), a
 * shard given twice, or a shard that is missing. Empty: a complete set.
 */
export function shardSetProblems(files: ShardFile[]): string[] {
  const problems: string[] = [];
  const first = files[0];
  if (!first) return ['no results file given'];
  for (const f of files)
    if (!f.run.catalogue) problems.push(`${f.file} records no catalogue digest (written by an older mcp-conformance?)`);
  for (const [field, value] of SET_FIELDS) {
    const groups = new Map<string, string[]>();
    for (const f of files) groups.set(value(f.run), [...(groups.get(value(f.run)) ?? []), f.file]);
    if (groups.size > 1)
      problems.push(
        `the files are not one set of shards: their ${field} differs: ${[...groups].map(([v, fs]) => `${v} in ${fs.join(', ')}`).join('; ')}`,
      );
  }
  if (problems.length) return problems;
  const total = first.run.shard?.total ?? 1;
  const seen = new Map<number, string[]>();
  for (const f of files) {
    const i = f.run.shard?.index ?? 1;
    seen.set(i, [...(seen.get(i) ?? []), f.file]);
  }
  for (const [i, fs] of [...seen].sort((a, b) => a[0] - b[0]))
    if (fs.length > 1) problems.push(`shard ${i}/${total} is given more than once: ${fs.join(', ')}`);
  const missing = Array.from({ length: total }, (_, k) => k + 1).filter((i) => !seen.has(i));
  if (missing.length)
    problems.push(
      `shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${total}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing`,
    );
  return problems;
}

/**
 * One result standing for the shards' results (each a JSON report's model).
 * Baseline marks are dropped: apply the baseline to the merged result.
 */
export function mergeRuns(runs: RunResult[]): RunResult {
  if (runs.length === 0) throw new Error('merge needs at least one results file');
  const clean = runs.map(stripBaseline);
  if (!clean.some((r) => r.eras)) return mergeParts(clean);
  // --spec all: merge era by era (by revision), then sum the eras as the engine does.
  const byRevision = new Map<string, RunResult[]>();
  for (const r of clean) for (const e of r.eras ?? [r]) byRevision.set(e.revision, [...(byRevision.get(e.revision) ?? []), e]);
  const eras = [...byRevision.values()].map(mergeParts);
  const top = mergeParts(clean.map((r) => ({ ...r, eras: undefined, checks: [] })));
  const summary = summarize(eras.flatMap((e) => e.checks));
  const run: RunResult = {
    ...top,
    revision: 'all',
    summary,
    eras,
    harnessErrors: eras.flatMap((e) => e.harnessErrors.map((h) => `${e.revision}: ${h}`)),
  };
  const aborted = eras.filter((e) => e.aborted !== undefined).map((e) => `${e.revision}: ${e.aborted}`);
  if (aborted.length) run.aborted = aborted.join('; ');
  else delete run.aborted;
  run.exitCode = exitCodeOf(run);
  return run;
}

function stripBaseline(run: RunResult): RunResult {
  const { baseline: _drop, ...rest } = run;
  const strip = (checks: CheckResult[]) => checks.map((c) => ({ ...c, results: c.results.map(({ expected: _e, ...r }) => r) }));
  return { ...rest, checks: strip(rest.checks), ...(rest.eras ? { eras: rest.eras.map(stripBaseline) } : {}) };
}

/**
 * What changed between two runs: every subject whose verdict differs between
 * two JSON result files (render/json.ts writes them), worst first.
 *
 * Verdicts are ordered best to worst: pass > skip > not-observed > warn >
 * fail. A change is worse when the later verdict is lower in that order, when
 * a subject judged before is gone (what was judged is no longer judged), or
 * when a new subject is judged warn or fail. Subjects are matched by era (for
 * `--spec all` runs and runs that settled an era), check id and subject.
 */
import type { CheckResult, RunResult, SubjectResult, Verdict } from '../model/results.js';

/** Best first. */
export const VERDICT_ORDER: readonly Verdict[] = ['pass', 'skip', 'not-observed', 'warn', 'fail'];

/**
 * The one rule of what moved for the worse, and of worst-first order, for
 * `diff` and `matrix --compare`, over a best-first verdict order: a verdict
 * lower in the order is worse; a subject gone is worse; a new one is worse
 * when it warns or fails. Sorted worse first, then by the worst later verdict
 * (gone counts as worst but fail), then by the biggest drop (or gain).
 */
export function verdictMoves<V extends string>(order: readonly V[]) {
  const rank = (v: V | undefined) => (v === undefined ? -1 : order.indexOf(v));
  const severity = (v: V | undefined) => (v === undefined ? order.length - 1.5 : rank(v));
  return {
    isWorse(before: V | undefined, after: V | undefined): boolean {
      if (before === undefined) return after === 'warn' || after === 'fail';
      if (after === undefined) return true;
      return rank(after) > rank(before);
    },
    byWorst(p: { worse: boolean; before?: V; after?: V }, q: { worse: boolean; before?: V; after?: V }): number {
      return (
        Number(q.worse) - Number(p.worse) ||
        severity(q.after) - severity(p.after) ||
        (p.worse ? severity(p.before) - severity(q.before) : severity(q.before) - severity(p.before))
      );
    },
  };
}

const { isWorse, byWorst } = verdictMoves(VERDICT_ORDER);

export interface VerdictChange {
  /** For results holding more than one era (`--spec all`): which. */
  era?: string;
  check: string;
  subject: string;
  /** Absent: the subject was not judged in that run. */
  before?: Verdict;
  after?: Verdict;
  worse: boolean;
  /** The later run's reason or first finding, in one line. */
  detail?: string;
}

interface Entry {
  era?: string;
  check: CheckResult;
  result: SubjectResult;
}

function entries(run: RunResult): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const runs = run.eras?.length ? run.eras : [run];
  for (const r of runs) {
    const era = r.era?.era;
    for (const check of r.checks ?? []) {
      for (const result of check.results ?? []) out.set(`${era ?? ''}\u0000${check.id}\u0000${result.subject}`, { era, check, result });
    }
  }
  return out;
}

function detailOf(r: SubjectResult): string | undefined {
  const f = r.findings?.[0];
  const text = f ? `expected ${f.expected}; seen ${f.actual}` : r.reason;
  return text ? text.replace(/\s+/g, ' ').slice(0, 200) : undefined;
}

/** Every verdict that changed, worse ones first, each group from the worst later verdict down. */
export function diffRuns(before: RunResult, after: RunResult): VerdictChange[] {
  const a = entries(before);
  const b = entries(after);
  const changes: VerdictChange[] = [];
  // Name the era only where a run holds more than one (`--spec all`).
  const multiEra = !!(before.eras?.length || after.eras?.length);
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    const was = x?.result.verdict;
    const now = y?.result.verdict;
    if (was === now) continue;
    const any = (y ?? x)!;
    changes.push({
      ...(any.era && multiEra ? { era: any.era } : {}),
      check: any.check.id,
      subject: any.result.subject,
      ...(was ? { before: was } : {}),
      ...(now ? { after: now } : {}),
      worse: isWorse(was, now),
      ...(y && detailOf(y.result) ? { detail: detailOf(y.result) } : {}),
    });
  }
  return changes.sort((p, q) => byWorst(p, q) || p.check.localeCompare(q.check) || p.subject.localeCompare(q.subject));
}

/** Reads a result file's parsed JSON as a run, or says why it is not one. */
export function asRun(value: unknown, name: string): RunResult {
  const run = value as RunResult;
  if (!run || typeof run !== 'object' || !Array.isArray(run.checks))
    throw new Error(`${name} is not a mcp-conformance JSON result file (no "checks" list)`);
  return run;
}

/**
 * How deep a run went: "judged N of M applicable checks". A check applies
 * when any of its results is other than skip, and is judged when any is pass,
 * fail or warn. The applicable checks that were only not observed are grouped
 * by what would let them run: the configuration key or flag their reason
 * names (the first that matches, most specific first), else "the server never
 * did it" (an event the server may or may not produce never happened).
 */
import type { CheckResult, RunDepth } from '../model/results.js';

/** What unlocks a not-observed check, by what its reason names (most specific first). */
const UNLOCKS: ReadonlyArray<[RegExp, string]> = [
  [/\btaskTool\b/, 'taskTool'],
  [/listChanged\.prompts\.trigger/, 'listChanged.prompts.trigger'],
  [/listChanged\.resources\.trigger/, 'listChanged.resources.trigger'],
  [/listChanged\.trigger/, 'listChanged.trigger'],
  [/\bsubscriptionEnd\b/, 'subscriptionEnd'],
  [/\bcapabilityTool\b/, 'capabilityTool'],
  [/\bslowTool\b/, 'slowTool'],
  [/resources\.fileRoot|\bcanary\b/, 'resources.fileRoot and canary'],
  [/\bfixtures?\b/, 'fixtures'],
  [/--allow-side-effects|tools\.include|--tools\b/, '--allow-side-effects (or --tools / tools.include)'],
  [/select (them|the [^ ]+ checks?) too/, 'selecting the checks it builds on'],
];

/** The group of a not-observed check with this reason. */
export function unlockOf(reason: string | undefined): string {
  const text = reason ?? '';
  return UNLOCKS.find(([re]) => re.test(text))?.[1] ?? 'nothing to set: the event never happened in the run';
}

export function depthOf(checks: readonly CheckResult[]): RunDepth {
  let applicable = 0;
  let judged = 0;
  const groups = new Map<string, string[]>();
  for (const c of checks) {
    const verdicts = c.results.map((r) => r.verdict);
    if (!verdicts.some((v) => v !== 'skip')) continue;
    applicable++;
    if (verdicts.some((v) => v === 'pass' || v === 'fail' || v === 'warn')) {
      judged++;
      continue;
    }
    const unlock = unlockOf(c.results.find((r) => r.verdict === 'not-observed')?.reason);
    groups.set(unlock, [...(groups.get(unlock) ?? []), c.id]);
  }
  const notObserved = [...groups].map(([unlock, ids]) => ({ unlock, checks: ids })).sort((a, b) => b.checks.length - a.checks.length);
  return { applicable, judged, notObserved };
}

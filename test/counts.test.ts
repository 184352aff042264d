/**
 * One count everywhere: the console, the JSON `summary`, the JUnit file, the
 * HTML page and the step summary print the same pass, fail, warn, expected,
 * stale, skip and not-observed counts (countRun) for one run, a baselined
 * result counts as expected, the verdict line names its cause (stale
 * included), and --strict with warnings never says PASSED.
 */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { COUNT_LABELS, countRun, exitCodeOf, type RunResult, type RunSummary, type SubjectResult } from '../model/results.js';
import { renderConsole, renderHtml, renderJson, renderJUnit, renderStepSummary } from '../render/index.js';
import { everyVerdict, junitErrors } from './gate-helpers.js';

type Counts = Omit<RunSummary, 'total'>;

/** every verdict, each in a different number (so no two counts can be mistaken for each other). */
function mixedRun(over: Partial<RunResult> = {}): RunResult {
  const run = everyVerdict(over);
  const add = (id: string, n: number, r: Partial<SubjectResult>) => {
    const c = run.checks.find((x) => x.id === id)!;
    for (let i = 0; i < n; i++) c.results.push({ subject: `tool:x${i}`, verdict: 'pass', findings: [], durationMs: 1, ...r });
  };
  const finding = { requirement: 'r', expected: 'e', actual: 'a', wire: [] };
  add('tools-list/a-pass', 6, {});
  add('tools-list/b-fail', 1, { verdict: 'fail', findings: [finding] });
  add('tools-list/c-warn', 2, { verdict: 'warn', findings: [finding] });
  add('tools-call/f-expected', 3, { verdict: 'warn', findings: [finding], expected: { reason: 'known' } });
  add('tools-call/d-skip', 4, { verdict: 'skip', reason: 'n/a' });
  add('tools-call/e-not-observed', 5, { verdict: 'not-observed', reason: 'not called' });
  if (run.baseline) run.baseline.expected = 4;
  return run;
}

const WANT: Counts = { pass: 7, fail: 2, warn: 3, expected: 4, stale: 1, skip: 5, notObserved: 6 };
const LABEL = Object.fromEntries(COUNT_LABELS) as Record<keyof Counts, string>;

function fromConsole(text: string): Counts {
  const line = text.split('\n').find((l) => l.startsWith('Summary:'))!;
  return Object.fromEntries(COUNT_LABELS.map(([k, label]) => [k, Number(new RegExp(`(\\d+) ${label}\\b`).exec(line)![1])])) as Counts;
}

function fromJUnit(xml: string): Counts {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => ['testsuite', 'property'].includes(n) }).parse(xml);
  const suite = (doc.testsuites.testsuite as Array<Record<string, any>>).find((s) => s['@_name'] === 'summary')!;
  const props = Object.fromEntries((suite.properties.property as Array<Record<string, string>>).map((p) => [p['@_name'], p['@_value']]));
  return Object.fromEntries(COUNT_LABELS.map(([k, label]) => [k, Number(props[label])])) as Counts;
}

function fromHtml(html: string): Counts {
  const key = (k: string) => (k === 'notObserved' ? 'not-observed' : k);
  return Object.fromEntries(
    COUNT_LABELS.map(([k, label]) => {
      const m = new RegExp(`<span data-count="${key(k)}">(?:<span[^>]*>[^<]*</span>)?(\\d+) ${label}</span>`).exec(html);
      return [k, Number(m![1])];
    }),
  ) as Counts;
}

function fromStepSummary(md: string): Counts {
  const lines = md.split('\n');
  const head = lines.findIndex((l) => l.startsWith('| pass |'));
  const names = lines[head]!.split('|')
    .map((s) => s.trim())
    .filter(Boolean);
  const values = lines[head + 2]!.split('|')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return Object.fromEntries(COUNT_LABELS.map(([k, label]) => [k, values[names.indexOf(label)]])) as Counts;
}

function allFive(run: RunResult) {
  const { total: _t, ...json } = (JSON.parse(renderJson(run)) as RunResult).summary;
  return {
    console: fromConsole(renderConsole(run, { color: false })),
    json,
    junit: fromJUnit(renderJUnit(run)),
    html: fromHtml(renderHtml(run)),
    stepSummary: fromStepSummary(renderStepSummary(run)),
  };
}

describe('one count everywhere', () => {
  it('the five renderers give the same counts on a run with fail, warn, expected, stale, skip and not-observed', async () => {
    const run = mixedRun();
    const { total: _t, ...counted } = countRun(run);
    expect(counted).toEqual(WANT);
    const five = allFive(run);
    for (const [renderer, counts] of Object.entries(five)) expect(counts, renderer).toEqual(WANT);
    expect(Object.keys(LABEL)).toHaveLength(7);
    expect(await junitErrors(renderJUnit(run))).toEqual([]);
  });

  it('a baselined failure counts as expected, not as fail, and the run passes', () => {
    const run = mixedRun({ baseline: { path: 'b.yaml', expected: 1, stale: [], unconfirmed: [] } });
    run.checks = run.checks.filter((c) => c.id === 'tools-call/f-expected' || c.id === 'tools-list/a-pass');
    expect(countRun(run)).toMatchObject({ fail: 0, warn: 0, expected: 4 });
    expect(exitCodeOf(run)).toBe(0);
    run.exitCode = exitCodeOf(run);
    const five = allFive(run);
    for (const [renderer, counts] of Object.entries(five)) expect([counts.fail, counts.expected], renderer).toEqual([0, 4]);
    expect(renderConsole(run, { color: false })).toMatch(/Result: PASSED\n$/);
  });

  it('a stale entry alone: the verdict line names it, in every report', () => {
    const run = mixedRun();
    run.checks = run.checks.filter((c) => c.id === 'tools-list/a-pass');
    run.exitCode = exitCodeOf(run);
    expect(run.exitCode).toBe(1);
    const text = renderConsole(run, { color: false });
    expect(text).toMatch(/Result: FAILED \(1 stale baseline entry\)\n$/);
    expect(text).not.toMatch(/FAILED[^\n]*0 fail/);
    expect(renderStepSummary(run)).toContain('## mcp-conformance: ❌ FAILED \\(1 stale baseline entry\\)');
    expect(renderHtml(run)).toContain('Result: FAILED (1 stale baseline entry)');
    expect(renderJUnit(run)).toContain('<property name="result" value="FAILED (1 stale baseline entry)"/>');
  });

  it('--strict with warnings never says PASSED', () => {
    const run = mixedRun({ strict: true, baseline: undefined });
    run.checks = run.checks.filter((c) => c.id === 'tools-list/c-warn' || c.id === 'tools-list/a-pass');
    run.exitCode = exitCodeOf(run);
    expect(run.exitCode).toBe(1);
    const reports = [renderConsole(run, { color: false }), renderJson(run), renderJUnit(run), renderHtml(run), renderStepSummary(run)];
    for (const text of reports) expect(text).not.toContain('PASSED');
    expect(reports[0]).toContain('--strict: 3 warnings counted as failures.');
    expect(reports[0]).toMatch(/Result: FAILED \(3 warnings counted as failures \(--strict\)\)\n$/);
  });

  it('a warning the baseline accepts is not counted as a failure under --strict', () => {
    const run = mixedRun({ strict: true, baseline: { path: 'b.yaml', expected: 4, stale: [], unconfirmed: [] } });
    run.checks = run.checks.filter((c) => c.id === 'tools-call/f-expected');
    run.checks[0]!.results = run.checks[0]!.results.filter((r) => r.verdict === 'warn');
    run.exitCode = exitCodeOf(run);
    const text = renderConsole(run, { color: false });
    expect(text).not.toContain('counted as failure');
    expect(text).toMatch(/Result: PASSED\n$/);
  });
});

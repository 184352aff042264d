/**
 * JUnit XML report, for CI test viewers (GitLab, Jenkins, GitHub test
 * reporters). Valid against the Jenkins xunit plugin's permissive
 * `junit-10.xsd`, the de-facto schema those viewers accept.
 *
 * Layout: one <testsuite> per area (with the run's revision, seed and tool as
 * suite properties: the schema allows no properties on a testcase); one
 * <testcase> per check × subject, named `<check id> [<subject>]` with the
 * area as classname. Every testcase's system-out starts with its verdict,
 * spec reference (and link on the spec site), level and requirement.
 *
 * Verdicts:
 *  - pass          → a passing testcase;
 *  - fail          → <failure> (message: Requirement / Expected / Actual);
 *  - warn          → <failure> only when the run is strict. Otherwise the
 *                    testcase passes, its name ends in `[warn]` so every
 *                    viewer's list shows it, and its system-out starts with
 *                    WARNING: JUnit has no "passed with warning" state;
 *  - skip          → <skipped/>, system-out `SKIPPED: reason`;
 *  - not-observed  → <skipped/>, named `… [not observed]`, system-out
 *                    `NOT OBSERVED: reason` (it applies but could not be
 *                    exercised: never a pass, and not a skip either);
 *  - a fail or warn the baseline lists → passes, named `… [expected fail]`
 *                    or `… [expected warn]`, with the baseline's reason.
 * Fail and warn testcases get the wire excerpt of their findings in
 * system-out. An aborted run adds a `run/aborted` testcase with an <error>;
 * harness errors add `run/harness-errors`; stale baseline entries add
 * `baseline/stale` failures; the server's stderr goes into the system-err of
 * a `run/server-stderr` testcase.
 *
 * junit-report-builder is used through its public API only. It writes a
 * `skipped` count on the root <testsuites>, which the schema does not allow:
 * that one attribute is taken out of the built text.
 *
 * All text is made terminal-safe and XML-1.0-valid before it reaches the
 * builder (see escape.ts), and `]]>` is broken up in CDATA content (the
 * builder only splits the first occurrence).
 */
import { createRequire } from 'node:module';
import type { Builder, TestCase, TestSuite } from 'junit-report-builder';
import type { CheckResult, Finding, RunResult, SubjectResult } from '../model/results.js';
import { COUNT_LABELS, countRun } from '../model/results.js';
import { safeClip, safeText, xmlSafe } from './escape.js';
import {
  configFileText,
  frameText,
  groupByArea,
  lastFrames,
  leftOutLines,
  replayCommand,
  resultText,
  runCountsText,
  specText,
  specUrl,
} from './text.js';

/** Wire frames per finding in system-out. */
const WIRE_FRAMES = 20;
const WIRE_CHARS = 2000;
const FIELD_CHARS = 8000;
const MESSAGE_FIELD_CHARS = 500;
const STDERR_LINES = 50;

/**
 * The package ships CommonJS whose `module.exports` is the builder, while its
 * typings describe an ES default export; accept either shape at runtime.
 */
function rootBuilder(mod: unknown): Builder {
  const m = mod as { newBuilder?: unknown; default?: { newBuilder?: unknown } } | undefined;
  if (m && typeof m.newBuilder === 'function') return m as unknown as Builder;
  if (m?.default && typeof m.default.newBuilder === 'function') return m.default as unknown as Builder;
  throw new Error('junit-report-builder: unexpected module shape');
}

/** The builder package, loaded on first use: a run that writes no JUnit report never loads it. */
let jrbModule: unknown;
const loadBuilder = (): unknown => (jrbModule ??= createRequire(import.meta.url)('junit-report-builder'));

/** Load the builder now (the CLI does once a run is under way, so writing the reports never waits for it). */
export function preloadJUnit(): void {
  loadBuilder();
}

/** Safe text for an attribute or element: terminal-safe, XML-valid, newlines kept. */
function t(value: unknown): string {
  return xmlSafe(safeText(value, { multiline: true }));
}

/** Safe text for CDATA content. */
function cdata(value: string): string {
  return t(value).replace(/]]>/g, ']]\\x3e');
}

function findingText(f: Finding, max: number, run: RunResult): string {
  return [
    `Requirement: ${safeClip(f.requirement, max, { multiline: true })}`,
    `Expected: ${safeClip(f.expected, max, { multiline: true })}`,
    `Actual: ${safeClip(f.actual, max, { multiline: true })}`,
    ...(f.replay ? [`Replay: ${safeClip(replayCommand(run, f.replay), max)}`] : []),
  ].join('\n');
}

/** Short text for the failure's `message` attribute: the first finding. */
function failureMessage(r: SubjectResult, check: CheckResult, run: RunResult): string {
  const first = r.findings[0];
  if (!first) {
    const why = r.reason ? `: ${safeClip(r.reason, MESSAGE_FIELD_CHARS)}` : '';
    return `Requirement: ${safeClip(check.requirement, MESSAGE_FIELD_CHARS)}\nExpected: requirement met\nActual: ${r.verdict}${why}`;
  }
  const more = r.findings.length > 1 ? `\n(+${r.findings.length - 1} more finding${r.findings.length > 2 ? 's' : ''})` : '';
  return findingText(first, MESSAGE_FIELD_CHARS, run) + more;
}

/** Full text of every finding, for the failure body or the warning note. */
function findingsBody(r: SubjectResult, check: CheckResult, run: RunResult): string {
  const parts: string[] = [`Spec: ${specText(check)}`];
  if (r.reason) parts.push(`Note: ${safeClip(r.reason, FIELD_CHARS, { multiline: true })}`);
  r.findings.forEach((f, i) => {
    if (r.findings.length > 1) parts.push(`Finding ${i + 1} of ${r.findings.length}:`);
    parts.push(findingText(f, FIELD_CHARS, run));
  });
  if (r.findings.length === 0) parts.push('(no finding recorded)');
  return parts.join('\n');
}

function wireExcerpt(r: SubjectResult): string {
  const parts: string[] = [];
  r.findings.forEach((f, i) => {
    if (f.wire.length === 0) return;
    const { shown, omitted } = lastFrames(f.wire, WIRE_FRAMES);
    const which = r.findings.length > 1 ? ` (finding ${i + 1})` : '';
    const count = omitted > 0 ? `, last ${shown.length} of ${f.wire.length} frames` : '';
    parts.push(`Wire${which}${count}:`);
    for (const frame of shown) parts.push('  ' + frameText(frame, WIRE_CHARS));
  });
  return parts.join('\n');
}

/** Seconds with at most three decimals: the schema's time pattern allows no more. */
function seconds(ms: number): number {
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms) / 1000 : 0;
}

function caseName(check: CheckResult, r: SubjectResult, strict: boolean): string {
  const base = `${check.id} [${safeClip(r.subject, 500)}]`;
  if (r.expected && (r.verdict === 'fail' || r.verdict === 'warn')) return `${base} [expected ${r.verdict}]`;
  if (r.verdict === 'warn' && !strict) return `${base} [warn]`;
  if (r.verdict === 'not-observed') return `${base} [not observed]`;
  return base;
}

function addSubjectCase(tc: TestCase, run: RunResult, check: CheckResult, r: SubjectResult, prefix = ''): void {
  tc.className(t(`${prefix}${check.area}`))
    .name(t(caseName(check, r, run.strict)))
    .time(seconds(r.durationMs));

  const out: string[] = [
    `Verdict: ${r.verdict}${r.expected ? ' (expected: in the baseline)' : ''}`,
    `Spec: ${specText(check)} ${specUrl(check.spec)}`,
    `Requirement: ${safeClip(check.requirement, FIELD_CHARS, { multiline: true })}`,
  ];
  const reason = safeClip(r.reason ?? '(no reason given)', FIELD_CHARS, { multiline: true });
  switch (r.verdict) {
    case 'pass':
      if (r.reason) out.push(`Note: ${reason}`);
      break;
    case 'fail':
    case 'warn':
      if (r.expected) {
        out.unshift(
          `EXPECTED ${r.verdict === 'fail' ? 'FAILURE' : 'WARNING'} (baseline: ${safeClip(r.expected.reason, FIELD_CHARS)}): reported, not counted against the run.`,
        );
        out.push(findingsBody(r, check, run));
      } else if (r.verdict === 'fail' || run.strict) {
        tc.failure(t(failureMessage(r, check, run)), r.verdict).stacktrace(cdata(findingsBody(r, check, run)));
      } else {
        out.unshift('WARNING: requirement not fully met (a warning; counted as a failure only with --strict).');
        out.push(findingsBody(r, check, run));
      }
      break;
    case 'skip':
      tc.skipped();
      out.unshift(`SKIPPED: ${reason}`);
      break;
    case 'not-observed':
      tc.skipped();
      out.unshift(`NOT OBSERVED (the check applies but could not be exercised; not a pass): ${reason}`);
      break;
  }
  const wire = wireExcerpt(r);
  if (wire) out.push(wire);
  tc.standardOutput(cdata(out.join('\n')));
}

function stderrTail(stderr: string): string {
  const lines = stderr.replace(/\s+$/, '').split(/\r?\n/);
  const tail = lines.slice(-STDERR_LINES);
  return tail.join('\n');
}

export function renderJUnit(run: RunResult): string {
  const builder = rootBuilder(loadBuilder()).newBuilder();
  builder.name(t(`${run.tool.name} ${run.tool.version} (${run.revision})`));
  // --spec all: each era's suites, named `<revision> <area>` (classname `<revision>.<area>`).
  // Every era's suites carry the run's selection (what was left out, the config file).
  for (const era of run.eras ?? [run]) addRun(builder, { ...era, ...selectionOf(run) }, run.eras ? era.revision : '');
  if (run.baseline && run.baseline.stale.length > 0) {
    const suite = builder.testSuite().name('baseline').timestamp(t(run.startedAt)).property('baseline', t(run.baseline.path));
    for (const e of run.baseline.stale) {
      suite
        .testCase()
        .className('baseline')
        .name(t(`baseline/stale ${safeClip(e.check, 300)}${e.subject ? ` [${safeClip(e.subject, 300)}]` : ''}`))
        .failure(t(`stale baseline entry: ${safeClip(e.why, 1000)}`), 'stale')
        .stacktrace(cdata(`Baseline: ${run.baseline.path}\nEntry reason: ${e.reason}\n${e.why}`));
    }
  }
  addSummary(builder, run);
  // The schema allows no `skipped` on the root element; the builder always writes one.
  return builder.build().replace(/(<testsuites\b[^>]*?)\s+skipped="\d+"/, '$1') + '\n';
}

/**
 * The `summary` suite, last: the run's counts (the ones every report
 * prints) as properties and in a `run/summary` testcase's system-out, and an
 * incomplete merge as a `run/incomplete` error, so no viewer shows it green.
 */
function addSummary(builder: Builder, run: RunResult): void {
  const c = countRun(run);
  const suite = builder.testSuite().name('summary').timestamp(t(run.startedAt));
  for (const [k, label] of COUNT_LABELS) suite.property(label, String(c[k]));
  suite.property('result', t(resultText(run)));
  suite
    .testCase()
    .className('run')
    .name('run/summary')
    .standardOutput(cdata(`Result: ${resultText(run)}\nCounts: ${runCountsText(c)} (${c.total} results)`));
  if (run.incomplete !== undefined) {
    suite
      .testCase()
      .className('run')
      .name('run/incomplete')
      .error(t(`INCOMPLETE: ${safeClip(run.incomplete, 2000)}`), 'incomplete', cdata(`INCOMPLETE (not a pass): ${run.incomplete}`));
  }
}

function addRun(builder: Builder, run: RunResult, revision: string): void {
  const prefix = revision ? `${revision} ` : '';

  // Run-level problems first, so a CI viewer shows them at the top.
  if (run.aborted !== undefined || run.harnessErrors.length > 0 || run.stderr.trim() !== '') {
    const suite = suiteWithProperties(builder, run, `${prefix}run`);
    if (run.aborted !== undefined) {
      const content: string[] = [`ABORTED: ${run.aborted}`];
      if (run.stderr.trim() !== '') content.push('', 'Server stderr (tail):', stderrTail(run.stderr));
      suite
        .testCase()
        .className('run')
        .name('run/aborted')
        .error(t(`ABORTED: ${safeClip(run.aborted, 2000, { multiline: true })}`), 'aborted', cdata(content.join('\n')));
    }
    if (run.harnessErrors.length > 0) {
      suite
        .testCase()
        .className('run')
        .name('run/harness-errors')
        .error(
          t(`${run.harnessErrors.length} internal error(s) in the test suite`),
          'harness',
          cdata(run.harnessErrors.map((e) => `- ${e}`).join('\n')),
        );
    }
    if (run.stderr.trim() !== '') {
      suite
        .testCase()
        .className('run')
        .name('run/server-stderr')
        .standardOutput(cdata(`The server's stderr (last ${STDERR_LINES} lines), attached and never judged.`))
        .standardError(cdata(stderrTail(run.stderr)));
    }
  }

  for (const [area, checks] of groupByArea(run.checks)) {
    const suite = suiteWithProperties(builder, run, `${prefix}${area}`);
    const ms = checks.reduce((sum, c) => sum + c.results.reduce((a, r) => a + (Number.isFinite(r.durationMs) ? r.durationMs : 0), 0), 0);
    suite.time(seconds(ms));
    for (const check of checks) {
      for (const r of check.results) addSubjectCase(suite.testCase(), run, check, r, revision ? `${revision}.` : '');
    }
  }
}

function suiteWithProperties(builder: Builder, run: RunResult, name: string): TestSuite {
  const suite = builder.testSuite().name(t(name)).timestamp(t(run.startedAt));
  suite.property('tool', t(`${run.tool.name} ${run.tool.version}`)).property('revision', t(run.revision));
  if (run.seed !== undefined) suite.property('seed', String(run.seed));
  if (run.strict) suite.property('strict', 'true');
  const config = configFileText(run);
  if (config !== undefined) suite.property('config-file', t(config));
  for (const line of leftOutLines(run)) suite.property('left-out', t(line));
  return suite;
}

function selectionOf(run: RunResult): Pick<RunResult, 'selection'> {
  return run.selection ? { selection: run.selection } : {};
}

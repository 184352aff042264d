/**
 * JUnit XML report, for CI test viewers.
 *
 * Layout: one <testsuite> per area; one <testcase> per check × subject, named
 * `<check id> [<subject>]` with the area as classname. Properties carry the
 * spec reference, level, requirement and seed.
 *
 * Verdicts:
 *  - pass          → a passing testcase;
 *  - fail          → <failure> (message: Requirement / Expected / Actual);
 *  - warn          → <failure> only when the run is strict. Otherwise the
 *                    testcase passes and its system-out starts with a WARNING
 *                    note: JUnit has no "passed with warning" state, and
 *                    failing CI on SHOULD-level findings is exactly what
 *                    --strict asks for, so without it the build stays green
 *                    while the report still shows the warning;
 *  - skip          → <skipped message="reason">;
 *  - not-observed  → <skipped message="not-observed: reason">.
 * Fail and warn testcases get the wire excerpt of their findings in
 * system-out. An aborted run adds a `run/aborted` testcase with an <error>;
 * harness errors add a `run/harness-errors` testcase with an <error>.
 *
 * All text is made terminal-safe and XML-1.0-valid before it reaches the
 * builder (see escape.ts), and `]]>` is broken up in CDATA content (the
 * builder only splits the first occurrence).
 */
import jrbModule from 'junit-report-builder';
import type { Builder, TestCase } from 'junit-report-builder';
import type { CheckResult, Finding, RunResult, SubjectResult } from '../model/results.js';
import { safeClip, safeText, xmlSafe } from './escape.js';
import { frameText, groupByArea, lastFrames, replayCommand, specText } from './text.js';

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

/** Safe text for an attribute or element: terminal-safe, XML-valid, newlines kept. */
function t(value: unknown): string {
  return xmlSafe(safeText(value, { multiline: true }));
}

/** Safe text for CDATA content. */
function cdata(value: string): string {
  return t(value).replace(/]]>/g, ']]\\x3e');
}

/**
 * The builder's `skipped()` takes no message; add the attribute to the
 * <skipped> element once the testcase has been built.
 */
function skippedWithMessage(tc: TestCase, message: string): void {
  tc.skipped();
  const build = tc.build.bind(tc);
  tc.build = (parent) => {
    const el = build(parent);
    const children = (el as unknown as { children?: unknown }).children;
    if (Array.isArray(children)) {
      for (const child of children) {
        const node = child as { name?: unknown; att?: unknown };
        if (node.name === 'skipped' && typeof node.att === 'function') {
          (node.att as (name: string, value: string) => unknown).call(node, 'message', message);
        }
      }
    }
    return el;
  };
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

function addSubjectCase(tc: TestCase, run: RunResult, check: CheckResult, r: SubjectResult, prefix = ''): void {
  tc.className(t(`${prefix}${check.area}`))
    .name(t(`${check.id} [${safeClip(r.subject, 500)}]`))
    .time(Number.isFinite(r.durationMs) && r.durationMs >= 0 ? r.durationMs / 1000 : 0)
    .property('spec', t(`${check.spec.page}#${check.spec.section}`))
    .property('level', t(check.level))
    .property('requirement', t(check.requirement))
    .property('verdict', r.verdict);
  if (run.seed !== undefined) tc.property('seed', String(run.seed));

  const out: string[] = [];
  switch (r.verdict) {
    case 'pass':
      if (r.reason) out.push(`Note: ${safeClip(r.reason, FIELD_CHARS, { multiline: true })}`);
      break;
    case 'fail':
      tc.failure(t(failureMessage(r, check, run)), 'fail').stacktrace(cdata(findingsBody(r, check, run)));
      break;
    case 'warn':
      if (run.strict) {
        tc.failure(t(failureMessage(r, check, run)), 'warn').stacktrace(cdata(findingsBody(r, check, run)));
      } else {
        out.push('WARNING: requirement not fully met (a warning; counted as a failure only with --strict).');
        out.push(findingsBody(r, check, run));
      }
      break;
    case 'skip':
      skippedWithMessage(tc, t(r.reason ? r.reason : 'skipped'));
      out.push(`skip: ${safeClip(r.reason ?? '(no reason given)', FIELD_CHARS, { multiline: true })}`);
      break;
    case 'not-observed':
      skippedWithMessage(tc, t(`not-observed: ${r.reason ?? '(no reason given)'}`));
      out.push(`not-observed: ${safeClip(r.reason ?? '(no reason given)', FIELD_CHARS, { multiline: true })}`);
      break;
  }
  const wire = wireExcerpt(r);
  if (wire) out.push(wire);
  if (out.length > 0) tc.standardOutput(cdata(out.join('\n')));
}

function stderrTail(stderr: string): string {
  const lines = stderr.replace(/\s+$/, '').split(/\r?\n/);
  const tail = lines.slice(-STDERR_LINES);
  return tail.join('\n');
}

export function renderJUnit(run: RunResult): string {
  const builder = rootBuilder(jrbModule).newBuilder();
  builder.name(t(`${run.tool.name} ${run.tool.version} (${run.revision})`));
  // --spec all: each era's suites, named `<revision> <area>` (classname `<revision>.<area>`).
  for (const era of run.eras ?? [run]) addRun(builder, era, run.eras ? era.revision : '');
  return builder.build() + '\n';
}

function addRun(builder: Builder, run: RunResult, revision: string): void {
  const prefix = revision ? `${revision} ` : '';

  // Run-level problems first, so a CI viewer shows them at the top.
  if (run.aborted !== undefined || run.harnessErrors.length > 0) {
    const suite = builder.testSuite().name(t(`${prefix}run`)).timestamp(t(run.startedAt));
    if (run.aborted !== undefined) {
      const content: string[] = [`ABORTED: ${run.aborted}`];
      if (run.stderr.trim() !== '') content.push('', 'Server stderr (tail):', stderrTail(run.stderr));
      suite
        .testCase()
        .className('run')
        .name('run/aborted')
        .error(t(`ABORTED: ${safeClip(run.aborted, 2000)}`), 'aborted', cdata(content.join('\n')));
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
  }

  for (const [area, checks] of groupByArea(run.checks)) {
    const suite = builder.testSuite().name(t(`${prefix}${area}`)).timestamp(t(run.startedAt));
    const ms = checks.reduce((sum, c) => sum + c.results.reduce((a, r) => a + (Number.isFinite(r.durationMs) ? r.durationMs : 0), 0), 0);
    suite.time(ms / 1000);
    for (const check of checks) {
      for (const r of check.results) addSubjectCase(suite.testCase(), run, check, r, revision ? `${revision}.` : '');
    }
  }
}

/**
 * The JUnit report against the Jenkins xunit plugin's junit-10.xsd (the
 * permissive de-facto schema of CI viewers), validated by xmllint compiled
 * to WebAssembly: a model with every verdict, real runs with a fail and a
 * warn, and an aborted run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJUnit } from '../render/index.js';
import type { RunResult } from '../model/results.js';
import { cli, everyVerdict, FAIL_BREAK, junitErrors, WARN_BREAK } from './gate-helpers.js';
import { referenceCommand, tempDir } from './helpers.js';

describe('JUnit is valid against junit-10.xsd', () => {
  it('a run with pass, fail, warn, skip, not-observed, an expected fail and a stale baseline entry', async () => {
    const xml = renderJUnit(everyVerdict());
    expect(await junitErrors(xml)).toEqual([]);
    // Each verdict is visible by name in any viewer.
    expect(xml).toContain('name="tools-list/c-warn [tool:a] [warn]"');
    expect(xml).toContain('name="tools-call/e-not-observed [tool:slow] [not observed]"');
    expect(xml).toContain('name="tools-call/f-expected [server] [expected fail]"');
    expect(xml).toMatch(/<testcase classname="baseline" name="baseline\/stale tools-list\/a-pass">\s*<failure/);
    expect(xml).toMatch(/WARNING: requirement not fully met/);
    expect(xml).toMatch(/NOT OBSERVED \(the check applies but could not be exercised; not a pass\): not called/);
    expect(xml).toMatch(/SKIPPED: the server does not declare/);
    // The validator does reject what the schema forbids (the defects of the earlier layout).
    expect(await junitErrors(xml.replace('<testsuites ', '<testsuites skipped="1" '))).not.toEqual([]);
    expect(
      await junitErrors(xml.replace('<system-out>', '<properties><property name="spec" value="x"/></properties><system-out>')),
    ).not.toEqual([]);
  });

  it('strict, aborted, with harness errors and eras', async () => {
    const one = everyVerdict({
      strict: true,
      aborted: 'the server did not answer\nat all',
      harnessErrors: ['x: internal error'],
      exitCode: 2,
    });
    expect(await junitErrors(renderJUnit(one))).toEqual([]);
    const both: RunResult = {
      ...everyVerdict(),
      revision: 'all',
      checks: [],
      eras: [everyVerdict({ revision: '2026-07-28' }), everyVerdict({ revision: '2025-11-25' })],
    };
    expect(await junitErrors(renderJUnit(both))).toEqual([]);
  });

  for (const [what, brk, verdict] of [
    ['a failing', FAIL_BREAK, 'fail'],
    ['a warning', WARN_BREAK, 'warn'],
  ] as const) {
    it(`the real JUnit of ${what} run against the reference server (with skips and not-observed)`, async () => {
      const dir = tempDir();
      const r = await cli([
        '--server',
        referenceCommand('--break', brk),
        '--seed',
        '1',
        '--junit',
        join(dir, 'j.xml'),
        '--json',
        join(dir, 'r.json'),
        '--html',
        join(dir, 'r.html'),
      ]);
      expect(r.code, r.stderr).toBe(verdict === 'fail' ? 1 : 0);
      const run = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as RunResult;
      const verdicts = new Set(run.checks.flatMap((c) => c.results.map((x) => x.verdict)));
      expect([...verdicts].sort()).toEqual(expect.arrayContaining([verdict, 'skip', 'not-observed', 'pass']));
      const xml = readFileSync(join(dir, 'j.xml'), 'utf8');
      expect(await junitErrors(xml)).toEqual([]);
      expect(xml).not.toContain('<properties>\n      <property name="spec"');
    });
  }
});

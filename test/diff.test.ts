/**
 * `mcp-conformance diff`: the verdict order, worst first, and the exit code,
 * on a real result file of the reference server and a changed copy of it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { diffRuns, VERDICT_ORDER } from '../engine/diff.js';
import type { CheckResult, RunResult, Verdict } from '../model/results.js';
import { referenceCommand, runCli, tempDir } from './helpers.js';

function run(checks: Array<[string, string, Verdict]>): RunResult {
  const byId = new Map<string, CheckResult>();
  for (const [id, subject, verdict] of checks) {
    const c = byId.get(id) ?? ({ id, results: [] } as unknown as CheckResult);
    c.results.push({ subject, verdict, findings: [], durationMs: 0 });
    byId.set(id, c);
  }
  return { checks: [...byId.values()] } as RunResult;
}

describe('diffRuns', () => {
  it('orders verdicts pass > skip > not-observed > warn > fail', () => {
    expect(VERDICT_ORDER).toEqual(['pass', 'skip', 'not-observed', 'warn', 'fail']);
  });

  it('lists every changed verdict, worse ones first and the worst of them first; unchanged ones not at all', () => {
    const before = run([
      ['a/one', 'server', 'pass'],
      ['a/two', 'server', 'pass'],
      ['a/three', 'server', 'fail'],
      ['a/four', 'tool:x', 'pass'],
      ['a/five', 'server', 'skip'],
      ['a/same', 'server', 'warn'],
    ]);
    const after = run([
      ['a/one', 'server', 'warn'],
      ['a/two', 'server', 'fail'],
      ['a/three', 'server', 'pass'],
      ['a/five', 'server', 'not-observed'],
      ['a/same', 'server', 'warn'],
      ['a/new', 'server', 'fail'],
      ['a/new-pass', 'server', 'pass'],
    ]);
    const changes = diffRuns(before, after);
    expect(changes.map((c) => [c.check, c.before ?? '-', c.after ?? '-', c.worse])).toEqual([
      ['a/two', 'pass', 'fail', true],
      ['a/new', '-', 'fail', true],
      ['a/four', 'pass', '-', true],
      ['a/one', 'pass', 'warn', true],
      ['a/five', 'skip', 'not-observed', true],
      ['a/three', 'fail', 'pass', false],
      ['a/new-pass', '-', 'pass', false],
    ]);
    expect(diffRuns(after, after)).toEqual([]);
  });

  it('matches subjects per era in --spec all results', () => {
    const era = (e: 'modern' | 'legacy', v: Verdict) =>
      ({ ...run([['x/y', 'server', v]]), era: { era: e, how: 'forced', evidence: '' } }) as RunResult;
    const before = { checks: [], eras: [era('modern', 'pass'), era('legacy', 'pass')] } as unknown as RunResult;
    const after = { checks: [], eras: [era('modern', 'pass'), era('legacy', 'fail')] } as unknown as RunResult;
    expect(diffRuns(before, after)).toMatchObject([{ era: 'legacy', check: 'x/y', before: 'pass', after: 'fail', worse: true }]);
  });
});

describe('mcp-conformance diff on result files', () => {
  const dir = tempDir();
  const before = join(dir, 'before.json');
  let result: RunResult;

  beforeAll(async () => {
    const r = await runCli([
      '--server',
      referenceCommand(),
      '--check',
      'tools-list/*',
      '--json',
      before,
      '--junit',
      join(dir, 'junit.xml'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    result = JSON.parse(readFileSync(before, 'utf8')) as RunResult;
  });

  it('exits 0 with nothing changed', async () => {
    const r = await runCli(['diff', before, before]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('No verdict changed.');
  });

  it('names the verdict that got worse, first, and exits 1; the reverse exits 0', async () => {
    const changed = structuredClone(result);
    const [worse, better] = changed.checks.filter((c) => c.results[0]?.verdict === 'pass');
    expect(better, 'the run needs two passing checks').toBeDefined();
    worse!.results[0]!.verdict = 'fail';
    worse!.results[0]!.findings = [{ requirement: 'q', expected: 'something', actual: 'something else', wire: [] }];
    better!.results[0]!.verdict = 'warn';
    const after = join(dir, 'after.json');
    writeFileSync(after, JSON.stringify(changed));

    const r = await runCli(['diff', before, after]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`worse   ${worse!.id}: pass → fail`);
    expect(lines[1]).toContain('expected something; seen something else');
    expect(r.stdout).toContain(`worse   ${better!.id}: pass → warn`);
    expect(r.stdout).toContain('2 verdicts changed, 2 worse.');

    const back = await runCli(['diff', after, before, '--json']);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject([
      { check: worse!.id, before: 'fail', after: 'pass', worse: false },
      { check: better!.id, before: 'warn', after: 'pass', worse: false },
    ]);
  });

  it('exits 2 on a file that is not a result file', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"hello": 1}');
    const r = await runCli(['diff', before, bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a mcp-conformance JSON result file');
    expect((await runCli(['diff', before, join(dir, 'missing.json')])).code).toBe(2);
    expect((await runCli(['diff', before])).code).toBe(2);
  });
});

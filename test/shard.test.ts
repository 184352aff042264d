/**
 * --shard i/n and `merge`: the catalogue is dealt out deterministically,
 * and merging the shards' JSON reports reproduces the unsharded verdicts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mergeRuns, parseShard, planChecks } from '../engine/shard.js';
import type { RunResult } from '../model/results.js';
import { catalogue } from '../suites/index.js';
import { cli, FAIL_BREAK, junitErrors } from './gate-helpers.js';
import { referenceCommand, tempDir } from './helpers.js';

/** check × subject → verdict. The broken server names one tool after its process (`conn_<pid>`): that name is normalised. */
const verdicts = (run: RunResult) =>
  Object.fromEntries(
    run.checks.flatMap((c) => c.results.map((r) => [`${c.id} ${r.subject.replace(/^tool:conn_\d+$/, 'tool:conn_N')}`, r.verdict])),
  );

describe('planChecks', () => {
  it('deals the selection out: shards are disjoint, cover it, and every shard runs the observers', () => {
    const observers = catalogue.filter((c) => c.observer).map((c) => c.id);
    const plain = catalogue.filter((c) => !c.observer).map((c) => c.id);
    const shards = [1, 2, 3].map((index) => planChecks({ shard: { index, total: 3 } }).map((c) => c.id));
    for (const s of shards) expect(s.filter((id) => observers.includes(id))).toEqual(observers);
    const dealt = shards.map((s) => s.filter((id) => !observers.includes(id)));
    expect(dealt.flat().sort()).toEqual([...plain].sort());
    expect(new Set(dealt.flat()).size).toBe(plain.length);
    for (const d of dealt) expect(Math.abs(d.length - plain.length / 3)).toBeLessThanOrEqual(1);
    expect(planChecks({ shard: { index: 2, total: 3 } }).map((c) => c.id)).toEqual(shards[1]);
  });

  it('parses i/n and refuses anything else', () => {
    expect(parseShard('2/5')).toEqual({ index: 2, total: 5 });
    for (const bad of ['0/3', '4/3', '1/0', 'a/b', '1', '1/2/3']) expect(() => parseShard(bad)).toThrow(/--shard must look like i\/n/);
  });
});

describe('--shard and merge', () => {
  it('three shards merged reproduce the unsharded verdicts and exit code', async () => {
    const dir = tempDir();
    const server = referenceCommand('--break', FAIL_BREAK);
    const out = (name: string) => [
      '--junit',
      join(dir, `${name}.xml`),
      '--json',
      join(dir, `${name}.json`),
      '--html',
      join(dir, `${name}.html`),
    ];
    const whole = await cli(['--server', server, '--seed', '5', ...out('whole')]);
    expect(whole.code).toBe(1);
    const parts = await Promise.all(
      [1, 2, 3].map((i) => cli(['--server', server, '--seed', '5', '--shard', `${i}/3`, ...out(`shard${i}`)])),
    );
    const shardRuns = [1, 2, 3].map((i) => JSON.parse(readFileSync(join(dir, `shard${i}.json`), 'utf8')) as RunResult);
    expect(parts.map((p) => p.code).sort()).toEqual([0, 0, 1]);
    const merged = await cli(['merge', ...[1, 2, 3].map((i) => join(dir, `shard${i}.json`)), ...out('merged')]);
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stdout).toContain('Result: FAILED');

    const a = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8')) as RunResult;
    const b = JSON.parse(readFileSync(join(dir, 'merged.json'), 'utf8')) as RunResult;
    expect(b.checks.map((c) => c.id).sort()).toEqual(a.checks.map((c) => c.id).sort());
    expect(verdicts(b)).toEqual(verdicts(a));
    expect(b.summary).toEqual(a.summary);
    expect(shardRuns.reduce((n, r) => n + r.checks.length, 0)).toBeGreaterThan(a.checks.length); // observers ran in every shard
    expect(await junitErrors(readFileSync(join(dir, 'merged.xml'), 'utf8'))).toEqual([]);
  });

  it('merge: a finding of an observer in any shard stands; a bad file is a cause and a hint', async () => {
    const base = {
      tool: { name: 'mcp-conformance', version: '0' },
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      target: { transport: 'stdio' as const },
      revision: '2026-07-28',
      strict: false,
      stderr: '',
      harnessErrors: [],
      exitCode: 0 as const,
    };
    const obs = (verdict: 'pass' | 'fail' | 'not-observed') => ({
      id: 'protocol/response-ids',
      area: 'protocol',
      title: 't',
      level: 'MUST' as const,
      spec: { revision: 'draft' as const, page: 'basic/index', section: 'Responses' },
      requirement: 'r',
      transports: ['stdio' as const],
      revisions: ['modern' as const],
      results: [
        {
          subject: 'server',
          verdict,
          findings: verdict === 'fail' ? [{ requirement: 'r', expected: 'e', actual: 'a', wire: [] }] : [],
          durationMs: 1,
        },
      ],
    });
    const run = (verdict: 'pass' | 'fail' | 'not-observed') => ({
      ...base,
      checks: [obs(verdict)],
      summary: { pass: 0, fail: 0, warn: 0, skip: 0, notObserved: 0, total: 1 },
    });
    expect(mergeRuns([run('pass'), run('fail'), run('not-observed')]).checks[0]!.results[0]!.verdict).toBe('fail');
    expect(mergeRuns([run('not-observed'), run('pass')]).checks[0]!.results[0]!.verdict).toBe('pass');
    expect(mergeRuns([run('pass'), run('fail')]).exitCode).toBe(1);
    // --spec all: era by era.
    const eras = (v: 'pass' | 'fail') => ({
      ...base,
      revision: 'all',
      checks: [],
      summary: run(v).summary,
      eras: [
        { ...run(v), revision: '2026-07-28' },
        { ...run('pass'), revision: '2025-11-25' },
      ],
    });
    const both = mergeRuns([eras('pass'), eras('fail')]);
    expect(both.eras!.map((e) => [e.revision, e.checks[0]!.results[0]!.verdict])).toEqual([
      ['2026-07-28', 'fail'],
      ['2025-11-25', 'pass'],
    ]);
    expect(both.summary.fail).toBe(1);
    expect(both.exitCode).toBe(1);

    const dir = tempDir();
    const r = await cli(['merge', join(dir, 'nope.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^mcp-conformance: cannot merge .*nope\.json: ENOENT/),
      expect.stringMatching(/^hint: /),
    ]);
  });
});

describe('merge refuses a partial picture', () => {
  const server = referenceCommand('--break', FAIL_BREAK);
  const SELECT = ['--check', 'tools-list/*'];
  let dir: string;
  const file = (name: string) => join(dir, `${name}.json`);
  const shard = (name: string, i: number, extra: string[] = [], target = server) =>
    cli(['--server', target, '--seed', '3', ...SELECT, '--shard', `${i}/2`, '--json', file(name), '--junit', '', '--html', '', ...extra]);

  beforeAll(async () => {
    dir = tempDir();
    // One at a time: CPU is shared.
    for (const [name, i, extra, target] of [
      ['s1', 1, [], server],
      ['s2', 2, [], server],
      ['s2-seed', 2, ['--seed', '4'], server],
      ['s2-target', 2, [], referenceCommand()],
    ] as Array<[string, number, string[], string]>)
      await shard(name, i, extra, target);
  }, 120_000);

  it('each results file records its shard, the selected catalogue, target, revision, seed and version', () => {
    const a = JSON.parse(readFileSync(file('s1'), 'utf8')) as RunResult;
    const b = JSON.parse(readFileSync(file('s2'), 'utf8')) as RunResult;
    expect(a.shard).toEqual({ index: 1, total: 2 });
    expect(b.shard).toEqual({ index: 2, total: 2 });
    expect(a.catalogue).toEqual({ checks: planChecks({ include: ['tools-list/*'] }).length, digest: expect.stringMatching(/^sha256:/) });
    expect(b.catalogue).toEqual(a.catalogue);
    expect([a.seed, a.revision, a.tool.version, a.target.command]).toEqual([3, '2026-07-28', b.tool.version, b.target.command]);
  });

  it('one shard of two: exit 2, naming the missing shard', async () => {
    const r = await cli(['merge', file('s1'), '--json', join(dir, 'm1.json'), '--junit', '', '--html', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot merge: shard 2/2 is missing');
    expect(r.stderr).toMatch(/hint: .*--allow-partial/);
    expect(r.stdout).not.toContain('PASSED');
    expect((JSON.parse(readFileSync(join(dir, 'm1.json'), 'utf8')) as RunResult).exitCode).toBe(2);
  });

  it('the same shard twice: exit 2, naming it', async () => {
    const r = await cli(['merge', file('s1'), file('s1'), file('s2'), '--json', '', '--junit', '', '--html', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shard 1\/2 is given more than once: \S+s1\.json, \S+s1\.json/);
  });

  it('a different seed or target: exit 2, naming the field and the files', async () => {
    const seed = await cli(['merge', file('s1'), file('s2-seed'), '--json', '', '--junit', '', '--html', '']);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toMatch(/their seed differs: 3 in \S+s1\.json; 4 in \S+s2-seed\.json/);
    const target = await cli(['merge', file('s1'), file('s2-target'), '--json', '', '--junit', '', '--html', '']);
    expect(target.code).toBe(2);
    expect(target.stderr).toContain('their target differs');
  });

  it('the whole set merges, and its failure stands', async () => {
    const r = await cli(['merge', file('s2'), file('s1'), '--json', '', '--junit', '', '--html', '']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('Result: FAILED (1 fail)');
  });

  it('--allow-partial merges one shard of two: exit non-zero, and every report says incomplete', async () => {
    const summary = join(dir, 'step-summary.md');
    const paths = { junit: join(dir, 'p.xml'), json: join(dir, 'p.json'), html: join(dir, 'p.html') };
    const r = await cli(['merge', file('s2'), '--allow-partial', '--junit', paths.junit, '--json', paths.json, '--html', paths.html], {
      env: { GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true' },
    });
    expect(r.stdout).toContain('::error title=mcp-conformance incomplete merge::INCOMPLETE (not a pass): shard 1/2 is missing');
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain('Result: INCOMPLETE (shard 1/2 is missing): not a pass');
    const json = JSON.parse(readFileSync(paths.json, 'utf8')) as RunResult;
    expect(json.incomplete).toBe('shard 1/2 is missing');
    expect(json.exitCode).not.toBe(0);
    const xml = readFileSync(paths.junit, 'utf8');
    expect(xml).toMatch(/<testcase classname="run" name="run\/incomplete"[^>]*>\s*<error message="INCOMPLETE: shard 1\/2 is missing"/);
    expect(await junitErrors(xml)).toEqual([]);
    expect(readFileSync(paths.html, 'utf8')).toContain('<strong>INCOMPLETE:</strong> shard 1/2 is missing');
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('## mcp-conformance: ⛔ INCOMPLETE');
    expect(md).toContain('**Incomplete:** shard 1/2 is missing');
    for (const text of [r.stdout, readFileSync(paths.json, 'utf8'), xml, readFileSync(paths.html, 'utf8'), md])
      expect(text).not.toContain('PASSED');
  });
});

/**
 * Baselines: write one from a failing run, rerun green against it, fix the
 * server and the stale entry fails the run; the schema, subjects, entries
 * the run did not exercise, and --skip / checks.exclude.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { applyBaseline, loadBaseline } from '../engine/baseline.js';
import type { RunResult } from '../model/results.js';
import { cli, everyVerdict, FAIL_BREAK, WARN_BREAK } from './gate-helpers.js';
import { referenceCommand, tempDir } from './helpers.js';

const reports = (dir: string) => [
  '--junit',
  join(dir, 'junit.xml'),
  '--json',
  join(dir, 'results.json'),
  '--html',
  join(dir, 'report.html'),
];
const readRun = (dir: string) => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;

describe('--baseline round trip', () => {
  it('write a baseline, rerun and exit 0, fix the server, rerun and exit 1 for the stale entry', async () => {
    const dir = tempDir();
    const file = join(dir, 'baseline.yaml');
    const only = ['--check', 'tools-list/*', '--seed', '1'];

    const first = await cli(['--server', referenceCommand('--break', FAIL_BREAK), ...only, ...reports(dir), '--write-baseline', file]);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stderr).toContain(`wrote 1 baseline entry to ${file}`);
    const doc = parseYaml(readFileSync(file, 'utf8')) as { entries: Array<{ check: string; reason: string }> };
    expect(doc.entries).toEqual([{ check: FAIL_BREAK, reason: 'TODO' }]);

    const accepted = await cli(['--server', referenceCommand('--break', FAIL_BREAK), ...only, ...reports(dir), '--baseline', file]);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(new RegExp(`~ ${FAIL_BREAK}.*expected fail \\(baseline: TODO\\)`));
    expect(accepted.stdout).toContain('1 expected');
    const run = readRun(dir);
    expect(run.baseline).toMatchObject({ expected: 1, stale: [] });
    expect(run.checks.find((c) => c.id === FAIL_BREAK)!.results[0]).toMatchObject({ verdict: 'fail', expected: { reason: 'TODO' } });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain(`${FAIL_BREAK} [server] [expected fail]`);

    const fixed = await cli(['--server', referenceCommand(), ...only, ...reports(dir), '--baseline', file]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(1);
    expect(fixed.stdout).toContain(`stale: ${FAIL_BREAK} no longer fails or warns: remove the entry from the baseline`);
    expect(readRun(dir).baseline!.stale.map((e) => e.check)).toEqual([FAIL_BREAK]);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain(`baseline/stale ${FAIL_BREAK}`);
  });

  it('a warning in the baseline is expected too, and --write-baseline keeps the reasons already given', async () => {
    const dir = tempDir();
    const file = join(dir, 'b.json');
    writeFileSync(file, JSON.stringify({ entries: [{ check: 'tools-list/unique-*', reason: 'names come from the plugin registry' }] }));
    const again = join(dir, 'again.yaml');
    const r = await cli([
      '--server',
      referenceCommand('--break', WARN_BREAK),
      '--check',
      'tools-list/*',
      '--strict',
      ...reports(dir),
      '--baseline',
      file,
      '--write-baseline',
      again,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(parseYaml(readFileSync(again, 'utf8')).entries).toEqual([{ check: WARN_BREAK, reason: 'names come from the plugin registry' }]);
  });
});

describe('baseline rules', () => {
  const fresh = () =>
    everyVerdict({
      baseline: undefined,
      checks: everyVerdict().checks.map((c) => ({ ...c, results: c.results.map(({ expected: _e, ...r }) => r) })),
    });

  it('a subject entry covers only that subject; unrun checks are unconfirmed, not stale', () => {
    const run = applyBaseline(fresh(), {
      path: 'b.yaml',
      entries: [
        { check: 'tools-list/c-warn', subject: 'tool:b', reason: 'another tool' },
        { check: 'tools-list/b-fail', reason: 'known' },
        { check: 'tools-call/f-expected', reason: 'known' },
        { check: 'tools-call/e-not-observed', reason: 'cannot tell' },
        { check: 'nowhere/never', reason: 'not selected' },
      ],
    });
    expect(run.baseline!.expected).toBe(2);
    expect(run.baseline!.stale.map((e) => e.check)).toEqual(['tools-list/c-warn']);
    expect(run.baseline!.unconfirmed.map((e) => e.check)).toEqual(['tools-call/e-not-observed', 'nowhere/never']);
    expect(run.checks.find((c) => c.id === 'tools-list/c-warn')!.results[0]!.expected).toBeUndefined();
    expect(run.exitCode).toBe(1);
  });

  it('every fail covered and nothing stale: exit 0; strict counts uncovered warnings', () => {
    const entries = [
      { check: 'tools-list/b-fail', reason: 'known' },
      { check: 'tools-call/f-expected', reason: 'known' },
    ];
    expect(applyBaseline(fresh(), { path: 'b', entries }).exitCode).toBe(0);
    expect(applyBaseline({ ...fresh(), strict: true }, { path: 'b', entries }).exitCode).toBe(1);
  });

  it('the file is validated against the published schema: a reason is required', () => {
    const dir = tempDir();
    const file = join(dir, 'b.yaml');
    writeFileSync(file, 'entries:\n  - check: tools-list/unique-names\n');
    expect(() => loadBaseline(file)).toThrow(/baseline .*b\.yaml is invalid at \/entries\/0: must have required property 'reason'/);
    writeFileSync(file, 'entries:\n  - { check: x, reason: y, why: z }\n');
    expect(() => loadBaseline(file)).toThrow(/must NOT have additional properties 'why'/);
  });

  it('a bad baseline is a usage error: cause and hint, exit 2', async () => {
    const dir = tempDir();
    const r = await cli(['--server', referenceCommand(), '--baseline', join(dir, 'missing.yaml'), ...reports(dir)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^mcp-conformance: cannot read baseline .*missing\.yaml: ENOENT$/),
      expect.stringMatching(/^hint: /),
    ]);
    expect(r.stdout).toBe('');
  });
});

describe('--skip and checks.exclude', () => {
  it('leave checks out whatever the positive globs match; "!id" beside a glob works too', async () => {
    const dir = tempDir();
    const config = join(dir, 'c.yaml');
    writeFileSync(config, `server:\n  command: ${referenceCommand()}\nchecks:\n  exclude: ['discover/server-info']\n`);
    const r = await cli([
      '--config',
      config,
      '--check',
      'discover/*',
      '--check',
      'tools-list/*',
      '--check',
      '!tools-list/unique-names',
      '--skip',
      'tools-list/deterministic-*',
      ...reports(dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const ids = readRun(dir).checks.map((c) => c.id);
    expect(ids).toContain('discover/result');
    expect(ids).toContain('tools-list/stable-across-connections');
    expect(ids).not.toContain('discover/server-info');
    expect(ids).not.toContain('tools-list/unique-names');
    expect(ids.filter((id) => id.startsWith('tools-list/deterministic'))).toEqual([]);
    expect(ids.every((id) => id.startsWith('discover/') || id.startsWith('tools-list/'))).toBe(true);
  });

  it('a selection that leaves nothing is a one-line cause', async () => {
    const dir = tempDir();
    const r = await cli(['--server', referenceCommand(), '--check', 'discover/*', '--skip', 'discover/*', ...reports(dir)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcp-conformance: no check is left to run by --check discover\/\*, --skip \/ checks.exclude discover\/\*/);
  });
});

/**
 * What a run left out is recorded in every report: the checks `--skip`,
 * the config file's `checks.exclude` and `--check '!glob'` took out, each
 * with its source, and the config file's path (named by --config, or found
 * in the current folder).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { leftOutChecks, mergeRuns } from '../engine/shard.js';
import type { RunResult } from '../model/results.js';
import { everyVerdict, junitErrors } from './gate-helpers.js';
import { CLI, tempDir } from './helpers.js';

const CONFIG = 'server:\n  command: reference\nchecks:\n  exclude:\n    - "lifecycle/*"\n    - "nope/*"\n';

async function run(args: string[], cwd: string) {
  const summary = join(cwd, 'summary.md');
  writeFileSync(summary, '');
  const reports = ['--junit', join(cwd, 'j.xml'), '--json', join(cwd, 'r.json'), '--html', join(cwd, 'r.html')];
  const r = await execa('node', [CLI, ...args, ...reports], {
    cwd,
    reject: false,
    timeout: 60_000,
    env: { NO_COLOR: '1', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
  });
  const read = (f: string) => readFileSync(join(cwd, f), 'utf8');
  return {
    code: r.exitCode,
    stdout: String(r.stdout),
    json: JSON.parse(read('r.json')) as RunResult,
    junit: read('j.xml'),
    html: read('r.html'),
    summary: read('summary.md'),
  };
}

function junitProperties(xml: string): Array<[string, string]> {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => ['testsuite', 'property'].includes(n) }).parse(xml);
  const first = (doc.testsuites.testsuite as Array<{ properties: { property: Array<Record<string, string>> } }>)[0]!;
  return first.properties.property.map((p) => [p['@_name']!, p['@_value']!]);
}

const SKIP_LINE = '--skip discover/server-info: 1 check: discover/server-info';
const EXCLUDE_LINE = "checks.exclude 'lifecycle/*': 6 checks: lifecycle/initialize-result";
const NOTHING_LINE = "checks.exclude 'nope/*': matches no check";
const NEGATED_LINE = "--check '!discover/result': 1 check: discover/result";

describe('what was left out', () => {
  it('a config file found in the current folder, --skip, checks.exclude and --check !glob: in all five reports', async () => {
    const dir = tempDir();
    const config = join(dir, 'mcp-conformance.config.yaml');
    writeFileSync(config, CONFIG);
    const args = ['--check', 'discover/*', '--check', 'lifecycle/*', '--skip', 'discover/server-info', '--check', '!discover/result'];
    const r = await run(args, dir);
    expect(r.code, r.stdout).toBe(0);
    const found = `${config} (found in the current folder)`;

    expect(r.json.selection?.configFile).toEqual({ path: config, found: 'current folder' });
    expect(r.json.selection?.leftOut.map((l) => [l.source, l.pattern, l.checks.length])).toEqual([
      ['--skip', 'discover/server-info', 1],
      ['checks.exclude', 'lifecycle/*', 6],
      ['checks.exclude', 'nope/*', 0],
      ['--check', '!discover/result', 1],
    ]);
    expect(r.json.checks.map((c) => c.id)).toEqual(['discover/tools-capability']);

    expect(r.stdout).toContain(`  Config:    ${found}`);
    expect(r.stdout).toContain('  Left out:  8 checks (not run, not counted)');
    for (const line of [SKIP_LINE, EXCLUDE_LINE, NOTHING_LINE, NEGATED_LINE]) expect(r.stdout).toContain(`    ${line}`);

    const props = junitProperties(r.junit);
    expect(props).toContainEqual(['config-file', found]);
    const leftOut = props.filter(([k]) => k === 'left-out').map(([, v]) => v);
    expect(leftOut).toHaveLength(4);
    expect(leftOut[0]).toBe(SKIP_LINE);
    expect(leftOut[1]).toMatch(/^checks\.exclude 'lifecycle\/\*': 6 checks: lifecycle\/initialize-result, /);
    expect(await junitErrors(r.junit)).toEqual([]);

    expect(r.html).toContain(`<td>Config</td><td><code>${found}</code></td>`);
    expect(r.html).toContain('<span id="left-out">8 checks (not run, not counted)</span>');
    expect(r.html).toContain(`<li>${NEGATED_LINE.replace(/'/g, '&#39;')}</li>`);

    expect(r.summary).toContain(`Config: ${found.replace(/[-()]/g, '\\$&')}`);
    expect(r.summary).toContain('**Left out:** 8 checks (not run, not counted)');
    expect(r.summary).toContain('- \\-\\-skip discover/server\\-info: 1 check: discover/server\\-info');
  });

  it('a config file named by --config is named so; with nothing left out, no left-out block', async () => {
    const dir = tempDir();
    const config = join(dir, 'elsewhere.yaml');
    writeFileSync(config, 'server:\n  command: reference\n');
    const r = await run(['--config', config, '--check', 'discover/tools-capability'], dir);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.selection).toEqual({ configFile: { path: config, found: '--config' }, leftOut: [] });
    expect(r.stdout).toContain(`  Config:    ${config} (named by --config)`);
    expect(r.stdout).not.toContain('Left out:');
    expect(junitProperties(r.junit).filter(([k]) => k === 'left-out')).toEqual([]);
    expect(r.html).not.toContain('id="left-out"');
    expect(r.summary).not.toContain('Left out');
  });

  it('a run that --skip leaves nothing to run records why', async () => {
    const dir = tempDir();
    const r = await run(['--server', 'reference', '--skip', '*/*'], dir);
    expect(r.code).toBe(2);
    expect(r.json.aborted).toMatch(/^no check is left to run/);
    expect(r.json.selection?.configFile).toBeUndefined();
    expect(r.json.selection?.leftOut[0]).toMatchObject({ source: '--skip', pattern: '*/*' });
    expect(r.stdout).toMatch(/Left out: {2}\d+ checks/);
  });

  it('--spec all: the combined part of the console and the JUnit suites of every era list what was left out', async () => {
    const dir = tempDir();
    const r = await run(
      ['--server', 'reference', '--spec', 'all', '--check', 'discover/tools-capability', '--skip', 'discover/result'],
      dir,
    );
    expect(r.json.eras).toHaveLength(2);
    expect(r.json.selection?.leftOut).toEqual([{ source: '--skip', pattern: 'discover/result', checks: ['discover/result'] }]);
    const combined = r.stdout.slice(r.stdout.indexOf('━━ all eras ━━'));
    expect(combined).toContain('  Left out:  1 check (not run, not counted)\n    --skip discover/result: 1 check: discover/result');
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => ['testsuite', 'property'].includes(n) }).parse(r.junit);
    const suites = doc.testsuites.testsuite as Array<{ '@_name': string; properties: { property: Array<Record<string, string>> } }>;
    for (const revision of ['2026-07-28', '2025-11-25']) {
      const suite = suites.find((x) => x['@_name'].startsWith(`${revision} `))!;
      expect(suite.properties.property.filter((p) => p['@_name'] === 'left-out').map((p) => p['@_value'])).toEqual([
        '--skip discover/result: 1 check: discover/result',
      ]);
    }
  });

  it('a merge of shards keeps the selection they ran with', () => {
    const selection: RunResult['selection'] = {
      configFile: { path: '/p/mcp-conformance.config.yaml', found: 'current folder' },
      leftOut: [{ source: '--skip', pattern: 'a/*', checks: ['a/x'] }],
    };
    expect(
      mergeRuns([
        { ...everyVerdict(), selection },
        { ...everyVerdict(), selection },
      ]).selection,
    ).toEqual(selection);
  });

  it('a check matched by several patterns counts under the first', () => {
    const all = [{ id: 'a/x' }, { id: 'a/y' }, { id: 'b/z' }] as Parameters<typeof leftOutChecks>[1];
    expect(leftOutChecks({ skip: ['a/x'], exclude: ['a/*'], include: ['b/*', '!*/*'] }, all)).toEqual([
      { source: '--skip', pattern: 'a/x', checks: ['a/x'] },
      { source: 'checks.exclude', pattern: 'a/*', checks: ['a/y'] },
      { source: '--check', pattern: '!*/*', checks: ['b/z'] },
    ]);
  });
});

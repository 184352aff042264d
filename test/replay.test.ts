/**
 * A replay that only replays: the printed Replay command of a generated
 * failure names the check, the case and the target, writes its reports under
 * reports/replay/, and leaves the run's baseline and reports alone.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../model/results.js';
import { cli } from './gate-helpers.js';
import { referenceCommand, tempDir } from './helpers.js';

const CHECK = 'tools-call/valid-result';

describe('the printed replay command', () => {
  it("replays the one case into reports/replay/, and never writes a baseline or the run's reports", async () => {
    const dir = tempDir();
    const own = { baseline: join(dir, 'baseline.yaml'), json: join(dir, 'r.json'), junit: join(dir, 'r.xml'), html: join(dir, 'r.html') };
    const server = referenceCommand('--break', CHECK);
    const first = await cli(
      ['--server', server, '--check', CHECK, '--timeout', '5000', '--write-baseline', own.baseline].concat([
        '--json',
        own.json,
        '--junit',
        own.junit,
        '--html',
        own.html,
      ]),
      { cwd: dir },
    );
    expect(first.code, first.stderr).toBe(1);
    const line = first.stdout.split('\n').find((l) => l.includes(`${CHECK} [tool:search_catalog]: npx mcp-conformance`))!;
    expect(line, first.stdout).toBeDefined();
    const argv = parse(line.slice(line.indexOf('npx '))).map(String);
    expect(argv.slice(0, 2)).toEqual(['npx', 'mcp-conformance']);
    // The check, the case and the target, and nothing of the run's outputs.
    expect(argv).toEqual(expect.arrayContaining(['--server', server, '--check', CHECK, '--seed', '--replay', '--spec']));
    expect(argv[argv.indexOf('--replay') + 1]).toMatch(/@search_catalog$/);
    expect(argv.join(' ')).not.toMatch(/baseline|r\.json|r\.xml|r\.html/);

    // The user edits the baseline's reasons; the replay must not reset them, nor touch the run's reports.
    writeFileSync(own.baseline, readFileSync(own.baseline, 'utf8').replace(/reason: TODO/g, 'reason: "a real reason"'));
    const before = Object.fromEntries(Object.entries(own).map(([k, p]) => [k, [readFileSync(p, 'utf8'), statSync(p).mtimeMs]]));
    const replayDir = tempDir();
    const again = await cli(argv.slice(2), { cwd: replayDir });
    expect(again.code, again.stderr).toBe(1);
    for (const [k, p] of Object.entries(own)) expect([readFileSync(p, 'utf8'), statSync(p).mtimeMs], k).toEqual(before[k]);
    expect(again.stderr).not.toMatch(/baseline/);

    const replayed = JSON.parse(readFileSync(join(replayDir, 'reports/replay/results.json'), 'utf8')) as RunResult;
    expect(replayed.checks.map((c) => c.id)).toEqual([CHECK]);
    const failing = replayed.checks[0]!.results.filter((r) => r.verdict === 'fail').map((r) => r.subject);
    expect(failing).toEqual(['tool:search_catalog']);
    expect(statSync(join(replayDir, 'reports/replay/junit.xml')).isFile()).toBe(true);
    expect(statSync(join(replayDir, 'reports/replay/report.html')).isFile()).toBe(true);
  });
});

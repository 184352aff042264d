/**
 * Speed without a different answer: checks run concurrently (--jobs), the
 * report order and every verdict are the same for --jobs 1 and the default,
 * results stream in report order, no run idles after its summary, and the
 * slow reference variants (a listen answered as a JSON body that never
 * completes, a tools/call never answered) end within 2x --timeout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { defaultJobs, runConformance, type ResultEvent } from '../engine/run.js';
import { catalogue } from '../suites/index.js';
import type { RunResult } from '../model/results.js';
import type { TransportKind } from '../model/wire.js';
import { describeRun, freePort, referenceCommand, ROOT, runCli, tempDir } from './helpers.js';

const config = loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config;
const SEED = 20261130;

async function run(
  transport: TransportKind,
  opts: { jobs?: number; serverArgs?: string[]; timeoutMs?: number; onResult?: (e: ResultEvent) => void } = {},
): Promise<RunResult> {
  const base = { config, seed: SEED, runs: 5, requestTimeoutMs: opts.timeoutMs ?? 5000, jobs: opts.jobs, onResult: opts.onResult };
  const args = opts.serverArgs ?? [];
  if (transport === 'stdio') return runConformance({ command: referenceCommand(...args), ...base });
  const port = await freePort();
  return runConformance({ command: referenceCommand('--http', String(port), ...args), url: `http://127.0.0.1:${port}/mcp`, ...base });
}

const verdicts = (r: RunResult) => r.checks.flatMap((c) => c.results.map((x) => `${c.id} [${x.subject}] ${x.verdict}`));

describe('concurrent checks', () => {
  it('declares its scheduling needs with check objects that come earlier in the catalogue', () => {
    for (const [i, check] of catalogue.entries()) {
      for (const dep of check.after ?? []) {
        expect(catalogue.indexOf(dep), `${check.id} runs after ${dep.id}`).toBeGreaterThanOrEqual(0);
        expect(catalogue.indexOf(dep), `${check.id} runs after ${dep.id}`).toBeLessThan(i);
      }
    }
    expect(catalogue.filter((c) => c.exclusive).length).toBeGreaterThan(0);
  });

  for (const transport of ['stdio', 'http'] as const) {
    it.concurrent(
      `${transport}: the same report order and verdicts for --jobs 1 and the default (${defaultJobs(transport)}), streamed in report order`,
      async ({ expect }) => {
        const streamed: ResultEvent[] = [];
        const [one, many] = await Promise.all([run(transport, { jobs: 1 }), run(transport, { onResult: (e) => streamed.push(e) })]);
        expect(one.exitCode, describeRun(one)).toBe(0);
        expect(verdicts(many), describeRun(many)).toEqual(verdicts(one));
        expect(streamed.map((e) => e.index)).toEqual(many.checks.map((_, i) => i));
        expect(streamed.map((e) => e.result)).toEqual(many.checks);
        expect(new Set(streamed.map((e) => e.total))).toEqual(new Set([many.checks.length]));
      },
    );
  }

  // Decided by the exit, not the clock: every deadline of the run (request, notification, shutdown) is 10 minutes, so a
  // wait that outlived the run would hold the process past runCli's 60 s bound (code undefined, killed). Nothing is
  // asserted about how soon it exits: the machine is shared.
  it('exits once the reports are written: no wait outlives the run', async () => {
    const dir = tempDir();
    const json = join(dir, 'r.json');
    const long = '600000';
    const r = await runCli([
      '--server',
      referenceCommand(),
      ...['--timeout', long, '--notification-timeout', long, '--shutdown-timeout', long],
      ...['--json', json, '--junit', join(dir, 'r.xml'), '--html', join(dir, 'r.html')],
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as RunResult;
    expect(report.aborted, r.stdout).toBeUndefined();
  });

  // The default timeout (10 s). What makes these variants end within 2x --timeout is
  // asserted by its cause, not by the clock (a shared machine's timings are noise; the
  // wall times are npm run bench's, in the README): the checks that depend on the silent
  // listen report at once, naming the check that judges it, and a tool that timed out
  // once is not waited for again.
  for (const transport of ['stdio', 'http'] as const) {
    // silent-listen: the listen is never answered (no headers); a listen answered with JSON is judged at its
    // headers instead (test/subscriptions.test.ts, and the bench's json-listen variants).
    for (const behave of ['silent-listen', 'silent-call'] as const) {
      it(`${transport}: --behave ${behave} ends within 2x --timeout`, async () => {
        const r = await run(transport, { serverArgs: ['--behave', behave], timeoutMs: 10_000 });
        expect(r.aborted, describeRun(r)).toBeUndefined();
        if (behave === 'silent-call') expect(JSON.stringify(r.checks)).toMatch(/not waited for again/);
        // Whoever depends on the silent listen says so, naming the check that judges it; only
        // the first listener to meet the silence waits the request timeout out.
        if (behave === 'silent-listen') {
          const dependants = r.checks.filter((c) => c.id.startsWith('subscriptions/') && c.id !== 'subscriptions/acknowledged-first');
          const waited: string[] = [];
          for (const c of dependants) {
            for (const x of c.results) {
              if (x.verdict !== 'not-observed') continue;
              expect(x.reason).toMatch(/subscriptions\/acknowledged-first|applies to/);
              // The first to meet the silence says what it waited for; the rest name the owner's finding.
              if (!/judged by subscriptions\/acknowledged-first/.test(x.reason ?? '') && /acknowledged/.test(x.reason ?? ''))
                waited.push(c.id);
            }
          }
          expect(waited.length, `checks that waited out the timeout: ${waited.join(', ')}`).toBeLessThanOrEqual(1);
        }
      }, 60_000);
    }
  }
});

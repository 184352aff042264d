#!/usr/bin/env node
/**
 * How close a full run comes to the server's own time. Each scenario is the
 * CLI run as a user runs it (its own process, the reference server's config
 * file), against the reference server started with --busy-log, which records
 * every request it received and the time it spent on each (latency included).
 *
 *   wall      the CLI process, from start to exit
 *   work      the server's own time: the sum over requests of receipt to response
 *   busy      the time the server had at least one request in hand (union of intervals,
 *             over every server process of the run)
 *   wall/work the goal is at most 1.3 at 20 ms latency
 *   requests  requests the server received (= requests the suite sent)
 *
 * Scenarios: the reference at --latency 0 and 20, over stdio and HTTP, and
 * two slow variants (--behave json-listen: subscriptions/listen answered as
 * one JSON body that never completes; --behave silent-call: tools/call never
 * answered), which must end within 2x --timeout. Figures vary with the
 * machine and its load; they are measured here, never asserted in tests.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin/mcp-conformance.js');
const REFERENCE = join(ROOT, 'fixtures/servers/reference/server.js');
const CONFIG = join(ROOT, 'fixtures/reference.config.yaml');
const TIMEOUT_MS = 10_000;

export const SCENARIOS = [
  { name: 'reference, 0 ms', server: [] },
  { name: 'reference, 20 ms', server: ['--latency', '20'] },
  { name: 'json-listen', server: ['--behave', 'json-listen'], slow: true },
  { name: 'silent-call', server: ['--behave', 'silent-call'], slow: true },
];

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => res(port));
    });
  });
}

/** Total length of the union of [start, end] intervals. @param {Array<[number, number]>} spans */
function unionMs(spans) {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cur;
  for (const [s, e] of sorted) {
    if (!cur || s > cur[1]) {
      if (cur) total += cur[1] - cur[0];
      cur = [s, e];
    } else cur[1] = Math.max(cur[1], e);
  }
  if (cur) total += cur[1] - cur[0];
  return total;
}

/**
 * One scenario over one transport: the CLI's wall time and the server's account.
 * @param {{ server: string[] }} scenario
 * @param {string} transport
 * @param {string[]} [extraArgs]
 */
export async function measure(scenario, transport, extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const busyLog = join(dir, 'busy.jsonl');
  const server = ['node', REFERENCE, ...scenario.server, '--busy-log', busyLog];
  const args = [
    CLI,
    '--config',
    CONFIG,
    '--no-color',
    '--timeout',
    String(TIMEOUT_MS),
    '--json',
    join(dir, 'r.json'),
    '--junit',
    join(dir, 'r.xml'),
    ...extraArgs,
  ];
  if (transport === 'http') {
    const port = await freePort();
    args.push('--server', [...server, '--http', String(port)].join(' '), '--url', `http://127.0.0.1:${port}/mcp`);
  } else args.push('--server', server.join(' '));
  const started = Date.now();
  await new Promise((res) => execFile('node', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, () => res(undefined)));
  const wallMs = Date.now() - started;
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
  const lines = readFileSync(busyLog, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  rmSync(dir, { recursive: true, force: true });
  const workMs = lines.reduce((n, l) => n + l.workMs, 0);
  const busyMs = unionMs(lines.flatMap((l) => l.busy));
  const requests = lines.reduce((n, l) => n + l.requests, 0);
  return { wallMs, durationMs: report.durationMs, workMs, busyMs, requests, processes: lines.length, summary: report.summary };
}

const s = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);

export async function main() {
  process.stdout.write(`Full runs against the reference server (--timeout ${TIMEOUT_MS} ms, default --jobs)\n\n`);
  process.stdout.write(
    '| scenario | transport | wall s | work s | busy s | wall/work | wall/busy | requests | results |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n',
  );
  for (const scenario of SCENARIOS) {
    for (const transport of ['stdio', 'http']) {
      const m = await measure(scenario, transport);
      const within = scenario.slow ? (m.wallMs <= 2 * TIMEOUT_MS ? ' (≤ 2× timeout)' : ' (> 2× timeout!)') : '';
      process.stdout.write(
        `| ${scenario.name} | ${transport} | ${s(m.wallMs)}${within} | ${s(m.workMs)} | ${s(m.busyMs)} | ${(m.wallMs / m.workMs).toFixed(2)} | ${(m.wallMs / m.busyMs).toFixed(2)} | ${m.requests} | ${m.summary.total} |\n`,
      );
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

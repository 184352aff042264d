#!/usr/bin/env node
/**
 * How close a full run comes to the limit, side by side with a baseline build
 * (commit fc0aa2f, the round's starting point), so every figure is a ratio
 * measured in one run on the same machine under the same load. Each scenario
 * is the CLI run as a user runs it (its own process, the reference server's
 * config file), against the current reference server started with
 * --busy-log, which records every request it received and the time it spent
 * on each (latency included). Both builds test the same server.
 *
 *   wall      the CLI process, from start to exit
 *   reported  the run's own duration (the JSON report's durationMs)
 *   busy      the time the server had at least one request in hand (union of intervals,
 *             over every server process of the run)
 *   waits     the sum of the waits the run sat out to their deadline (current build only:
 *             MCP_CONFORMANCE_WAIT_LOG, see harness/waits.ts)
 *   first     CLI start to the server's first request
 *   exit      the summary line printed to the CLI's exit
 *
 * Scenarios: the reference (stdio, HTTP); over HTTP the slow listen variants
 * (--behave json-listen: the listen answered 200 application/json, a body that
 * never arrives; --behave newline-json-listen: the listen answered as lines of
 * JSON under application/json), which must end within 1.2x the reference's
 * wall time with no timeout wait; and --behave silent-call (tools/call never
 * answered: the waits only time can show), current build only.
 *
 *   node bench/speed.js [--repeat N] [--no-baseline] [--skip scenario,...]
 *
 * The baseline is a git worktree of fc0aa2f in the temp folder, with its own
 * copy of node_modules and its dist built (made once, then reused). Figures
 * vary with the machine and its load; they are measured here, never asserted
 * in tests.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = join(ROOT, 'fixtures/servers/reference/server.js');
const CONFIG = join(ROOT, 'fixtures/reference.config.yaml');
const TIMEOUT_MS = 10_000;
export const BASELINE = 'fc0aa2f';

/**
 * @typedef {{ name: string, server: string[], transports: string[], currentOnly?: boolean }} Scenario
 * @typedef {{ wallMs: number, durationMs: number, busyMs: number, waitsMs: number | undefined, firstMs: number, exitMs: number, requests: number, processes: number, fail: number }} Measurement
 */

/** @type {Scenario[]} */
export const SCENARIOS = [
  { name: 'reference', server: [], transports: ['stdio', 'http'] },
  { name: 'json-listen', server: ['--behave', 'json-listen'], transports: ['http'] },
  { name: 'newline-json-listen', server: ['--behave', 'newline-json-listen'], transports: ['http'] },
  { name: 'silent-call', server: ['--behave', 'silent-call'], transports: ['stdio', 'http'], currentOnly: true },
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

/** The baseline build's folder: a worktree of BASELINE with a copy of node_modules and dist built (made once). */
export function baselineRoot() {
  const dir = join(tmpdir(), `mcp-conformance-bench-${BASELINE}`);
  if (existsSync(join(dir, 'dist/cli/worker.js'))) return dir;
  if (!existsSync(join(dir, 'package.json'))) {
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, BASELINE], { cwd: ROOT, stdio: 'ignore' });
  }
  // A copy, not a link: the baseline resolves its own dependencies.
  if (!existsSync(join(dir, 'node_modules'))) cpSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), { recursive: true });
  execFileSync(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

/** Lines of a JSON-lines file (none when it does not exist). @param {string} file */
function jsonLines(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * The CLI's arguments for one scenario over one transport.
 * @param {string} root the build's folder
 * @param {string} dir the run's temp folder
 * @param {Scenario} scenario
 * @param {string} transport
 */
async function cliArgs(root, dir, scenario, transport) {
  const server = ['node', REFERENCE, ...scenario.server, '--busy-log', join(dir, 'busy.jsonl')];
  const args = [join(root, 'bin/mcp-conformance.js'), '--config', CONFIG, '--no-color', '--timeout', String(TIMEOUT_MS)];
  args.push('--json', join(dir, 'r.json'), '--junit', join(dir, 'r.xml'), '--html', join(dir, 'r.html'));
  if (transport === 'stdio') return [...args, '--server', server.join(' ')];
  const port = await freePort();
  return [...args, '--server', [...server, '--http', String(port)].join(' '), '--url', `http://127.0.0.1:${port}/mcp`];
}

/**
 * Run the CLI; resolves with its wall time and when the summary line was printed.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<{ started: number, ended: number, summaryAt: number | undefined }>}
 */
function runCli(args, env) {
  return new Promise((res) => {
    const started = Date.now();
    /** @type {number | undefined} */
    let summaryAt;
    let out = '';
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (summaryAt === undefined && out.includes('Summary:')) summaryAt = Date.now();
    });
    child.on('exit', () => res({ started, ended: Date.now(), summaryAt }));
  });
}

/**
 * One scenario over one transport with one build: the CLI's figures and the server's account.
 * @param {string} root
 * @param {Scenario} scenario
 * @param {string} transport
 * @returns {Promise<Measurement>}
 */
export async function measure(root, scenario, transport) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const waitLog = join(dir, 'waits.jsonl');
  const { started, ended, summaryAt } = await runCli(await cliArgs(root, dir, scenario, transport), {
    MCP_CONFORMANCE_WAIT_LOG: waitLog,
  });
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
  const lines = jsonLines(join(dir, 'busy.jsonl'));
  const waits = jsonLines(waitLog);
  rmSync(dir, { recursive: true, force: true });
  const firstRequest = Math.min(...lines.flatMap((l) => l.busy.map((/** @type {[number, number]} */ b) => b[0])));
  return {
    wallMs: ended - started,
    durationMs: report.durationMs,
    busyMs: unionMs(lines.flatMap((l) => l.busy)),
    waitsMs: root === ROOT ? waits.reduce((n, w) => n + w.ms, 0) : undefined,
    firstMs: Number.isFinite(firstRequest) ? firstRequest - started : NaN,
    exitMs: summaryAt === undefined ? NaN : ended - summaryAt,
    requests: lines.reduce((n, l) => n + l.requests, 0),
    processes: lines.length,
    fail: report.summary.fail,
  };
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The median of each figure over the measurements.
 * @param {Measurement[]} runs
 * @returns {Measurement}
 */
function medianOf(runs) {
  /** @type {Record<string, unknown>} */
  const out = { ...runs[0] };
  for (const key of Object.keys(out))
    if (typeof out[key] === 'number')
      out[key] = median(runs.map((r) => /** @type {number} */ (/** @type {Record<string, unknown>} */ (r)[key])));
  return /** @type {Measurement} */ (out);
}

const s = (/** @type {number | undefined} */ ms) => (ms === undefined || Number.isNaN(ms) ? '–' : (ms / 1000).toFixed(2));

/**
 * @param {string} build
 * @param {string} name
 * @param {string} transport
 * @param {Measurement} m
 */
function row(build, name, transport, m) {
  return `| ${build} | ${name} | ${transport} | ${s(m.wallMs)} | ${s(m.durationMs)} | ${(m.wallMs / m.durationMs).toFixed(2)} | ${s(m.busyMs)} | ${s(m.waitsMs)} | ${(m.wallMs / m.busyMs).toFixed(1)} | ${s(m.firstMs)} | ${s(m.exitMs)} | ${m.requests} | ${m.processes} | ${m.fail} |`;
}

/**
 * Every scenario with both builds, `repeat` rounds of all of them (so a change
 * of the machine's load spreads over every scenario alike); medians per row.
 */
/**
 * @param {string | undefined} baseline the baseline build's folder (none: current build only)
 * @param {number} repeat
 * @param {string[]} skip scenario names left out
 * @returns {Promise<Map<string, Measurement>>}
 */
async function table(baseline, repeat, skip) {
  /** @type {Array<{ key: string, build: string, root: string, scenario: Scenario, transport: string }>} */
  const cases = [];
  for (const scenario of SCENARIOS.filter((sc) => !skip.includes(sc.name))) {
    for (const transport of scenario.transports) {
      /** @type {Array<[string, string]>} */
      const builds = [
        ['current', ROOT],
        ...(baseline && !scenario.currentOnly ? [/** @type {[string, string]} */ ([BASELINE, baseline])] : []),
      ];
      for (const [build, root] of builds) cases.push({ key: `${build} ${scenario.name} ${transport}`, build, root, scenario, transport });
    }
  }
  /** @type {Map<string, Measurement[]>} */
  const runs = new Map(cases.map((c) => [c.key, []]));
  for (let i = 0; i < repeat; i++) for (const c of cases) runs.get(c.key)?.push(await measure(c.root, c.scenario, c.transport));
  /** @type {Map<string, Measurement>} */
  const results = new Map();
  for (const c of cases) {
    const m = medianOf(runs.get(c.key) ?? []);
    results.set(c.key, m);
    process.stdout.write(`${row(c.build, c.scenario.name, c.transport, m)}\n`);
  }
  return results;
}

/**
 * The ratios the goals are stated in.
 * @param {Map<string, Measurement>} results
 */
function goals(results) {
  const get = (/** @type {string} */ key) => results.get(key);
  const ref = get('current reference http');
  const lines = [];
  for (const name of ['json-listen', 'newline-json-listen']) {
    const m = get(`current ${name} http`);
    if (m && ref)
      lines.push(
        `- ${name} over HTTP: wall ${(m.wallMs / ref.wallMs).toFixed(2)}× the reference's (goal ≤ 1.2), waits sat out ${s(m.waitsMs)} s`,
      );
  }
  for (const t of ['stdio', 'http']) {
    const m = get(`current reference ${t}`);
    if (m) lines.push(`- reference over ${t}: wall ${(m.wallMs / m.durationMs).toFixed(2)}× the reported duration (goal ≤ 1.2)`);
  }
  for (const t of ['stdio', 'http']) {
    const cur = get(`current reference ${t}`);
    const base = get(`${BASELINE} reference ${t}`);
    if (cur && base)
      lines.push(
        `- reference over ${t}: reported duration ${(cur.durationMs / base.durationMs).toFixed(2)}× ${BASELINE}'s, wall ${(cur.wallMs / base.wallMs).toFixed(2)}×${t === 'stdio' ? ' (goal: duration ≤ 0.5)' : ''}`,
      );
  }
  return lines.join('\n');
}

export async function main(argv = process.argv.slice(2)) {
  const at = argv.indexOf('--repeat');
  const repeat = at === -1 ? 1 : Math.max(1, Number(argv[at + 1]) || 1);
  const baseline = argv.includes('--no-baseline') ? undefined : baselineRoot();
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  process.stdout.write(
    `Full runs against the reference server (--timeout ${TIMEOUT_MS} ms, default --jobs, median of ${repeat}; load average ${load})\n\n`,
  );
  process.stdout.write(
    '| build | scenario | transport | wall s | reported s | wall/reported | busy s | waits s | wall/busy | first request s | summary→exit s | requests | processes | fail |\n',
  );
  process.stdout.write('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n');
  const skipAt = argv.indexOf('--skip');
  const results = await table(baseline, repeat, skipAt === -1 ? [] : argv[skipAt + 1].split(','));
  process.stdout.write(`\n${goals(results)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

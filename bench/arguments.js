/**
 * Benchmark section: the generated tools/call checks (tools-call/*) against
 * the reference server, in calls per second.
 *
 *   node bench/arguments.js        (after `npm run build`)
 *
 * Each case runs only the tools-call checks with a fixed seed and the default
 * budget, and reports how many requests the argument suite sent (tools/call
 * plus the tools/list follow-ups after invalid calls), how long the checks
 * took, and the rate. "20 tools" is the reference server grown to 20 tools
 * with --extra-tools, every tool allowed valid calls: the size the default
 * budget is chosen for. Figures are measurements of this machine, never
 * asserted anywhere.
 */
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { DEFAULTS, runConformance } from '../dist/engine/run.js';
import { loadConfig } from '../dist/engine/config.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(ROOT, 'fixtures/servers/reference/server.js');
const SEED = 20260728;

async function freePort() {
  const srv = net.createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * One measured run of the tools-call checks.
 * @param {{ transport: string, extraTools?: number, allowSideEffects?: boolean }} scenario
 */
async function measure({ transport, extraTools = 0, allowSideEffects = false }) {
  const args = extraTools ? ` --extra-tools ${extraTools}` : '';
  const config = loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config;
  const common = { checks: ['tools-call/*'], seed: SEED, config, allowSideEffects };
  let options;
  if (transport === 'stdio') options = { command: `node ${SERVER}${args}`, ...common };
  else {
    const port = await freePort();
    options = { command: `node ${SERVER} --http ${port}${args}`, url: `http://127.0.0.1:${port}/mcp`, ...common };
  }
  const run = await runConformance(options);
  if (run.aborted) throw new Error(`run aborted: ${run.aborted}`);
  const last = run.checks.find((c) => c.id === 'tools-call/error-response')?.results[0]?.details ?? {};
  const calls = Number(last['tools/call requests'] ?? 0);
  const followUps = Number(last['follow-up tools/list requests'] ?? 0);
  const ms = run.checks.reduce((sum, c) => sum + c.results.reduce((a, r) => a + r.durationMs, 0), 0);
  const tools = run.checks.find((c) => c.id === 'tools-call/invalid-rejected')?.results.length ?? 0;
  return { tools, calls, followUps, seconds: ms / 1000, rate: (calls + followUps) / (ms / 1000), failed: run.summary.fail };
}

export async function run() {
  const cases = [
    { label: 'reference, stdio', transport: 'stdio' },
    { label: 'reference, HTTP', transport: 'http' },
    { label: '20 tools, stdio, all callable', transport: 'stdio', extraTools: 6, allowSideEffects: true },
  ];
  // One unreported run first: module loading, JIT and schema compilation are not the suite's rate.
  await measure(cases[0]);
  const rows = [];
  for (const c of cases) rows.push({ label: c.label, ...(await measure(c)) });
  const lines = [
    `tools-call checks, default budget (--runs ${DEFAULTS.runs}), seed ${SEED}`,
    'case                                tools  tools/call  follow-ups   seconds   requests/s',
    ...rows.map(
      (r) =>
        `${r.label.padEnd(36)}${String(r.tools).padStart(5)}${String(r.calls).padStart(12)}${String(r.followUps).padStart(12)}` +
        `${r.seconds.toFixed(2).padStart(10)}${r.rate.toFixed(0).padStart(13)}${r.failed ? `  (${r.failed} failed!)` : ''}`,
    ),
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${await run()}\n`);
}

#!/usr/bin/env node
/**
 * `npm run bench`: the cursor walk (below), the tools-call throughput
 * (bench/arguments.js) and full runs against the server's own time
 * (bench/speed.js: wall, reported duration, busy time, waits sat out, start and exit, side by
 * side with a baseline build of fc0aa2f).
 *
 * Performance of the cursor walk: a full tools/list walk of 100, 1,000 and
 * 5,000 tools in pages of 50, over stdio, against the reference server.
 * Prints pages per second and the suite process's peak memory.
 *
 *   npm run bench        (builds, then runs this script)
 *
 * Each list size runs in its own Node process (so peaks do not mix), started
 * with --expose-gc: one warm-up run (modules loaded, protocol schema
 * compiled), a collected baseline, then the measured runs. Each run is the
 * engine with one check, tools-list/result-schema, which is one full walk;
 * the walk time is that check's duration. Then one more walk through the
 * harness itself, held on to after a garbage collection: what the walk and the
 * session's wire log retain, next to the size of the pages on the wire.
 * Figures vary with the machine and its load; they are measured here, never
 * asserted in tests.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = join(ROOT, 'fixtures/servers/reference/server.js');
const SIZES = [100, 1000, 5000];
const PAGE_SIZE = 50;
const RUNS = 3;

const MiB = 1024 * 1024;
/** A full collection; the child runs with --expose-gc, which defines globalThis.gc. */
const gc = () => {
  if (!globalThis.gc) throw new Error('the measuring child runs with --expose-gc');
  globalThis.gc();
};
const mib = (/** @type {number} */ bytes) => (bytes / MiB).toFixed(2);

async function engine() {
  try {
    return await import(pathToFileURL(join(ROOT, 'dist/engine/run.js')).href);
  } catch {
    process.stderr.write('dist/ is missing: run "npm run build" first (npm run bench does)\n');
    process.exit(2);
  }
}

/** Tools the reference server lists without generated ones. */
async function baseToolCount() {
  const { buildCatalogue } = await import(pathToFileURL(join(ROOT, 'fixtures/servers/reference/tools.js')).href);
  return buildCatalogue({ extraTools: 0 }).length;
}

/**
 * One size, in this process: the measured figures as JSON on stdout.
 * @param {number} tools
 */
async function child(tools) {
  const { runConformance } = await engine();
  const extra = tools - (await baseToolCount());
  const walk = async () => {
    const run = await runConformance({
      command: ['node', REFERENCE, '--page-size', String(PAGE_SIZE), '--extra-tools', String(extra)].join(' '),
      checks: ['tools-list/result-schema'],
      requestTimeoutMs: 30_000,
    });
    const r = run.checks[0]?.results[0];
    if (!r || r.verdict !== 'pass') throw new Error(`the walk did not pass: ${JSON.stringify(r)}`);
    return { ms: r.durationMs, pages: r.details.pages, items: r.details.tools };
  };

  await walk(); // warm-up
  gc();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(sample, 1);
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await walk());
  clearInterval(timer);
  sample();
  const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
  const { wireBytes, retained } = await retainedByWalk(extra);
  const out = {
    tools: best.items,
    pages: best.pages,
    ms: best.ms,
    wireBytes,
    retained,
    peakHeapGrowth: peakHeap - base.heapUsed,
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/**
 * One walk through the harness, kept: heap it retains (walk + wire log) and the pages' size on the wire.
 * @param {number} extra
 */
async function retainedByWalk(extra) {
  const dist = (/** @type {string} */ path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const [{ Target }, { Redactor }, { ProtocolSchema }, { walkList }] = await Promise.all([
    dist('harness/target.js'),
    dist('harness/redact.js'),
    dist('harness/schema.js'),
    dist('harness/walk.js'),
  ]);
  const target = await Target.open({
    command: ['node', REFERENCE, '--page-size', String(PAGE_SIZE), '--extra-tools', String(extra)].join(' '),
    headers: {},
    env: {},
    revision: '2026-07-28',
    schema: ProtocolSchema.load('2026-07-28'),
    redactor: new Redactor(),
    requestTimeoutMs: 30_000,
    maxMessageBytes: 8 * MiB,
    startupTimeoutMs: 15_000,
    shutdownGraceMs: 2_000,
    clock: () => 0,
  });
  try {
    const session = await target.connect();
    await session.request('server/discover');
    gc();
    const before = process.memoryUsage().heapUsed;
    const walk = await walkList(session, 'tools/list', 'tools');
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    /** @type {(n: number, ex: { frames: { dir: string, text: string }[] }) => number} */
    const inBytes = (n, ex) => n + ex.frames.filter((f) => f.dir === 'in').reduce((m, f) => m + f.text.length, 0);
    const wireBytes = walk.pages.reduce(inBytes, 0);
    if (walk.items.length === 0) throw new Error('empty walk');
    return { wireBytes, retained };
  } finally {
    await target.close();
  }
}

/**
 * @typedef {{ tools: number, pages: number, ms: number, wireBytes: number, retained: number, peakHeapGrowth: number, maxRss: number }} Row
 * @param {Row[]} rows
 */
function table(rows) {
  const head = [
    'tools',
    'pages',
    'walk ms',
    'pages/s',
    'ms/page',
    'pages on the wire MiB',
    'retained by walk + wire log MiB',
    'peak heap growth MiB',
    'peak RSS MiB',
  ];
  const body = rows.map((r) => [
    r.tools,
    r.pages,
    r.ms,
    Math.round((r.pages / r.ms) * 1000),
    (r.ms / r.pages).toFixed(2),
    mib(r.wireBytes),
    mib(r.retained),
    mib(r.peakHeapGrowth),
    mib(r.maxRss),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (/** @type {(string | number)[]} */ cells) => `| ${cells.map((c, i) => String(c).padStart(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => `${'-'.repeat(w + 1)}:`).join('|')}|`, ...body.map(line)].join('\n');
}

async function main() {
  await engine();
  const rows = [];
  for (const tools of SIZES) {
    const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', String(tools)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    rows.push(JSON.parse(out.trim().split('\n').pop() ?? ''));
  }
  process.stdout.write(`tools/list walk over stdio, pages of ${PAGE_SIZE}, best of ${RUNS} runs (Node ${process.version})\n`);
  process.stdout.write(`${table(rows)}\n`);
  // The generated tools/call suite's throughput (bench/arguments.js).
  const { run: argumentsBench } = await import('./arguments.js');
  process.stdout.write(`\n${await argumentsBench()}\n`);
  // Full runs against the limit: the server's own time (bench/speed.js).
  process.stdout.write('\n');
  const { main: speedBench } = await import('./speed.js');
  await speedBench();
}

const i = process.argv.indexOf('--child');
if (i !== -1) await child(Number(process.argv[i + 1]));
else await main();

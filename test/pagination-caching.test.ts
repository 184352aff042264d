/**
 * The pagination and caching suites beyond the kill matrix: the walker on
 * scripted cursor chains (cycles, the page bound, every fate of an
 * empty-string cursor), the reference server's default mode and a 5,000-tool
 * list, each ttlMs defect named in the findings, and the schema set-aside.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { runConformance } from '../engine/run.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Session } from '../harness/session.js';
import type { SendInfo, Transport, TransportSink } from '../harness/transport.js';
import { walkList } from '../harness/walk.js';
import type { CheckResult, RunResult } from '../model/results.js';
import { describeRun, referenceCommand, ROOT, tempDir } from './helpers.js';
// @ts-expect-error -- the reference server is plain JavaScript without type declarations
import { buildCatalogue } from '../fixtures/servers/reference/tools.js';

const config = loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config;

/** A list server in a function: answers each tools/list request from the cursor it carries. */
class ListTransport implements Transport {
  readonly kind = 'stdio' as const;
  sink!: TransportSink;
  constructor(private readonly page: (cursor: string | undefined) => Record<string, unknown>) {}
  async start(sink: TransportSink) {
    this.sink = sink;
  }
  async send(text: string, _info: SendInfo) {
    const m = JSON.parse(text) as { id: number | string; params: { cursor?: string } };
    const answer = this.page(m.params.cursor);
    const reply = 'code' in answer ? { jsonrpc: '2.0', id: m.id, error: answer } : { jsonrpc: '2.0', id: m.id, result: answer };
    queueMicrotask(() => this.sink.message(JSON.stringify(reply)));
    return {};
  }
  async close() {}
}

async function walkScripted(page: (cursor: string | undefined) => Record<string, unknown>, maxPages?: number) {
  const s = new Session(new ListTransport(page), {
    connection: 1,
    revision: '2026-07-28',
    redactor: new Redactor(),
    schema: ProtocolSchema.load('2026-07-28'),
    requestTimeoutMs: 2000,
    clock: () => 0,
  });
  await s.start();
  return walkList(s, 'tools/list', 'tools', { maxPages });
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const page = (names: string[], nextCursor?: string) => ({
  resultType: 'complete',
  tools: names.map(tool),
  ttlMs: 0,
  cacheScope: 'public',
  ...(nextCursor === undefined ? {} : { nextCursor }),
});
const names = (items: Array<Record<string, unknown>>) => items.map((i) => i.name);

describe('walkList', () => {
  it('follows every cursor, "" included, and records the cursor of each page', async () => {
    const walk = await walkScripted((c) => (c === undefined ? page(['a'], '') : c === '' ? page(['b'], 'x') : page(['c'])));
    expect(walk.exhausted).toBe(true);
    expect(walk.problem).toBeUndefined();
    expect(walk.cursors).toEqual([undefined, '', 'x']);
    expect(names(walk.items)).toEqual(['a', 'b', 'c']);
    expect(walk.emptyCursor).toMatchObject({ issuedBy: 0, outcome: 'continued' });
  });

  it('stops at a cursor seen before and names the page it belongs to', async () => {
    const walk = await walkScripted((c) => (c === undefined ? page(['a'], 'p2') : c === 'p2' ? page(['b'], 'p3') : page(['c'], 'p2')));
    expect(walk.problem?.kind).toBe('cycle');
    expect(walk.problem?.detail).toBe('page 3 gives nextCursor "p2", the cursor of page 2: the chain loops');
    expect(walk.exhausted).toBe(true);
    expect(names(walk.items)).toEqual(['a', 'b', 'c']);
  });

  it('gives up past the page bound on an endless chain of new cursors', async () => {
    let n = 0;
    const walk = await walkScripted(() => page([`t${++n}`], `c${n}`), 25);
    expect(walk.problem?.kind).toBe('page-limit');
    expect(walk.pages).toHaveLength(25);
    expect(walk.exhausted).toBe(false);
  });

  it('ends on "" that leads back to the first page, without taking its items twice', async () => {
    const walk = await walkScripted((c) =>
      c === undefined || c === '' ? page(['a', 'b'], c === undefined ? 'p2' : 'p2') : page(['c'], ''),
    );
    expect(walk.emptyCursor).toMatchObject({ issuedBy: 1, outcome: 'restarted' });
    expect(walk.problem?.kind).toBe('empty-cursor');
    expect(walk.exhausted).toBe(true);
    expect(names(walk.items)).toEqual(['a', 'b', 'c']);
    expect(walk.pages).toHaveLength(2);
  });

  it('ends on "" the server then refuses', async () => {
    const walk = await walkScripted((c) => (c === undefined ? page(['a'], '') : { code: -32602, message: 'invalid cursor' }));
    expect(walk.emptyCursor?.outcome).toBe('error');
    expect(walk.problem?.kind).toBe('empty-cursor');
    expect(walk.pages).toHaveLength(1);
  });

  it('is not exhausted when a page is an error', async () => {
    const walk = await walkScripted((c) => (c === undefined ? page(['a'], 'p2') : { code: -32603, message: 'boom' }));
    expect(walk.problem?.kind).toBe('error');
    expect(walk.exhausted).toBe(false);
  });
});

function check(run: RunResult, id: string): CheckResult {
  const c = run.checks.find((x) => x.id === id);
  if (!c) throw new Error(`${id} did not run`);
  return c;
}

const OURS = ['pagination/*', 'caching/*'];

describe('pagination and caching against the reference server', () => {
  it('default mode (no "" cursor): the empty-cursor checks skip with a reason, everything else passes', async () => {
    const run = await runConformance({ command: referenceCommand(), checks: OURS, config, requestTimeoutMs: 5000 });
    const info = describeRun(run);
    expect(run.exitCode, info).toBe(0);
    for (const c of run.checks) {
      for (const r of c.results) {
        if (c.id.endsWith('-empty-cursor')) {
          expect(r.verdict, info).toBe('skip');
          expect(r.reason).toMatch(/no empty-string nextCursor/);
        } else expect(r.verdict, `${c.id}: ${info}`).toBe('pass');
      }
    }
    // Observed TTLs per page are in the details.
    const ttl = check(run, 'caching/ttl-ms').results[0]!.details!.ttlMs as Record<string, unknown>;
    expect(ttl['server/discover']).toBe(60000);
    const pages = check(run, 'pagination/tools-stable-cursors').results[0]!.details!.pages as number;
    expect(pages).toBeGreaterThan(1);
    expect(Object.values(ttl['tools/list'] as object)).toEqual(Array(pages).fill(60000));
    expect(Object.keys(ttl['resources/read'] as object)).toContain('file:///reference/README.txt');
  });

  it('walks 5,000 tools in pages of 50 over stdio', async () => {
    const run = await runConformance({
      command: referenceCommand('--page-size', '50', '--extra-tools', String(5000 - buildCatalogue({ extraTools: 0 }).length)),
      checks: ['pagination/tools-*', 'caching/*'],
      config,
      requestTimeoutMs: 10_000,
    });
    const info = describeRun(run);
    expect(run.exitCode, info).toBe(0);
    const ends = check(run, 'pagination/tools-stable-cursors').results[0]!;
    expect(ends.verdict).toBe('pass');
    // 5,000 catalogue tools, plus the few the server adds at start-up.
    const { pages, items } = ends.details as { pages: number; items: number };
    expect(items).toBeGreaterThanOrEqual(5000);
    expect(items).toBeLessThan(5050);
    expect(pages).toBe(Math.ceil(items / 50));
    expect(check(run, 'pagination/tools-stable-cursors').results[0]!.details).toMatchObject({ 'cursors re-fetched': pages - 1 });
    const ttl = check(run, 'caching/ttl-ms').results[0]!.details!.ttlMs as Record<string, Record<string, number>>;
    expect(Object.keys(ttl['tools/list']!)).toHaveLength(pages);
  });

  // No keyword sentence makes a long chain the server's defect (--max-pages is the suite's bound): not observed, with the reason.
  it('a chain longer than --max-pages leaves the checks that need the whole list not observed, naming the bound', async () => {
    const run = await runConformance({
      command: referenceCommand(),
      checks: ['pagination/tools-stable-cursors'],
      maxPages: 2,
      requestTimeoutMs: 5000,
    });
    const r = check(run, 'pagination/tools-stable-cursors').results[0]!;
    expect(r.verdict).toBe('not-observed');
    expect(r.reason).toMatch(/longer than 2 pages/);
  });

  it('caching/ttl-ms names every kind of bad ttlMs: missing, non-integer, negative', async () => {
    const run = await runConformance({
      command: referenceCommand('--break', 'caching/ttl-ms'),
      checks: ['caching/ttl-ms'],
      requestTimeoutMs: 5000,
    });
    const actual = check(run, 'caching/ttl-ms')
      .results[0]!.findings.map((f) => f.actual)
      .join('\n');
    expect(actual).toMatch(/resources\/list page 1: ttlMs is missing/);
    expect(actual).toMatch(/prompts\/list page 1: ttlMs 1\.5 is not an integer >= 0/);
    expect(actual).toMatch(/resources\/read file:\/\/\/reference\/README\.txt: ttlMs -1 is not an integer >= 0/);
  });

  it('without the caching checks, a missing hint is still a schema finding', async () => {
    const run = await runConformance({
      command: referenceCommand('--break', 'caching/cache-scope'),
      checks: ['discover/result'],
      requestTimeoutMs: 5000,
    });
    const r = check(run, 'discover/result').results[0]!;
    expect(r.verdict).toBe('fail');
    expect(r.findings[0]!.actual).toMatch(/cacheScope/);
  });
});

/** A one-page resources server without resource templates, as a stdio script. */
const SMALL_SERVER = `
import { createInterface } from 'node:readline';
const hints = { ttlMs: 1000, cacheScope: 'public' };
const meta = { 'io.modelcontextprotocol/serverInfo': { name: 'small', version: '1' } };
const results = {
  'server/discover': { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { resources: {} }, ...hints, _meta: meta },
  'resources/list': { resultType: 'complete', resources: [{ uri: 'file:///a.txt', name: 'a.txt' }], ...hints, _meta: meta },
  'resources/read': { resultType: 'complete', contents: [{ uri: 'file:///a.txt', text: 'a' }], ...hints, _meta: meta },
};
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.params?.cursor !== undefined && process.argv[2] === 'crash-on-cursor') process.exit(1);
  const result = m.params?.cursor !== undefined ? undefined : results[m.method];
  const error = m.params?.cursor !== undefined ? { code: -32602, message: 'invalid cursor' } : { code: -32601, message: 'Method not found' };
  process.stdout.write(JSON.stringify(result ? { jsonrpc: '2.0', id: m.id, result } : { jsonrpc: '2.0', id: m.id, error }) + '\\n');
});
`;

describe('a server with one page of resources and no resource templates', () => {
  it('skips what does not apply, with the reason, and passes the rest', async () => {
    const file = join(tempDir(), 'small.mjs');
    writeFileSync(file, SMALL_SERVER);
    const run = await runConformance({ command: `node ${file}`, checks: OURS, requestTimeoutMs: 5000 });
    const verdicts = Object.fromEntries(
      run.checks.map((c) => [c.id, `${c.results[0]!.verdict}${c.results[0]!.reason ? `: ${c.results[0]!.reason}` : ''}`]),
    );
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(verdicts).toMatchObject({
      'pagination/tools-stable-cursors': expect.stringMatching(/^skip: .*tools capability/),
      'pagination/prompts-invalid-cursor': expect.stringMatching(/^skip: .*prompts capability/),
      'pagination/resources-stable-cursors': expect.stringMatching(/^skip: resources\/list fits on one page/),
      'pagination/resources-empty-cursor': expect.stringMatching(/^skip: the server gave no empty-string nextCursor/),
      'pagination/resources-invalid-cursor': 'pass',
      'pagination/resource-templates-stable-cursors': expect.stringMatching(/^skip: .*-32601: it offers no resource templates/),
      'pagination/resource-templates-invalid-cursor': expect.stringMatching(/^skip: .*-32601/),
      'caching/ttl-ms': 'pass',
      'caching/cache-scope': 'pass',
      'caching/scope-across-pages': expect.stringMatching(/^skip: no list the server declares spans more than one page/),
    });
  });
});

describe('a server that crashes on a cursor it never issued', () => {
  it('breaks the SHOULD of pagination/<list>-invalid-cursor: a warning that says there was no answer', async () => {
    const file = join(tempDir(), 'small.mjs');
    writeFileSync(file, SMALL_SERVER);
    const run = await runConformance({
      command: `node ${file} crash-on-cursor`,
      checks: ['pagination/resources-invalid-cursor'],
      requestTimeoutMs: 5000,
    });
    const r = check(run, 'pagination/resources-invalid-cursor').results[0]!;
    expect(r.verdict, describeRun(run)).toBe('warn');
    expect(r.findings[0]!.actual).toMatch(/^no answer: /);
    expect(r.findings[0]!.wire.length).toBeGreaterThan(0);
  });
});

describe('schema set-aside', () => {
  it('validates a result as if the set-aside fields were neither declared nor required', () => {
    const full = ProtocolSchema.load('2026-07-28');
    const aside = ProtocolSchema.load('2026-07-28', undefined, { setAside: ['ttlMs', 'cacheScope'] });
    const result = { resultType: 'complete', tools: [], ttlMs: -5 };
    expect(full.validate('ListToolsResult', result).length).toBeGreaterThan(0);
    expect(aside.validate('ListToolsResult', result)).toEqual([]);
    expect(aside.validate('ListToolsResult', { resultType: 'complete' })).not.toEqual([]);
  });
});

/**
 * The suite against real servers built with the official SDKs: the
 * `@modelcontextprotocol/server-everything` server (1.x SDK, legacy, over
 * stdio and its Streamable HTTP mode) and the fixtures written on the 2.x
 * SDK (`fixtures/servers/sdk2`, dual-era, stdio and HTTP). Every per-check
 * verdict is compared with the expected-verdict file committed beside this
 * test (`test/expected/<target>.json`, check id → verdict); a difference
 * fails with a diff. `UPDATE_EXPECTED=1` rewrites the files (review the diff
 * before committing it). Installed packages only: no network, no npx.
 *
 * `@modelcontextprotocol/server-memory` and `server-filesystem` (1.x SDK,
 * legacy, stdio) run against a temporary folder, so the suite's calls touch
 * nothing else. Every server-everything run names its slow tool and its
 * capability tool (an inline configuration), so cancellation and the
 * negotiated-capability checks judge it instead of not observing; each
 * server's run also carries the example calls (fixtures) its author would
 * write, proving the configuration's own rules on 2025-11-25 servers.
 *
 * It also proves the legacy session on those servers: list changes
 * received, server-initiated requests answered during a call and on the
 * HTTP GET stream.
 */
import { readFileSync, writeFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance, type RunOptions } from '../engine/run.js';
import { legacyHandshake, SAMPLING_TEXT } from '../harness/legacy.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import type { Session } from '../harness/session.js';
import { Target } from '../harness/target.js';
import { overallVerdict } from '../render/text.js';
import type { RunResult, Verdict } from '../model/results.js';
import { describeRun, freePort, ROOT, tempDir } from './helpers.js';
import type { JsonObject } from '../model/json.js';
import type { Config } from '../model/config.js';

const require = createRequire(import.meta.url);
/** The file a package's `bin` entry names. */
function binOf(pkg: string, bin: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  return join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin[bin]!);
}
const EVERYTHING = binOf('@modelcontextprotocol/server-everything', 'mcp-server-everything');
const MEMORY = binOf('@modelcontextprotocol/server-memory', 'mcp-server-memory');
const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem');

/**
 * What server-everything's author would write in its configuration file: a
 * call that stays in flight (one step of one second), a tool that needs
 * the client's elicitation capability, and its task-capable tool (a research
 * query of four one-second stages, run as a task).
 */
const EVERYTHING_CONFIG: Config = {
  taskTool: { name: 'simulate-research-query', arguments: { topic: 'conformance' } },
  slowTool: { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 1 } },
  capabilityTool: { name: 'trigger-elicitation-request', arguments: {}, requires: ['elicitation'] },
  // Two example calls with the answers the tools document (the fixtures checks judge them in the legacy era too).
  fixtures: {
    echo: { calls: [{ arguments: { message: 'hello fixtures' }, expect: { outcome: 'complete', content: ['hello fixtures'] } }] },
    'get-sum': { calls: [{ arguments: { a: 2, b: 3 }, expect: { outcome: 'complete', content: ['5'] } }] },
  },
};
/** server-memory's author's example call: the (empty) knowledge graph is read back. */
const MEMORY_CONFIG: Config = {
  fixtures: { read_graph: { calls: [{ arguments: {}, expect: { outcome: 'complete', content: ['entities'] } }] } },
};
/** server-filesystem's author's example call: the folder it was started on is the allowed one. */
const filesystemConfig = (dir: string): Config => ({
  fixtures: { list_allowed_directories: { calls: [{ arguments: {}, expect: { outcome: 'complete', content: [dir] } }] } },
});
const SDK2 = join(ROOT, 'fixtures/servers/sdk2');
const EXPECTED = join(ROOT, 'test/expected');

type Verdicts = Record<string, Verdict>;

function verdicts(run: RunResult): Verdicts {
  return Object.fromEntries(run.checks.map((c) => [c.id, overallVerdict(c.results)]));
}

/** What differs between the expected and the actual verdicts, one line each, with the first finding or reason. */
function diff(expected: Verdicts, run: RunResult): string[] {
  const actual = verdicts(run);
  const lines: string[] = [];
  for (const id of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (expected[id] === actual[id]) continue;
    const check = run.checks.find((c) => c.id === id);
    const why = check?.results.find((r) => r.findings.length || r.reason);
    const detail = why ? ` — ${why.findings[0]?.actual ?? why.reason}` : '';
    lines.push(`${id}: expected ${expected[id] ?? '(not in the file)'}, got ${actual[id] ?? '(not run)'}${detail}`);
  }
  return lines;
}

/** Compare one era's run with `test/expected/<name>.json` (or write it under UPDATE_EXPECTED=1). */
function compare(name: string, run: RunResult): void {
  expect(run.aborted, describeRun(run)).toBeUndefined();
  expect(run.harnessErrors, describeRun(run)).toEqual([]);
  const file = join(EXPECTED, `${name}.json`);
  if (process.env.UPDATE_EXPECTED === '1' || !existsSync(file)) {
    if (process.env.UPDATE_EXPECTED !== '1') throw new Error(`${file} is missing (run with UPDATE_EXPECTED=1 to write it)`);
    mkdirSync(EXPECTED, { recursive: true });
    writeFileSync(file, `${JSON.stringify(verdicts(run), null, 2)}\n`);
    return;
  }
  const expected = JSON.parse(readFileSync(file, 'utf8')) as Verdicts;
  const lines = diff(expected, run);
  expect(lines, `verdicts differ from test/expected/${name}.json:\n${lines.join('\n')}`).toEqual([]);
}

/** A fixed seed and a small budget: the generated tools/call checks send the same calls every run. */
const base: Partial<RunOptions> = { requestTimeoutMs: 10_000, seed: 20261130, runs: 5 };

async function httpRun(command: string, options: Partial<RunOptions> & { portEnv?: boolean } = {}): Promise<RunResult> {
  const port = await freePort();
  const { portEnv, ...rest } = options;
  return runConformance({
    ...base,
    command: portEnv ? command : `${command} ${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    ...(portEnv ? { env: { PORT: String(port) } } : {}),
    ...rest,
  });
}

describe('server-everything (1.x SDK, legacy)', () => {
  it('stdio: detected as legacy, verdicts as expected', async () => {
    const run = await runConformance({ ...base, command: `node ${EVERYTHING} stdio`, config: EVERYTHING_CONFIG });
    expect(run.era, describeRun(run)).toMatchObject({ era: 'legacy', how: 'detected', negotiatedVersion: '2025-11-25' });
    expect(run.server?.name).toBe('mcp-servers/everything');
    compare('everything-stdio', run);
  });

  it('Streamable HTTP: detected as legacy, verdicts as expected', async () => {
    const run = await httpRun(`node ${EVERYTHING} streamableHttp`, { portEnv: true, config: EVERYTHING_CONFIG });
    expect(run.era, describeRun(run)).toMatchObject({ era: 'legacy', how: 'detected' });
    compare('everything-http', run);
  });
});

describe('server-memory and server-filesystem (1.x SDK, legacy, stdio)', () => {
  it('server-memory, its knowledge graph in a temporary folder: detected as legacy, verdicts as expected', async () => {
    const dir = tempDir();
    try {
      const run = await runConformance({
        ...base,
        command: `node ${MEMORY}`,
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        cwd: dir,
        config: MEMORY_CONFIG,
      });
      expect(run.era, describeRun(run)).toMatchObject({ era: 'legacy', how: 'detected', negotiatedVersion: '2025-11-25' });
      expect(run.server?.name).toBe('memory-server');
      compare('memory-stdio', run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('server-filesystem, serving a temporary folder: detected as legacy, verdicts as expected', async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir, 'notes.txt'), 'a file for the conformance run\n');
      const run = await runConformance({ ...base, command: `node ${FILESYSTEM} ${dir}`, cwd: dir, config: filesystemConfig(dir) });
      expect(run.era, describeRun(run)).toMatchObject({ era: 'legacy', how: 'detected', negotiatedVersion: '2025-11-25' });
      expect(run.server?.name).toBe('secure-filesystem-server');
      compare('filesystem-stdio', run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('2.x SDK fixtures (dual-era)', () => {
  it('stdio, --spec all: both eras, verdicts as expected', async () => {
    const run = await runConformance({ ...base, command: `node ${join(SDK2, 'stdio.js')}`, spec: 'all' });
    expect(run.eras?.map((e) => e.era?.era)).toEqual(['modern', 'legacy']);
    compare('sdk2-stdio-modern', run.eras![0]!);
    compare('sdk2-stdio-legacy', run.eras![1]!);
  });

  it('stdio, paged catalogue: detected as modern, the cursor walk as expected', async () => {
    const run = await runConformance({ ...base, command: `node ${join(SDK2, 'stdio.js')} --paged` });
    expect(run.era).toMatchObject({ era: 'modern', how: 'detected' });
    // It answers initialize too: the header says the server is dual-era and names --spec all.
    expect(run.dualEra, describeRun(run)).toMatchObject({ tested: 'modern', other: 'legacy', hint: expect.stringContaining('--spec all') });
    const walk = run.checks.find((c) => c.id === 'tools-list/result-schema')!.results[0]!.details;
    expect(walk).toMatchObject({ pages: 3, tools: 25 });
    compare('sdk2-paged-stdio', run);
  });

  it('Streamable HTTP, --spec all: both eras (legacy served statelessly), verdicts as expected', async () => {
    const run = await httpRun(`node ${join(SDK2, 'http.js')}`, { spec: 'all' });
    expect(run.eras?.map((e) => e.era?.era)).toEqual(['modern', 'legacy']);
    compare('sdk2-http-modern', run.eras![0]!);
    compare('sdk2-http-legacy', run.eras![1]!);
  });
});

/**
 * The SDKs' own resource-server middleware (fixtures/servers/sdk-auth), run
 * with --auth: the suite starts its embedded issuer, the launched fixture
 * trusts it (MCP_CONFORMANCE_ISSUER), and the authorization checks judge it.
 * test/sdk-auth.test.ts pins what each answers on the wire; docs/findings.md
 * ("Authorization: the SDK middleware") reads the verdicts.
 */
describe('SDK resource-server middleware (authorization checks, embedded issuer)', () => {
  const SDK_AUTH = join(ROOT, 'fixtures/servers/sdk-auth');
  const auth: Partial<RunOptions> = { authorization: { embedded: true }, checks: ['authorization/*'] };

  it('1.x SDK (requireBearerAuth, mcpAuthMetadataRouter; legacy): verdicts as expected', async () => {
    const run = await httpRun(`node ${join(SDK_AUTH, 'v1.js')} --port`, { ...auth, spec: '2025-11-25' });
    expect(run.authorization, describeRun(run)).toMatchObject({ source: 'embedded' });
    compare('sdk-auth-v1-legacy', run);
  });

  it('2.x SDK (@modelcontextprotocol/express on createMcpHandler), --spec all: verdicts as expected', async () => {
    const run = await httpRun(`node ${join(SDK_AUTH, 'v2.js')} --port`, { ...auth, spec: 'all' });
    expect(run.eras?.map((e) => e.era?.era)).toEqual(['modern', 'legacy']);
    compare('sdk-auth-v2-modern', run.eras![0]!);
    compare('sdk-auth-v2-legacy', run.eras![1]!);
  });

  it("the middleware's default (expectedResource unset): the audience kinds are served, invalid-token fails", async () => {
    const v1 = await httpRun(`node ${join(SDK_AUTH, 'v1.js')} --no-expected-resource --port`, { ...auth, spec: '2025-11-25' });
    compare('sdk-auth-v1-default-legacy', v1);
    const v2 = await httpRun(`node ${join(SDK_AUTH, 'v2.js')} --no-expected-resource --port`, { ...auth, spec: '2026-07-28' });
    compare('sdk-auth-v2-default-modern', v2);
    // The three audience kinds, and nothing else, are the findings (each one served, HTTP 200).
    for (const run of [v1, v2]) {
      const findings = run.checks.find((c) => c.id === 'authorization/invalid-token')!.results.flatMap((r) => r.findings);
      expect(findings.map((f) => f.expected)).toEqual([
        expect.stringContaining('a token for another resource'),
        expect.stringContaining('a token without an aud claim'),
        expect.stringContaining('a token whose aud list names two other resources'),
      ]);
      for (const f of findings) expect(f.actual).toMatch(/^HTTP 200/);
    }
  });
});

/**
 * The share of applicable checks that were only not observed (RunResult.depth). The goal is at
 * most 10 % with no configuration file; what keeps each server above it is pinned here as a ratchet
 * (the count may only fall), and every remaining one is grouped by what would let it run: a key a
 * person must set (the tool it needs is held back, or none exists), or an event the server never sent.
 */
const NO_CONFIG_GOAL = 0.1;
const NO_CONFIG_MOST: Record<string, number> = { 'everything-stdio': 16, 'everything-http': 17, 'memory-stdio': 10, 'filesystem-stdio': 7 };

function depthReport(name: string, run: RunResult): void {
  const d = run.depth!;
  const only = d.notObserved.reduce((n, g) => n + g.checks.length, 0);
  expect(d.judged + only, describeRun(run)).toBe(d.applicable);
  const share = only / d.applicable;
  expect(
    only,
    `${name}: ${only} of ${d.applicable} applicable checks only not observed (${Math.round(share * 100)} %, goal ${NO_CONFIG_GOAL * 100} %): ${JSON.stringify(d.notObserved)}`,
  ).toBeLessThanOrEqual(NO_CONFIG_MOST[name]!);
}

/** The checks a run left not observed for want of a slowTool. */
function waitingOnSlowTool(run: RunResult): string[] {
  return run.depth!.notObserved.filter((g) => g.unlock === 'slowTool').flatMap((g) => g.checks);
}

describe('no configuration file (what a server author sees first)', () => {
  it('server-everything stdio: its read-only long-running tool found as the slow call, verdicts as expected', async () => {
    const run = await runConformance({ ...base, command: `node ${EVERYTHING} stdio` });
    expect(
      run.triggers?.map((c) => [c.key, c.tool]),
      describeRun(run),
    ).toEqual([['slowTool', 'trigger-long-running-operation']]);
    compare('everything-stdio-noconfig', run);
    depthReport('everything-stdio', run);
    // What a found slow call serves is judged; only cancelling needs a call that stays in flight, and none of the
    // generated calls did (a call that ends at once would make the cancellation's verdict a matter of timing).
    expect(waitingOnSlowTool(run)).toEqual(['cancellation/cancelled-not-answered']);
  });

  it('server-everything Streamable HTTP: verdicts as expected', async () => {
    const run = await httpRun(`node ${EVERYTHING} streamableHttp`, { portEnv: true });
    expect(
      run.triggers?.map((c) => c.tool),
      describeRun(run),
    ).toEqual(['trigger-long-running-operation']);
    compare('everything-http-noconfig', run);
    depthReport('everything-http', run);
    expect(waitingOnSlowTool(run)).toEqual(['cancellation/cancelled-not-answered']);
  });

  it('server-memory, in a temporary folder: verdicts as expected', async () => {
    const dir = tempDir();
    try {
      const run = await runConformance({
        ...base,
        command: `node ${MEMORY}`,
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        cwd: dir,
      });
      compare('memory-stdio-noconfig', run);
      depthReport('memory-stdio', run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('server-filesystem, serving a temporary folder: verdicts as expected', async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir, 'notes.txt'), 'a file for the conformance run\n');
      const run = await runConformance({ ...base, command: `node ${FILESYSTEM} ${dir}`, cwd: dir });
      compare('filesystem-stdio-noconfig', run);
      depthReport('filesystem-stdio', run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A legacy connection to a real server, with waiters registered before the handshake. */
async function legacySession(command: string, url?: string, env: Record<string, string> = {}) {
  const target = await Target.open({
    command,
    url,
    headers: {},
    env,
    revision: '2026-07-28',
    schema: ProtocolSchema.load('2026-07-28'),
    redactor: new Redactor(),
    requestTimeoutMs: 10_000,
    maxMessageBytes: 8 << 20,
    startupTimeoutMs: 15_000,
    shutdownGraceMs: 1000,
    clock: () => 0,
  });
  target.useEra('legacy', ProtocolSchema.load('2025-11-25'));
  const s = await target.connect({ handshake: false });
  return { target, s };
}

const answersSent = (s: Session) =>
  s
    .frames()
    .filter((f) => f.dir === 'out')
    .map((f) => JSON.parse(f.text) as JsonObject)
    .filter((m) => !('method' in m));

describe('the legacy session on real servers', () => {
  it('server-everything stdio: list changes received; roots, sampling and elicitation answered during the session and calls', async () => {
    const { target, s } = await legacySession(`node ${EVERYTHING} stdio`);
    try {
      const listChanged = s.waitForMessage((m) => m.method === 'notifications/tools/list_changed', 10_000);
      const roots = s.waitForMessage((m) => m.method === 'roots/list', 10_000);
      const hs = await legacyHandshake(s, ProtocolSchema.load('2025-11-25'));
      expect(hs.problem).toBeUndefined();
      expect(await listChanged, 'notifications/tools/list_changed').toBeDefined();
      expect(await roots, 'roots/list from the server').toBeDefined();
      const call = await s.request('tools/call', { name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
      expect(JSON.stringify(call.result), JSON.stringify(call.error)).toContain(SAMPLING_TEXT);
      const elicit = await s.request('tools/call', { name: 'trigger-elicitation-request', arguments: {} });
      expect(JSON.stringify(elicit.result), JSON.stringify(elicit.error)).toContain('declined');
      expect(
        answersSent(s).map((m) =>
          Object.keys(m.result as JsonObject)
            .sort()
            .join(','),
        ),
      ).toEqual(expect.arrayContaining(['roots', 'content,model,role,stopReason', 'action']));
      expect(s.violations).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('server-everything Streamable HTTP: session id carried, roots asked on the GET stream, sampling answered during a call', async () => {
    const port = await freePort();
    const { target, s } = await legacySession(`node ${EVERYTHING} streamableHttp`, `http://127.0.0.1:${port}/mcp`, { PORT: String(port) });
    try {
      const roots = s.waitForMessage((m) => m.method === 'roots/list', 10_000);
      const hs = await legacyHandshake(s, ProtocolSchema.load('2025-11-25'));
      expect(hs.problem).toBeUndefined();
      expect(s.sessionId).toMatch(/^[\x21-\x7e]+$/);
      const asked = await roots;
      expect(asked?.frame.http?.stream, 'roots/list arrived on the GET stream').toBe(true);
      const call = await s.request('tools/call', { name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
      expect(JSON.stringify(call.result), JSON.stringify(call.error)).toContain(SAMPLING_TEXT);
      expect(s.violations).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('2.x SDK Streamable HTTP, legacy era: served statelessly (no session id, no GET stream), nothing misread', async () => {
    const port = await freePort();
    const { target, s } = await legacySession(`node ${join(SDK2, 'http.js')} ${port}`, `http://127.0.0.1:${port}/mcp`);
    try {
      const hs = await legacyHandshake(s, ProtocolSchema.load('2025-11-25'));
      expect(hs.problem).toBeUndefined();
      expect(s.sessionId).toBeUndefined();
      expect(await s.openGetStream(), 'the GET stream is refused').toBe(405);
      const list = await s.request('tools/list');
      expect((list.result?.tools as JsonObject[]).map((t) => t.name)).toContain('forecast');
      expect(s.violations, 'the JSON body of the 405 is not taken for a message').toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('2.x SDK stdio, legacy era: the tool registered after initialize is announced, and its sampling request answered', async () => {
    const { target, s } = await legacySession(`node ${join(SDK2, 'stdio.js')}`);
    try {
      const listChanged = s.waitForMessage((m) => m.method === 'notifications/tools/list_changed', 10_000);
      const hs = await legacyHandshake(s, ProtocolSchema.load('2025-11-25'));
      expect(hs.problem).toBeUndefined();
      expect(await listChanged, 'notifications/tools/list_changed').toBeDefined();
      const list = await s.request('tools/list');
      expect((list.result?.tools as JsonObject[]).map((t) => t.name)).toContain('summarize');
      const call = await s.request('tools/call', { name: 'summarize', arguments: { text: 'a long text' } });
      expect(JSON.stringify(call.result), JSON.stringify(call.error)).toContain(SAMPLING_TEXT);
      expect(s.violations).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

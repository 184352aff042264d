/**
 * The safety promise, proven on the server's side: the reference with
 * `--destructive-tool FILE` lists wipe_records, a destructive tool that
 * validates nothing and records every call that reaches it. A default run
 * (no --allow-side-effects, no config file) records none over stdio and
 * over Streamable HTTP; with --allow-side-effects it is called (the fixture
 * does record), unless tools.exclude names it. The gate itself
 * (harness/call-guard.ts, asked by the session on every tools/call) is
 * proven below: a refused call never leaves and is a harness error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefusedCallError, ToolLedger, toolCallsIn } from '../harness/call-guard.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Target } from '../harness/target.js';
import { runConformance, type RunOptions } from '../engine/run.js';
import { callGuard, whyRefused } from '../suites/safety.js';
import type { Config } from '../model/config.js';
import type { RunResult } from '../model/results.js';
import type { TransportKind } from '../model/wire.js';
import { describeRun, freePort, referenceCommand, tempDir } from './helpers.js';

const TOOL = 'wipe_records';

/** The lines the destructive tool recorded (one per execution). */
function executions(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
}

/** A whole-catalogue run against the reference with the destructive tool; returns the run and the record file. */
async function runWith(transport: TransportKind, opts: Partial<RunOptions> = {}): Promise<{ run: RunResult; file: string }> {
  const file = join(tempDir(), 'executions.jsonl');
  const base = { requestTimeoutMs: 5000, runs: 4, seed: 11, config: {}, ...opts };
  if (transport === 'stdio') return { run: await runConformance({ command: referenceCommand('--destructive-tool', file), ...base }), file };
  const port = await freePort();
  const run = await runConformance({
    command: referenceCommand('--http', String(port), '--destructive-tool', file),
    url: `http://127.0.0.1:${port}/mcp`,
    ...base,
  });
  return { run, file };
}

describe('a default run calls no tool that is not read-only (the destructive reference variant)', () => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: wipe_records records no execution, and no path needed the gate to stop it`, async () => {
      const { run, file } = await runWith(transport);
      const info = describeRun(run);
      expect(run.aborted, info).toBeUndefined();
      expect(executions(file)).toEqual([]);
      // Every path asked the policy first: the gate refused nothing (a refusal is a harness error).
      expect(run.harnessErrors, info).toEqual([]);
      // The checks that could not call it say so, and the run names it with what lets it run.
      expect(run.heldBack?.tools).toContain(TOOL);
      expect(run.heldBack?.remedy).toMatch(/--tools .*--allow-side-effects/);
      const held = run.checks.flatMap((c) => c.results.filter((r) => r.heldBack?.includes(TOOL)).map((r) => ({ id: c.id, r })));
      expect(held.map((h) => h.id)).toEqual(expect.arrayContaining(['tools-call/valid-result', 'tools-call/invalid-rejected']));
      for (const { r } of held) {
        expect(r.verdict).toBe('not-observed');
        expect(r.reason).toMatch(/--tools/);
      }
    });
  }

  it('with --allow-side-effects the suite does call it (the fixture records), and tools.exclude still wins', async () => {
    const checks = ['tools-call/*', 'streamable-http/*', 'statelessness/*', 'tasks/*', 'mrtr/*'];
    const allowed = await runWith('http', { allowSideEffects: true, checks });
    expect(allowed.run.aborted, describeRun(allowed.run)).toBeUndefined();
    expect(executions(allowed.file).length).toBeGreaterThan(0);
    const config: Config = { tools: { exclude: [TOOL] } };
    const excluded = await runWith('http', { allowSideEffects: true, checks, config });
    expect(excluded.run.aborted, describeRun(excluded.run)).toBeUndefined();
    expect(executions(excluded.file)).toEqual([]);
    expect(excluded.run.harnessErrors).toEqual([]);
    // Excluded is not held back: no flag lets the suite call it.
    expect(excluded.run.heldBack?.tools ?? []).not.toContain(TOOL);
  });
});

describe('the gate', () => {
  const scope = (config: Config, allowSideEffects = false) => ({ config, settings: { arguments: { include: [], allowSideEffects } } });
  const listed = (readOnly: boolean) => ({ name: TOOL, annotations: { readOnlyHint: readOnly } });

  it('lets through read-only, consented and user-named tools, unknown names once the list is complete, and never an excluded one', () => {
    expect(whyRefused(scope({}), { name: TOOL, listed: listed(true), listComplete: true })).toBeUndefined();
    expect(whyRefused(scope({}), { name: TOOL, listed: listed(false), listComplete: true })).toMatch(/not annotated readOnlyHint/);
    expect(whyRefused(scope({}, true), { name: TOOL, listed: listed(false), listComplete: true })).toBeUndefined();
    expect(
      whyRefused(scope({ tools: { include: ['wipe_*'] } }), { name: TOOL, listed: listed(false), listComplete: true }),
    ).toBeUndefined();
    for (const config of [
      { slowTool: { name: TOOL } },
      { fixtures: { [TOOL]: {} } },
      { listChanged: { undo: { tool: TOOL } } },
    ] as Config[])
      expect(whyRefused(scope(config), { name: TOOL, listed: listed(false), listComplete: true })).toBeUndefined();
    expect(whyRefused(scope({}), { name: 'no_such', listComplete: true })).toBeUndefined();
    expect(whyRefused(scope({}), { name: 'no_such', listComplete: false })).toMatch(/not seen listed/);
    expect(whyRefused(scope({}), { name: undefined, listComplete: false })).toBeUndefined();
    const excluded = scope({ tools: { exclude: ['*'], include: ['*'] }, slowTool: { name: TOOL } }, true);
    expect(whyRefused(excluded, { name: TOOL, listed: listed(true), listComplete: true })).toMatch(/excluded by tools.exclude/);
  });

  it('knows a tool read-only only if every listing said so, and a walk complete only from its first page to its last', () => {
    const ledger = new ToolLedger();
    ledger.learn({ cursor: 'elsewhere' }, { tools: [listed(true)] });
    expect(ledger.complete).toBe(false);
    ledger.learn({}, { tools: [listed(true)], nextCursor: 'p2' });
    expect(ledger.complete).toBe(false);
    ledger.learn({ cursor: 'p2' }, { tools: [listed(false)] });
    expect(ledger.complete).toBe(true);
    ledger.learn({}, { tools: [listed(true)] });
    expect((ledger.lookup(TOOL)?.annotations as { readOnlyHint: boolean }).readOnlyHint).toBe(false);
  });

  it('finds tools/call in messages, batches and body text', () => {
    expect(toolCallsIn({ method: 'tools/call', params: { name: 'a' } })).toEqual([{ name: 'a' }]);
    expect(toolCallsIn(JSON.stringify([{ method: 'ping' }, { method: 'tools/call', params: { name: 'b' } }]))).toEqual([{ name: 'b' }]);
    expect(toolCallsIn('{"method":"tools/call", broken')).toEqual([undefined]);
    expect(toolCallsIn({ method: 'tools/list' })).toEqual([]);
  });

  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: a refused tools/call never leaves the session (request, raw request, notification, raw HTTP) and is a harness error`, async () => {
      const file = join(tempDir(), 'executions.jsonl');
      const port = transport === 'http' ? await freePort() : 0;
      const schema = ProtocolSchema.load('2026-07-28');
      const target = await Target.open({
        command: referenceCommand(...(transport === 'http' ? ['--http', String(port)] : []), '--destructive-tool', file),
        ...(transport === 'http' ? { url: `http://127.0.0.1:${port}/mcp` } : {}),
        headers: {},
        env: {},
        revision: '2026-07-28',
        schema,
        redactor: new Redactor(),
        requestTimeoutMs: 5000,
        maxMessageBytes: 1 << 20,
        startupTimeoutMs: 10_000,
        shutdownGraceMs: 500,
        clock: () => 0,
        callGuard: callGuard({ config: {}, settings: {} }),
      });
      try {
        const s = await target.connect();
        const list = await s.request('tools/list');
        expect(list.result?.nextCursor).toBeDefined();
        // Before the list is walked to its end, even a name the server never listed is refused.
        await expect(s.request('tools/call', { name: 'no_such_tool', arguments: {} })).rejects.toBeInstanceOf(RefusedCallError);
        for (let cursor = list.result?.nextCursor; typeof cursor === 'string';) {
          cursor = (await s.request('tools/list', { cursor })).result?.nextCursor;
        }
        const params = { name: TOOL, arguments: { table: 'users' } };
        expect(s.callRefusal(params)).toMatch(/not annotated readOnlyHint/);
        await expect(s.request('tools/call', params)).rejects.toBeInstanceOf(RefusedCallError);
        await expect(s.requestRaw({ jsonrpc: '2.0', id: 'raw-1', method: 'tools/call', params })).rejects.toBeInstanceOf(RefusedCallError);
        await expect(s.notify('tools/call', params)).rejects.toBeInstanceOf(RefusedCallError);
        if (transport === 'http') {
          await expect(s.rawHttp({ message: s.message('tools/call', params) })).rejects.toBeInstanceOf(RefusedCallError);
          await expect(
            s.rawHttp({ body: JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'tools/call', params }]) }),
          ).rejects.toBeInstanceOf(RefusedCallError);
        }
        expect(s.frames().filter((f) => f.dir === 'out' && f.text.includes(TOOL))).toEqual([]);
        expect(s.internalErrors.length).toBeGreaterThanOrEqual(4);
        expect(s.internalErrors[0]).toMatch(/refused its own tools\/call/);
        // A read-only tool, and a name the server does not list once the list is walked, go through.
        expect((await s.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toBeDefined();
        expect((await s.request('tools/call', { name: 'no_such_tool', arguments: {} })).error).toBeDefined();
      } finally {
        await target.close();
      }
      expect(executions(file)).toEqual([]);
    });
  }
});

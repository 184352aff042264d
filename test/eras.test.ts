/**
 * Protocol eras: the detection of basic/versioning "Backward Compatibility
 * with Initialization-Based Versions" for every row of the compatibility
 * matrix that concerns a client (modern, legacy and dual-era servers; stdio
 * and HTTP), the forced modes, `--spec all`, and the legacy session itself
 * (no per-request `_meta`, server-initiated requests answered, list changes
 * received on stdout and on the HTTP GET stream, the session id carried and
 * ended with DELETE), all against the reference server in its three modes.
 */
import http from 'node:http';
import { ScriptedTransport } from './scripted.js';
import { describe, expect, it } from 'vitest';
import { runConformance, type RunOptions } from '../engine/run.js';
import { legacyClientProfile, SAMPLING_TEXT } from '../harness/legacy.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Session } from '../harness/session.js';
import { Target } from '../harness/target.js';
import type { RunResult } from '../model/results.js';
import { renderConsole, renderJUnit } from '../render/index.js';
import { describeRun, freePort, referenceCommand, runCli, tempDir } from './helpers.js';
import { join } from 'node:path';
import type { JsonObject } from '../model/json.js';
import type { TransportKind } from '../model/wire.js';

/** One cheap check that applies to both eras: the runs here are about the opening, not the verdicts. */
const CHEAP = ['tools-list/unique-names'];

async function run(transport: TransportKind, serverArgs: string[], options: Partial<RunOptions> = {}): Promise<RunResult> {
  const base = { requestTimeoutMs: 5000, checks: CHEAP, ...options };
  if (transport === 'stdio') return runConformance({ command: referenceCommand(...serverArgs), ...base });
  const port = await freePort();
  return runConformance({
    command: referenceCommand('--http', String(port), ...serverArgs),
    url: `http://127.0.0.1:${port}/mcp`,
    ...base,
  });
}

describe('era detection: the compatibility matrix, client side', () => {
  for (const transport of ['stdio', 'http'] as const) {
    describe(transport, () => {
      it('dual-era client × modern server: stays modern', async () => {
        const r = await run(transport, []);
        expect(r.aborted, describeRun(r)).toBeUndefined();
        expect(r.revision).toBe('2026-07-28');
        expect(r.era).toMatchObject({ era: 'modern', how: 'detected' });
        expect(r.era!.evidence).toMatch(/server\/discover answered with a result/);
      });

      it('dual-era client × legacy server: falls back to initialize', async () => {
        const r = await run(transport, ['--era', 'legacy']);
        expect(r.aborted, describeRun(r)).toBeUndefined();
        expect(r.revision).toBe('2025-11-25');
        expect(r.era).toMatchObject({ era: 'legacy', how: 'detected', negotiatedVersion: '2025-11-25' });
        expect(r.era!.evidence).toMatch(/not a recognized modern error; initialize answered with protocol version 2025-11-25/);
        expect(r.server?.name).toBe('mcp-conformance-reference');
        expect(r.exitCode).toBe(0);
      });

      it('dual-era client × dual-era server: stays modern', async () => {
        const r = await run(transport, ['--era', 'dual']);
        expect(r.aborted, describeRun(r)).toBeUndefined();
        expect(r.era).toMatchObject({ era: 'modern', how: 'detected' });
      });

      it('modern client (--spec 2026-07-28) × legacy server: one actionable cause, exit 2', async () => {
        const r = await run(transport, ['--era', 'legacy'], { spec: '2026-07-28' });
        expect(r.exitCode).toBe(2);
        expect(r.aborted).toMatch(/^this server speaks 2025-11-25 \(legacy\) only \(.*\); run with --spec 2025-11-25$/);
        expect(r.checks).toEqual([]);
      });

      it('legacy client (--spec 2025-11-25) × modern server: named as modern-only, exit 2', async () => {
        const r = await run(transport, [], { spec: '2025-11-25' });
        expect(r.exitCode).toBe(2);
        expect(r.aborted).toMatch(
          /^this server speaks 2026-07-28 \(modern\) only \(initialize answered .*-32022.*\); run with --spec 2026-07-28$/,
        );
      });

      it('legacy client (--spec 2025-11-25) × dual-era server: works in the legacy era', async () => {
        const r = await run(transport, ['--era', 'dual'], { spec: '2025-11-25' });
        expect(r.aborted, describeRun(r)).toBeUndefined();
        expect(r.era).toMatchObject({ era: 'legacy', how: 'forced', negotiatedVersion: '2025-11-25' });
      });

      it('modern client × dual-era server: modern', async () => {
        const r = await run(transport, ['--era', 'dual'], { spec: '2026-07-28' });
        expect(r.era).toMatchObject({ era: 'modern', how: 'forced' });
        expect(r.exitCode).toBe(0);
      });

      it('a recognized modern error (-32022 naming other versions) is never a reason to fall back', async () => {
        const r = await run(transport, ['--era', 'dual', '--versions', '2027-01-01']);
        expect(r.exitCode).toBe(2);
        expect(r.aborted).toBe('the server speaks modern MCP but not 2026-07-28: it supports ["2027-01-01"]');
      });
    });
  }

  it('stdio: a legacy server that stays silent before initialize is detected once the probe times out', async () => {
    const r = await run('stdio', ['--era', 'legacy', '--legacy-unknown', 'silent'], { probeTimeoutMs: 300 });
    expect(r.aborted, describeRun(r)).toBeUndefined();
    expect(r.era).toMatchObject({ era: 'legacy', how: 'detected' });
    expect(r.era!.evidence).toMatch(/server\/discover was not answered within 0\.3 s/);
  });

  it('stdio: the fallback is not keyed to one error code (-32602 and -32000 fall back too)', async () => {
    for (const code of ['-32602', '-32000']) {
      const r = await run('stdio', ['--era', 'legacy', '--legacy-unknown', code]);
      expect(r.era, describeRun(r)).toMatchObject({ era: 'legacy', how: 'detected' });
      expect(r.era!.evidence).toContain(`JSON-RPC error ${code}`);
    }
  });

  it('the CLI reports a legacy-only server under --spec 2026-07-28 in one line, exit 2', async () => {
    const dir = tempDir();
    const r = await runCli([
      '--server',
      referenceCommand('--era', 'legacy'),
      '--spec',
      '2026-07-28',
      '--junit',
      join(dir, 'j.xml'),
      '--json',
      join(dir, 'r.json'),
    ]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mcp-conformance: this server speaks 2025-11-25 \(legacy\) only .*run with --spec 2025-11-25$/);
  });
});

describe('--spec all', () => {
  it('runs a dual-era server in both eras, one complete run each, and renders them apart', async () => {
    const r = await run('stdio', ['--era', 'dual'], { spec: 'all', checks: undefined });
    expect(r.revision).toBe('all');
    expect(r.eras?.map((e) => [e.revision, e.era?.era, e.exitCode])).toEqual([
      ['2026-07-28', 'modern', 0],
      ['2025-11-25', 'legacy', 0],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.summary.total).toBe(r.eras!.reduce((n, e) => n + e.summary.total, 0));
    // Each era judged its own checks: lifecycle only in the legacy run, discover/result only in the modern one.
    const verdict = (e: RunResult, id: string) => e.checks.find((c) => c.id === id)!.results[0]!.verdict;
    expect(verdict(r.eras![0]!, 'discover/result')).toBe('pass');
    expect(verdict(r.eras![0]!, 'lifecycle/initialize-result')).toBe('skip');
    expect(verdict(r.eras![1]!, 'discover/result')).toBe('skip');
    expect(verdict(r.eras![1]!, 'lifecycle/initialize-result')).toBe('pass');

    const text = renderConsole(r, { color: false });
    expect(text).toMatch(
      /━━ 2026-07-28 \(modern era\) ━━[\s\S]*━━ 2025-11-25 \(legacy era\) ━━[\s\S]*━━ all eras ━━[\s\S]*Result: PASSED\n$/,
    );
    const suites = [...renderJUnit(r).matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1]);
    expect(suites).toEqual(expect.arrayContaining(['2026-07-28 discover', '2025-11-25 lifecycle']));
  });

  it('an era the server does not speak ends that part with its cause (exit 2)', async () => {
    const r = await run('stdio', [], { spec: 'all' });
    expect(r.exitCode).toBe(2);
    expect(r.eras?.[0]?.exitCode).toBe(0);
    expect(r.aborted).toMatch(/^2025-11-25: this server speaks 2026-07-28 \(modern\) only/);
  });
});

/** A legacy Target against the reference server, opened with the handshake. */
async function legacyTarget(transport: TransportKind): Promise<{ target: Target; close: () => Promise<void> }> {
  const redactor = new Redactor();
  const port = transport === 'http' ? await freePort() : 0;
  const target = await Target.open({
    command: referenceCommand(...(transport === 'http' ? ['--http', String(port)] : []), '--era', 'legacy'),
    url: transport === 'http' ? `http://127.0.0.1:${port}/mcp` : undefined,
    headers: {},
    env: {},
    revision: '2026-07-28',
    schema: ProtocolSchema.load('2026-07-28'),
    redactor,
    requestTimeoutMs: 5000,
    maxMessageBytes: 1 << 20,
    startupTimeoutMs: 15000,
    shutdownGraceMs: 1000,
    clock: () => 0,
  });
  target.useEra('legacy', ProtocolSchema.load('2025-11-25'));
  return { target, close: () => target.close() };
}

const sent = (s: Session) =>
  s
    .frames()
    .filter((f) => f.dir === 'out')
    .map((f) => JSON.parse(f.text) as JsonObject);

describe('the legacy session', () => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: handshake, no per-request _meta, list changes and server requests received and answered`, async () => {
      const { target, close } = await legacyTarget(transport);
      try {
        // The list change and roots/list follow notifications/initialized (HTTP: on the GET stream).
        const s = await target.connect({ handshake: false });
        const listChanged = s.waitForMessage((m) => m.method === 'notifications/tools/list_changed', 5000);
        const rootsAsked = s.waitForMessage((m) => m.method === 'roots/list', 5000);
        const { legacyHandshake } = await import('../harness/legacy.js');
        const hs = await legacyHandshake(s, ProtocolSchema.load('2025-11-25'));
        expect(hs.problem).toBeUndefined();
        expect(hs.negotiated).toBe('2025-11-25');
        expect(s.era).toBe('legacy');
        const changed = await listChanged;
        expect(changed, 'notifications/tools/list_changed received').toBeDefined();
        if (transport === 'http') {
          expect(changed!.frame.http?.stream, 'delivered on the GET stream').toBe(true);
          expect(s.sessionId).toMatch(/^[\x21-\x7e]+$/);
        }
        const roots = await rootsAsked;
        expect(roots).toBeDefined();

        // A server-initiated request during a call: sampling/createMessage, answered by the suite.
        const call = await s.request('tools/call', { name: 'ask_client', arguments: { question: 'Ready?' } });
        expect(call.result?.isError, JSON.stringify(call.result)).toBeUndefined();
        expect(JSON.stringify(call.result?.content)).toContain(SAMPLING_TEXT);

        const out = sent(s);
        const requests = out.filter((m) => typeof m.method === 'string' && 'id' in m);
        expect(requests.map((m) => m.method)).toEqual(['initialize', 'tools/call']);
        for (const m of requests) expect((m.params as JsonObject | undefined)?._meta).toBeUndefined();
        expect(out.some((m) => m.method === 'notifications/initialized')).toBe(true);
        const answers = out.filter((m) => !('method' in m));
        expect(answers.map((m) => Object.keys(m.result as JsonObject))).toEqual(
          expect.arrayContaining([['roots'], ['role', 'content', 'model', 'stopReason']]),
        );
        expect(s.violations, 'a server request is legal in the legacy era').toEqual([]);

        if (transport === 'http') {
          // Closing ends the session with DELETE: the server no longer knows the id.
          const id = s.sessionId!;
          const url = target.opts.url as string;
          await target.disconnect(s);
          const status = await new Promise<number>((resolve, reject) => {
            http
              .get(url, { headers: { 'Mcp-Session-Id': id, Accept: 'text/event-stream' } }, (res) => {
                res.resume();
                resolve(res.statusCode ?? 0);
              })
              .on('error', reject);
          });
          expect(status).toBe(404);
        }
      } finally {
        await close();
      }
    });
  }
});

describe('Session, by era', () => {
  it('a server request is a violation in the modern era and answered in the legacy era', async () => {
    const serverAsks = (m: Record<string, any>, _reply: unknown, t: ScriptedTransport) => {
      if (!('method' in m) || m.method !== 'tools/list') return;
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: 'q1', method: 'ping' }));
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
    };
    const make = (legacy: boolean) => {
      const transport = new ScriptedTransport(serverAsks);
      const schema = ProtocolSchema.load(legacy ? '2025-11-25' : '2026-07-28');
      const s = new Session(transport, {
        connection: 1,
        revision: '2026-07-28',
        redactor: new Redactor(),
        schema,
        requestTimeoutMs: 2000,
        clock: () => 0,
        ...(legacy ? { profile: legacyClientProfile(schema, '2025-11-25') } : {}),
      });
      return { s, transport };
    };
    const modern = make(false);
    await modern.s.start();
    await modern.s.request('tools/list');
    expect(modern.s.violations.map((v) => v.kind)).toEqual(['server-request']);

    const legacy = make(true);
    await legacy.s.start();
    await legacy.s.request('tools/list');
    expect(legacy.s.violations).toEqual([]);
    const out = legacy.transport.sent;
    expect(out[0].params).toEqual({});
    expect(out[1]).toEqual({ jsonrpc: '2.0', id: 'q1', result: {} });
  });
});

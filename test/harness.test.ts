/**
 * Unit tests of the harness pieces every check relies on.
 */
import { describe, expect, it } from 'vitest';
import { selectChecks } from '../engine/run.js';
import { RequestTimeoutError } from '../harness/errors.js';
import { checkJsonSchema } from '../harness/jsonschema.js';
import { LineSplitter } from '../harness/lines.js';
import { encodeHeaderValue, findHeaderAnnotations, mirrorHeaders } from '../harness/protocol.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Session } from '../harness/session.js';
import type { SendInfo, Transport, TransportSink } from '../harness/transport.js';

describe('LineSplitter', () => {
  it('splits lines across chunks and strips CR', () => {
    const lines: string[] = [];
    const s = new LineSplitter(100, (l) => lines.push(l), () => {});
    s.push(Buffer.from('{"a":1}\r\n{"b"'));
    s.push(Buffer.from(':2}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reports an oversized line once, drops it, and resumes at the next newline', () => {
    const lines: string[] = [];
    const big: number[] = [];
    const s = new LineSplitter(10, (l) => lines.push(l), (_head, n) => big.push(n));
    s.push(Buffer.from('0123456789ABCDEF'));
    s.push(Buffer.from('more bytes of the same line'));
    s.push(Buffer.from('\nok\n'));
    expect(big).toHaveLength(1);
    expect(lines).toEqual(['ok']);
  });
});

describe('x-mcp-header', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
      list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
    },
  };

  it('finds every annotation and marks which are statically reachable', () => {
    const found = findHeaderAnnotations(schema);
    expect(found.map((a) => [a.value, a.path])).toEqual([
      ['Region', ['region']],
      ['Flag', ['nested', 'flag']],
      ['Item', undefined],
    ]);
  });

  it('mirrors present values and encodes unsafe ones with the Base64 sentinel', () => {
    const headers = mirrorHeaders(findHeaderAnnotations(schema), { region: 'Hello, 世界', nested: { flag: true } });
    expect(headers).toEqual({ 'Mcp-Param-Region': '=?base64?SGVsbG8sIOS4lueVjA==?=', 'Mcp-Param-Flag': 'true' });
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });
});

describe('checkJsonSchema', () => {
  it('defaults to 2020-12 and honours an explicit draft-07 $schema', () => {
    expect(checkJsonSchema({ type: 'object', prefixItems: [] }).dialect).toBe('2020-12');
    const d7 = checkJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', items: [{ type: 'string' }] });
    expect(d7).toMatchObject({ ok: true, dialect: 'draft-07' });
  });

  it('rejects invalid schemas, unknown dialects, and never fetches a network $ref', () => {
    expect(checkJsonSchema({ type: 'strng' }).ok).toBe(false);
    expect(checkJsonSchema({ $schema: 'https://example.com/my-dialect', type: 'object' }).errors[0]).toMatch(/unsupported/);
    const remote = checkJsonSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } });
    expect(remote.ok).toBe(false);
    expect(remote.errors[0]).toMatch(/can't resolve reference|does not compile|unresolved \$ref/);
    expect(checkJsonSchema(null).ok).toBe(false);
  });
});

describe('Redactor', () => {
  it('replaces every registered secret, longest first', () => {
    const r = new Redactor();
    r.add('secret-token');
    r.add('secret-token-long');
    r.add('ab');
    expect(r.redact('a secret-token-long and secret-token, ab')).toBe('a [REDACTED] and [REDACTED], ab');
  });
});

describe('selectChecks', () => {
  it('selects by exact id and by glob', () => {
    expect(selectChecks(['tools-list/*']).every((c) => c.area === 'tools-list')).toBe(true);
    expect(selectChecks(['discover/result']).map((c) => c.id)).toEqual(['discover/result']);
    expect(selectChecks(['nothing/*'])).toEqual([]);
  });
});

/** A transport whose server side is a function of each sent message. */
class ScriptedTransport implements Transport {
  readonly kind = 'stdio' as const;
  sink!: TransportSink;
  sent: string[] = [];
  constructor(private readonly answer: (msg: Record<string, unknown>, t: ScriptedTransport) => void) {}
  async start(sink: TransportSink) {
    this.sink = sink;
  }
  async send(text: string, _info: SendInfo) {
    this.sent.push(text);
    queueMicrotask(() => this.answer(JSON.parse(text), this));
    return {};
  }
  async close() {}
}

function session(answer: (msg: Record<string, unknown>, t: ScriptedTransport) => void, timeoutMs = 2000) {
  const transport = new ScriptedTransport(answer);
  const s = new Session(transport, {
    connection: 1,
    revision: '2026-07-28',
    redactor: new Redactor(),
    schema: ProtocolSchema.load('2026-07-28'),
    requestTimeoutMs: timeoutMs,
    clock: () => 0,
  });
  return { s, transport };
}

describe('Session', () => {
  it('alternates integer and string ids and puts the modern _meta on every request', async () => {
    const { s, transport } = session((m, t) =>
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } })),
    );
    await s.start();
    await s.request('ping');
    await s.request('ping');
    const sent = transport.sent.map((x) => JSON.parse(x));
    expect(new Set(sent.map((m) => typeof m.id))).toEqual(new Set(['number', 'string']));
    expect(sent[0].params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'mcp-conformance' },
    });
  });

  it('matches a response whose id has the wrong JSON type, and says so', async () => {
    const { s } = session((m, t) => t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: String(m.id), error: { code: -32601, message: 'nope' } })));
    await s.start();
    const ex = await s.request('x', {}, { id: 7 });
    expect(ex.idTypeMismatch).toBe(true);
    expect(ex.error?.code).toBe(-32601);
  });

  it('records unknown ids, duplicates, non-JSON lines and server requests as violations', async () => {
    const { s } = session((m, t) => {
      t.sink.message('hello there');
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: 'never-sent', result: {} }));
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'sampling/createMessage', params: {} }));
      const reply = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } });
      t.sink.message(reply);
      t.sink.message(reply);
    });
    await s.start();
    await s.request('ping');
    expect(s.violations.map((v) => v.kind)).toEqual(['not-json', 'unknown-id', 'server-request', 'duplicate-response']);
  });

  it('times out a request the server never answers, naming the method', async () => {
    const { s } = session(() => {}, 50);
    await s.start();
    await expect(s.request('tools/list')).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(s.request('tools/list')).rejects.toThrow(/^no answer within .* s to tools\/list$/);
  });

  it('delivers notifications to waiters with a deadline', async () => {
    const { s } = session((_m, t) => t.sink.message(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })));
    await s.start();
    const waiting = s.waitForMessage((m) => m.method === 'notifications/tools/list_changed', 1000);
    void s.notify('notifications/cancelled', { requestId: 1 });
    expect((await waiting)?.msg.method).toBe('notifications/tools/list_changed');
    expect(await s.waitForMessage(() => false, 10)).toBeUndefined();
  });
});

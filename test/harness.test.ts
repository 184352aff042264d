/**
 * Unit tests of the harness pieces every check relies on.
 */
import { ScriptedTransport, type Answer } from './scripted.js';
import { describe, expect, it } from 'vitest';
import { selectChecks } from '../engine/run.js';
import { RequestTimeoutError } from '../harness/errors.js';
import { checkJsonSchema } from '../harness/jsonschema.js';
import { LineSplitter } from '../harness/lines.js';
import { encodeHeaderValue, findHeaderAnnotations, mirrorHeaders } from '../harness/protocol.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { withAbortScope } from '../harness/scope.js';
import { Session } from '../harness/session.js';
import { TimeoutLedger } from '../harness/timeouts.js';
import { ServerProcess, StopLedger } from '../harness/process.js';

describe('LineSplitter', () => {
  it('splits lines across chunks and strips CR', () => {
    const lines: string[] = [];
    const s = new LineSplitter(
      100,
      (l) => lines.push(l),
      () => {},
    );
    s.push(Buffer.from('{"a":1}\r\n{"b"'));
    s.push(Buffer.from(':2}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reports an oversized line once, drops it, and resumes at the next newline', () => {
    const lines: string[] = [];
    const big: number[] = [];
    const s = new LineSplitter(
      10,
      (l) => lines.push(l),
      (_head, n) => big.push(n),
    );
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
    expect(found.map((a) => a.via)).toEqual([undefined, undefined, 'items']);
  });

  it('names the keyword an unreachable annotation hides behind, and reads no annotation in instance data', () => {
    const found = findHeaderAnnotations({
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] }, b: { type: 'string', default: { 'x-mcp-header': 'No' } } },
      $defs: { d: { type: 'string', 'x-mcp-header': 'D' } },
    });
    expect(found.map((a) => [a.value, a.via])).toEqual([
      ['A', 'anyOf'],
      ['D', '$defs'],
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

function session(answer: Answer, timeoutMs = 2000) {
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
    const { s, transport } = session((m, _reply, t) =>
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } })),
    );
    await s.start();
    await s.request('ping');
    await s.request('ping');
    const sent = transport.sent;
    expect(new Set(sent.map((m) => typeof m.id))).toEqual(new Set(['number', 'string']));
    expect(sent[0].params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'mcp-conformance' },
    });
  });

  it('matches a response whose id has the wrong JSON type, and says so', async () => {
    const { s } = session((m, _reply, t) =>
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: String(m.id), error: { code: -32601, message: 'nope' } })),
    );
    await s.start();
    const ex = await s.request('x', {}, { id: 7 });
    expect(ex.idTypeMismatch).toBe(true);
    expect(ex.error?.code).toBe(-32601);
  });

  it('records unknown ids, duplicates, non-JSON lines and server requests as violations', async () => {
    const { s } = session((m, _reply, t) => {
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

  it('reads a message split over lines whole, as one split-message violation, not as lines that are not JSON', async () => {
    const { s } = session((m, _reply, t) => {
      t.sink.message('not json, and no message');
      for (const line of JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', list: [{}, 3] } }, null, 2).split(
        '\n',
      ))
        t.sink.message(line);
    });
    await s.start();
    const ex = await s.request('ping');
    expect(ex.result).toEqual({ resultType: 'complete', list: [{}, 3] });
    expect(s.violations.map((v) => v.kind)).toEqual(['not-json', 'split-message']);
    expect(s.countOf('not-json', 'not-jsonrpc')).toBe(1);
    expect(s.violations[1]!.frame!.text).toContain('\n  "jsonrpc": "2.0",\n');
  });

  it('records a response with neither result nor error, and a notification carrying an id, apart from server requests', async () => {
    const { s } = session((m, _reply, t) => {
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id }));
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'notifications/message', params: { level: 'info', data: 'x' } }));
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } }));
    });
    await s.start();
    await s.request('ping');
    expect(s.violations.map((v) => v.kind)).toEqual(['response-without-result', 'notification-with-id']);
  });

  it('times out a request the server never answers, naming the method', async () => {
    const { s } = session(() => {}, 50);
    await s.start();
    await expect(s.request('tools/list')).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(s.request('tools/list')).rejects.toThrow(/^no answer within .* s to tools\/list$/);
  });

  it('delivers notifications to waiters with a deadline', async () => {
    const { s } = session((_m, _reply, t) =>
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })),
    );
    await s.start();
    const waiting = s.waitForMessage((m) => m.method === 'notifications/tools/list_changed', 1000);
    void s.notify('notifications/cancelled', { requestId: 1 });
    expect((await waiting)?.msg.method).toBe('notifications/tools/list_changed');
    expect(await s.waitForMessage(() => false, 10)).toBeUndefined();
  });
});

describe('TimeoutLedger: at most one full timeout per tool or method', () => {
  const silentSession = (timeouts: TimeoutLedger, fullMs: number, answers: (m: any) => boolean = () => false) => {
    const transport = new ScriptedTransport((m, _reply, t) => {
      if (answers(m)) t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [] } }));
    });
    const s = new Session(transport, {
      connection: 1,
      revision: '2026-07-28',
      redactor: new Redactor(),
      schema: ProtocolSchema.load('2026-07-28'),
      requestTimeoutMs: fullMs,
      clock: () => 0,
      timeouts,
    });
    return { s, transport };
  };

  it('waits the full timeout once, probes once, then fails at once naming the first timeout', async () => {
    const ledger = new TimeoutLedger(200);
    const { s, transport } = silentSession(ledger, 200);
    await s.start();
    const call = () => s.request('tools/call', { name: 'quiet', arguments: {} });
    let t0 = Date.now();
    await expect(call()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    t0 = Date.now();
    await expect(call()).rejects.toThrow(
      /a short probe: an earlier request to tools\/call "quiet" on connection 1 got no answer within 0.2 s/,
    );
    expect(Date.now() - t0).toBeLessThan(190);
    const sentBefore = transport.sent.length;
    await expect(call()).rejects.toThrow(
      /^no answer to tools\/call "quiet": an earlier request to it \(connection 1, id .*\) got none within 0.2 s.*not waited for again$/,
    );
    expect(transport.sent.length, 'a request known to be silent is not sent').toBe(sentBefore);
  });

  it('gives another tool its own full wait once the method has answered anything', async () => {
    const ledger = new TimeoutLedger(150);
    const { s } = silentSession(ledger, 150, (m) => m.params?.name === 'loud');
    await s.start();
    await s.request('tools/call', { name: 'loud', arguments: {} });
    await expect(s.request('tools/call', { name: 'quiet', arguments: {} })).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(ledger.plan('tools/call', { name: 'other' }, 150)).toEqual({ timeoutMs: 150 });
    expect(ledger.plan('tools/call', { name: 'quiet' }, 150).timeoutMs).toBeLessThan(150);
    // A request with its own timeout is the caller's business.
    expect(ledger.plan('tools/call', { name: 'quiet' }, 50)).toEqual({ timeoutMs: 50 });
  });

  it('probes each other tool briefly while the method never answered, and an answer clears the record', async () => {
    const ledger = new TimeoutLedger(1000);
    ledger.timedOut('tools/call', { name: 'a' }, { timeoutMs: 1000 }, 1, 1);
    expect(ledger.plan('tools/call', { name: 'b' }, 1000).timeoutMs).toBe(ledger.firstProbeMs);
    ledger.answered('tools/call', { name: 'a' });
    expect(ledger.plan('tools/call', { name: 'a' }, 1000)).toEqual({ timeoutMs: 1000 });
    expect(ledger.plan('tools/call', { name: 'b' }, 1000)).toEqual({ timeoutMs: 1000 });
  });
});

describe('Session collaborators', () => {
  it('tells each frame its owner: the abort scope of the work that sent the request', async () => {
    const { s } = session((m, _reply, t) =>
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } })),
    );
    await s.start();
    const mine = new AbortController().signal;
    const owners: Array<[string, AbortSignal | undefined]> = [];
    s.tap((f, owner) => owners.push([f.dir, owner]));
    await withAbortScope(mine, () => s.request('ping'));
    await s.request('ping');
    expect(owners).toEqual([
      ['out', mine],
      ['in', mine],
      ['out', undefined],
      ['in', undefined],
    ]);
  });

  it('ends every wait when the connection closes, so no timer outlives the run', async () => {
    const { s } = session(() => {});
    await s.start();
    const t0 = Date.now();
    const waiting = s.waitForMessage(() => false, 60_000);
    const sub = s.listen({ notifications: { toolsListChanged: true } });
    const acked = sub.acknowledgment(60_000);
    await s.close();
    expect(await waiting).toBeUndefined();
    expect(await acked).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('Session subscriptions and cancellation', () => {
  const ack = (id: unknown) => ({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
  });

  it('ties acknowledgment, notifications and the closing response to the listen request, keeping a wrong id type visible', async () => {
    const { s } = session((m, _reply, t) => {
      if (m.method !== 'subscriptions/listen') return;
      t.sink.message(JSON.stringify(ack(String(m.id))));
      t.sink.message(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
      t.sink.message(
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.id,
          result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': m.id } },
        }),
      );
    });
    await s.start();
    const sub = s.listen({ notifications: { toolsListChanged: true } }, { id: 41 });
    const end = await sub.ended;
    expect(end.exchange?.result?.resultType).toBe('complete');
    expect(sub.messages.map((m) => [m.msg.method ?? 'response', m.via])).toEqual([
      ['notifications/subscriptions/acknowledged', 'subscription-id'],
      ['notifications/tools/list_changed', 'only-open'],
      ['response', 'response'],
    ]);
    expect((sub.messages[0]!.msg.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId']).toBe('41');
    expect(sub.requestFrame?.text).toContain('"subscriptions/listen"');
    expect(sub.open).toBe(false);
  });

  it('waits for the next message with a deadline, and finds one that already arrived', async () => {
    const { s, transport } = session((m, _reply, t) => {
      if (m.method === 'subscriptions/listen') t.sink.message(JSON.stringify(ack(m.id)));
    });
    await s.start();
    const sub = s.listen({ notifications: {} }, { id: 'sub-a' });
    expect((await sub.acknowledgment(1000))?.msg.method).toBe('notifications/subscriptions/acknowledged');
    expect(await sub.acknowledgment(10)).toBeDefined();
    expect(await sub.waitFor((m) => m.msg.method === 'notifications/tools/list_changed', 10)).toBeUndefined();
    const later = sub.waitFor((m) => m.msg.method === 'notifications/tools/list_changed', 1000, 1);
    transport.sink.message(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-a' } },
      }),
    );
    expect((await later)?.via).toBe('subscription-id');
  });

  it('on stdio, cancels with notifications/cancelled and keeps what still arrives as late', async () => {
    const { s, transport } = session(() => {});
    await s.start();
    const sub = s.listen({ notifications: {} }, { id: 7 });
    const call = s.request('tools/call', { name: 'slow' }, { id: 8 });
    await sub.cancel();
    expect(await s.cancel(8)).toBe(true);
    await expect(call).rejects.toThrow(/cancelled by the suite/);
    expect((await sub.ended).error?.message).toMatch(/cancelled/);
    const sent = transport.sent;
    expect(sent.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId)).toEqual([7, 8]);
    transport.sink.message(JSON.stringify({ jsonrpc: '2.0', id: 8, result: { resultType: 'complete', content: [] } }));
    transport.sink.message(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } },
      }),
    );
    expect(s.lateResponses(8)).toHaveLength(1);
    expect(sub.messages.map((m) => m.afterCancel)).toEqual([true]);
    expect(s.violations).toEqual([]);
    expect(await s.cancel(8)).toBe(false);
  });
});

describe('HTTP transport', () => {
  it('parses an SSE body served under another content type, and tags each message with the request that carried it', async () => {
    const http = await import('node:http');
    const { HttpTransport } = await import('../harness/http.js');
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}\n\n',
        );
        res.end('event: message\ndata: {"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}\n\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    const got: Array<{ text: string; http?: unknown }> = [];
    const t = new HttpTransport({ url: `http://127.0.0.1:${port}/mcp`, headers: {}, maxMessageBytes: 1 << 20 });
    await t.start({ message: (text, info) => got.push({ text, http: info }), violation: () => {}, closed: () => {} });
    await t.send('{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{}}', { id: 5, method: 'subscriptions/listen' });
    await t.close();
    server.close();
    expect(got).toHaveLength(2);
    expect(got[0]!.http).toMatchObject({ status: 200, contentType: 'application/json', stream: true, requestId: 5 });
  });
});

describe('stopping servers (StopLedger)', () => {
  // One wait per failure: once a stop has waited out the stdin and SIGTERM steps in vain, later stops skip them,
  // unless asked to go the whole way (transport/exits-on-stdin-close judges its own stop).
  it('a server seen to ignore stdin close and SIGTERM is killed at once on later stops; a full stop still waits', async () => {
    const ledger = new StopLedger();
    // Ignores both, and says so once its handlers are in place (a stop before that would be no test of them).
    const script =
      "process.on('SIGTERM',()=>{});process.stdin.on('data',()=>{});process.stdin.on('end',()=>{});setInterval(()=>{},1000);console.log('ready')";
    const launch = async () => {
      const p = await ServerProcess.launch(`node -e "${script}"`, { redactor: new Redactor() });
      await new Promise((resolve) => p.stdout.once('data', resolve));
      return p;
    };
    const first = await (await launch()).stop(200, ledger);
    expect(first).toMatchObject({ step: 'SIGKILL' });
    expect(first.skipped).toBeUndefined();
    expect(ledger).toMatchObject({ stdinIgnored: true, sigtermIgnored: true });
    const second = await (await launch()).stop(200, ledger);
    expect(second).toMatchObject({ step: 'SIGKILL', skipped: ['stdin', 'SIGTERM'] });
    const full = await (await launch()).stop(200, ledger, true);
    expect(full).toMatchObject({ step: 'SIGKILL' });
    expect(full.skipped).toBeUndefined();
  });
});

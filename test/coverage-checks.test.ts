/**
 * Unit tests of the pieces behind the Streamable HTTP, resources and _meta
 * checks: Session.rawHttp (headers as a correct request sends them, then set
 * or left out; the whole answer returned and logged, nothing routed), the
 * URI template expansion, and the error-code and key-name judgements on a
 * scripted wire.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpTransport } from '../harness/http.js';
import { LineSplitter } from '../harness/lines.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Session } from '../harness/session.js';
import { expandTemplate } from '../suites/resources.js';

/** A loopback server that records each request's method and headers and answers with `answer`. */
async function recorder(answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: Array<{ method?: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const session = new Session(new HttpTransport({ url, headers: { Authorization: 'Bearer secret-token' }, maxMessageBytes: 1 << 20 }), {
    connection: 1,
    revision: '2026-07-28',
    redactor: new Redactor(['secret-token']),
    schema: ProtocolSchema.load('2026-07-28'),
    requestTimeoutMs: 2000,
    clock: () => 0,
  });
  await session.start();
  return {
    seen,
    session,
    url,
    close: async () => {
      await session.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('Session.rawHttp', () => {
  it('sends the headers a correct request carries, with some replaced (case-insensitively) and some left out', async () => {
    const r = await recorder((_req, res, body) => {
      const id = (JSON.parse(body) as { id: number }).id;
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Extra': 'yes' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete' } }));
    });
    try {
      const message = r.session.message('prompts/get', { name: 'greeting', arguments: {} });
      const plain = await r.session.rawHttp({ message });
      expect(r.seen[0]!.headers).toMatchObject({
        'mcp-method': 'prompts/get',
        'mcp-name': 'greeting',
        'mcp-protocol-version': '2026-07-28',
        authorization: 'Bearer secret-token',
        accept: 'application/json, text/event-stream',
      });
      expect(plain.status).toBe(200);
      expect(plain.headers['x-extra']).toBe('yes');
      expect(plain.messages).toHaveLength(1);
      // The answer is the probe's alone: no request of the session waited for it, nothing is a stray response.
      expect(r.session.violations).toEqual([]);

      await r.session.rawHttp({
        message: r.session.message('prompts/get', { name: 'greeting' }),
        headers: { 'mcp-name': 'other' },
        omit: ['MCP-PROTOCOL-VERSION'],
      });
      expect(r.seen[1]!.headers['mcp-name']).toBe('other');
      expect(r.seen[1]!.headers['mcp-protocol-version']).toBeUndefined();
      expect(r.seen[1]!.headers['mcp-method']).toBe('prompts/get');
      // Logged for the wire excerpt, secrets redacted.
      expect(r.session.frames().some((f) => f.dir === 'out' && f.text.includes('"prompts/get"'))).toBe(true);
      expect(JSON.stringify(r.session.frames())).not.toContain('secret-token');
    } finally {
      await r.close();
    }
  });

  it('GET without a body, SSE bodies split into messages, an empty answer described in the log', async () => {
    const r = await recorder((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(405, { Allow: 'POST' });
        res.end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n');
      res.end('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    });
    try {
      const get = await r.session.rawHttp({ method: 'GET' });
      expect(get.status).toBe(405);
      expect(r.seen[0]!.method).toBe('GET');
      expect(get.frames.at(-1)!.text).toBe('(HTTP 405, empty body)');
      const sse = await r.session.rawHttp({ message: r.session.message('tools/call', { name: 'slow' }) });
      expect(sse.sse).toBe(true);
      expect(sse.messages).toHaveLength(2);
      expect(sse.timedOut).toBeUndefined();
    } finally {
      await r.close();
    }
  });

  it('a stream that stays open is cut at the deadline and says so; headersOnly resolves at the headers', async () => {
    const r = await recorder((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    });
    try {
      const open = await r.session.rawHttp({ message: r.session.message('tools/call', { name: 'slow' }), timeoutMs: 200 });
      expect(open.timedOut).toBe(true);
      expect(open.messages).toHaveLength(1);
      const head = await r.session.rawHttp({ message: r.session.message('subscriptions/listen', {}), headersOnly: true });
      expect(head.headers['x-accel-buffering']).toBe('no');
      expect(head.sse).toBe(true);
    } finally {
      await r.close();
    }
  });
});

describe('URI template expansion (RFC 6570)', () => {
  it('expands simple, reserved and prefixed forms with one value', () => {
    expect(expandTemplate('users://{id}', '1')).toBe('users://1');
    expect(expandTemplate('file:///docs/{+path}', 'a')).toBe('file:///docs/a');
    expect(expandTemplate('https://x.example/search{?q,lang}', 'v')).toBe('https://x.example/search?q=v&lang=v');
    expect(expandTemplate('x://h{/seg}{.ext}', 'v')).toBe('x://h/v.v');
    expect(expandTemplate('x://h{;p}{#frag}', 'v')).toBe('x://h;p=v#v');
  });
});

describe('UTF-8 well-formedness', () => {
  it('a stdout line with a Latin-1 byte is delivered and reported once', () => {
    const lines: string[] = [];
    const bad: string[] = [];
    const s = new LineSplitter(
      1000,
      (l) => lines.push(l),
      () => {},
      (l) => bad.push(l),
    );
    s.push(Buffer.concat([Buffer.from('{"a":"21 '), Buffer.from([0xb0]), Buffer.from('C"}\n{"b":"°"}\n')]));
    expect(lines).toHaveLength(2);
    expect(bad).toHaveLength(1);
  });

  it('an HTTP body and an SSE stream with a Latin-1 byte are reported, a well-formed one is not', async () => {
    let n = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        n++;
        const bytes = Buffer.concat([
          Buffer.from(`{"jsonrpc":"2.0","id":${n},"result":{"t":"21 `),
          Buffer.from(n === 3 ? '°' : '\xb0', n === 3 ? 'utf8' : 'latin1'),
          Buffer.from('C"}}'),
        ]);
        if (n === 2) {
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          res.end(Buffer.concat([Buffer.from('event: message\ndata: '), bytes, Buffer.from('\n\n')]));
        } else {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(bytes);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const t = new HttpTransport({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
      headers: {},
      maxMessageBytes: 1 << 20,
    });
    const kinds: string[] = [];
    const messages: string[] = [];
    await t.start({ message: (m) => messages.push(m), violation: (kind) => kinds.push(kind), closed: () => {} });
    for (const id of [1, 2, 3]) await t.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`, { id, method: 'ping' });
    await t.close();
    server.close();
    expect(messages).toHaveLength(3);
    expect(kinds).toEqual(['not-utf8', 'not-utf8']);
  });
});

/**
 * Streamable HTTP transport (basic/transports/streamable-http): every message
 * is its own POST; the answer is a JSON body or an SSE stream scoped to the
 * request. Each transport instance owns its own agent, so a new instance is a
 * new TCP connection.
 */
import http from 'node:http';
import https from 'node:https';
import { createParser } from 'eventsource-parser';
import { TransportError } from './errors.js';
import { encodeHeaderValue } from './protocol.js';
import type { HttpInfo, SendInfo, SendOutcome, Transport, TransportSink } from './transport.js';

export interface HttpOptions {
  url: string;
  /** User headers (e.g. Authorization); values are secrets and never logged. */
  headers: Record<string, string>;
  maxMessageBytes: number;
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const;
  private sink: TransportSink | undefined;
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly open = new Set<http.ClientRequest>();
  private closed = false;

  constructor(private readonly opts: HttpOptions) {
    this.url = new URL(opts.url);
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 16 });
  }

  async start(sink: TransportSink): Promise<void> {
    this.sink = sink;
  }

  send(text: string, info: SendInfo): Promise<SendOutcome> {
    const sink = this.sink!;
    const headers: Record<string, string> = {
      ...this.opts.headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(info.protocolVersion ? { 'MCP-Protocol-Version': info.protocolVersion } : {}),
      ...(info.method ? { 'Mcp-Method': info.method } : {}),
      ...(info.name !== undefined ? { 'Mcp-Name': encodeHeaderValue(info.name) } : {}),
      ...info.headers,
    };
    const lib = this.url.protocol === 'https:' ? https : http;
    const max = this.opts.maxMessageBytes;
    return new Promise<SendOutcome>((resolve, reject) => {
      if (this.closed) return reject(new TransportError('connection closed'));
      const req = lib.request(this.url, { method: 'POST', headers, agent: this.agent, signal: info.signal });
      this.open.add(req);
      req.on('close', () => this.open.delete(req));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.name === 'AbortError') return resolve({});
        reject(new TransportError(describeNetError(err, this.opts.url)));
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const contentType = String(res.headers['content-type'] ?? '');
        const isSse = contentType.toLowerCase().startsWith('text/event-stream');
        const httpInfo: HttpInfo = {
          status,
          contentType,
          stream: isSse,
          ...(info.id !== undefined ? { requestId: info.id } : { notification: true }),
        };
        let delivered = false;
        let oversized = false;
        let snippet = '';
        res.on('aborted', () => {});
        res.on('error', () => {});
        if (isSse) {
          // Bytes fed since the last complete event; past `max` the event is dropped up to its end.
          let since = 0;
          let discarding = false;
          let tail = '';
          const parser = createParser({
            onEvent: (event) => {
              since = 0;
              if (event.data.trim() === '') return;
              delivered = true;
              sink.message(event.data, httpInfo);
            },
          });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (discarding) {
              const text = tail + chunk;
              const end = eventBoundary(text);
              if (end === -1) {
                tail = text.slice(-3);
                return;
              }
              discarding = false;
              tail = '';
              chunk = text.slice(end);
            }
            since += chunk.length;
            parser.feed(chunk);
            if (since > max) {
              oversized = true;
              sink.violation('oversized-message', `an SSE event exceeded the maximum message size (${max} bytes) and was dropped`, chunk.slice(0, 256));
              parser.reset({ consume: false });
              discarding = true;
              since = 0;
            }
          });
        } else {
          const parts: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (oversized) return;
            size += chunk.length;
            if (size > max) {
              oversized = true;
              const head = Buffer.concat([...parts, chunk].slice(0, 2)).subarray(0, 256).toString('utf8');
              sink.violation('oversized-message', `an HTTP response body exceeded the maximum message size (${max} bytes) and was dropped`, head);
              parts.length = 0;
              req.destroy();
              return;
            }
            parts.push(chunk);
          });
          res.on('end', () => {
            const body = Buffer.concat(parts).toString('utf8');
            if (body.trim() === '') return;
            // An HTTP error answer (401, 404, ...) may carry any body; only a JSON-RPC one is a message.
            const ok = status >= 200 && status < 300;
            if ((/json/i.test(contentType) || /^\s*[{[]/.test(body)) && (ok || /"jsonrpc"\s*:/.test(body))) {
              delivered = true;
              sink.message(body, httpInfo);
            } else {
              snippet = body.slice(0, 200);
            }
          });
        }
        res.on('close', () =>
          resolve({ http: httpInfo, ...(delivered ? {} : { bodySnippet: snippet }), ...(oversized ? { oversized } : {}) }),
        );
      });
      req.end(text);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const req of this.open) req.destroy();
    this.open.clear();
    this.agent.destroy();
  }
}

function describeNetError(err: NodeJS.ErrnoException, url: string): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${url}: connection refused`;
    case 'ENOTFOUND':
      return `cannot connect to ${url}: host not found`;
    case 'ECONNRESET':
      return `connection to ${url} was reset`;
    default:
      return `HTTP request to ${url} failed: ${err.message}`;
  }
}

/** Index just past the first SSE event boundary (a blank line) in `text`, or -1. */
function eventBoundary(text: string): number {
  const m = /\r\n\r\n|\n\n|\r\r|\r\n\n|\n\r\n/.exec(text);
  return m ? m.index + m[0].length : -1;
}

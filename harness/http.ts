/**
 * Streamable HTTP transport (basic/transports/streamable-http): every message
 * is its own POST; the answer is a JSON body or an SSE stream scoped to the
 * request. Each transport instance owns its own agent, so a new instance is a
 * new TCP connection.
 *
 * Legacy era (2025-11-25/basic/transports "Streamable HTTP"): the session id
 * the server assigns (`Mcp-Session-Id` on a response) is sent on every later
 * request, a standalone GET stream carries messages outside any call, and
 * closing ends the session with an HTTP DELETE.
 */
import http from 'node:http';
import https from 'node:https';
import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { TransportError } from './errors.js';
import { encodeHeaderValue } from './protocol.js';
import { waitedOut } from './waits.js';
import type { HttpInfo, RawHttpRequest, RawHttpResponse, SendInfo, SendOutcome, Transport, TransportSink } from './transport.js';

/** How an SSE body begins: a field line or a comment. */
const SSE_START = /^(?:(?:event|data|id|retry)[ \t]*:|:)/;

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
  /** Legacy era: the session id the server assigned, and the version header in use. */
  private legacySessionId: string | undefined;
  private legacyVersion: string | undefined;
  private legacy = false;
  /** Legacy era: the session was ended by `terminate()` (no second DELETE on close). */
  private terminated = false;

  constructor(private readonly opts: HttpOptions) {
    this.url = new URL(opts.url);
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 16 });
  }

  async start(sink: TransportSink): Promise<void> {
    this.sink = sink;
  }

  /** The MCP endpoint's URL. */
  get endpoint(): string {
    return this.opts.url;
  }

  /** The session id a legacy server assigned (undefined: none, or the modern era). */
  get sessionId(): string | undefined {
    return this.legacySessionId;
  }

  send(text: string, info: SendInfo): Promise<SendOutcome> {
    const headers = this.postHeaders(info);
    // Which POST an answer came on: a request's (by id), or a notification's.
    const origin = info.id !== undefined ? { requestId: info.id } : { notification: true };
    return this.exchange('POST', headers, text, info.signal, false, origin, info.onHeaders);
  }

  /** The headers of a POST carrying one message. */
  private postHeaders(info: SendInfo): Record<string, string> {
    return info.era === 'legacy'
      ? {
          ...this.opts.headers,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...this.legacyHeaders(info),
        }
      : {
          ...this.opts.headers,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(info.protocolVersion ? { 'MCP-Protocol-Version': info.protocolVersion } : {}),
          ...(info.method ? { 'Mcp-Method': info.method } : {}),
          ...(info.name !== undefined ? { 'Mcp-Name': encodeHeaderValue(info.name) } : {}),
          ...info.headers,
        };
  }

  /**
   * One HTTP exchange outside the JSON-RPC bookkeeping: the headers a POST of
   * `info` would carry (or, for another method, the user's headers and
   * Accept), with `omit` left out and `headers` set on top; the whole answer
   * is returned, nothing goes to the session.
   */
  raw(req: RawHttpRequest): Promise<RawHttpResponse> {
    const method = req.method ?? 'POST';
    const headers = this.rawHeaders(req, method);
    const lib = this.url.protocol === 'https:' ? https : http;
    const target = req.url === undefined ? this.url : new URL(req.url);
    if (target.origin !== this.url.origin)
      return Promise.reject(new TransportError(`raw HTTP: ${target.origin} is not the endpoint's origin`));
    const max = this.opts.maxMessageBytes;
    const started = Date.now();
    return new Promise<RawHttpResponse>((resolve, reject) => {
      if (this.closed) return reject(new TransportError('connection closed'));
      let request!: http.ClientRequest;
      let answer: RawHttpResponse | undefined;
      const parts: Buffer[] = [];
      let size = 0;
      let cut = false;
      const finish = (timedOut = false) => {
        clearTimeout(timer);
        if (!answer) return;
        completeRaw(answer, Buffer.concat(parts), cut);
        if (timedOut) answer.timedOut = true;
        answer.durationMs = Date.now() - started;
        resolve(answer);
        answer = undefined;
        request.destroy();
      };
      const timer = setTimeout(() => {
        waitedOut(`a raw HTTP ${method} answer`, req.timeoutMs);
        if (answer) finish(true);
        else {
          request.destroy();
          reject(new TransportError(`no HTTP answer to ${method} within ${req.timeoutMs} ms`));
        }
      }, req.timeoutMs);
      const start = (retried: boolean) => {
        const sent = lib.request(target, { method, headers, agent: this.agent });
        request = sent;
        this.open.add(sent);
        sent.on('close', () => this.open.delete(sent));
        sent.on('error', (err: NodeJS.ErrnoException) => {
          // As for every POST (send): a kept-alive socket the server closed just as it was reused, before any
          // answer, is Node's documented race, not the server's answer: the probe goes once more, on a fresh socket.
          if (!retried && !answer && sent.reusedSocket && err.code === 'ECONNRESET' && !this.closed) return start(true);
          clearTimeout(timer);
          if (answer) finish();
          else reject(new TransportError(describeNetError(err, this.opts.url)));
        });
        sent.on('response', onResponse);
        sent.end(req.body);
      };
      const onResponse = (res: http.IncomingMessage) => {
        const headersOut = flatHeaders(res.headers);
        const contentType = headersOut['content-type'] ?? '';
        answer = {
          status: res.statusCode ?? 0,
          headers: headersOut,
          body: '',
          messages: [],
          sse: /^text\/event-stream\b/i.test(contentType),
          durationMs: 0,
        };
        req.info?.onHeaders?.({ status: answer.status, contentType, stream: answer.sse });
        if (req.headersOnly) return finish();
        res.on('data', (chunk: Buffer) => {
          if (size + chunk.length > max) {
            parts.push(chunk.subarray(0, max - size));
            size = max;
            cut = true;
            return finish();
          }
          size += chunk.length;
          parts.push(chunk);
        });
        res.on('error', () => finish());
        res.on('end', () => finish());
        res.on('close', () => finish());
      };
      start(false);
    });
  }

  /** The headers of a raw request: the defaults of its method, `omit` left out, `headers` set on top. */
  private rawHeaders(req: RawHttpRequest, method: string): Record<string, string> {
    const defaults =
      method === 'POST'
        ? req.info
          ? this.postHeaders(req.info)
          : { ...this.opts.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
        : { ...this.opts.headers, Accept: 'application/json, text/event-stream' };
    const drop = new Set([...(req.omit ?? []), ...Object.keys(req.headers ?? {})].map((n) => n.toLowerCase()));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(defaults)) if (!drop.has(name.toLowerCase())) headers[name] = value;
    Object.assign(headers, req.headers);
    return headers;
  }

  listen(info: SendInfo): Promise<SendOutcome> {
    const headers = { ...this.opts.headers, Accept: 'text/event-stream', ...this.legacyHeaders(info) };
    return this.exchange('GET', headers, undefined, info.signal, true, { standalone: true });
  }

  private legacyHeaders(info: SendInfo): Record<string, string> {
    this.legacy = true;
    if (info.protocolVersion) this.legacyVersion = info.protocolVersion;
    return {
      ...(info.protocolVersion ? { 'MCP-Protocol-Version': info.protocolVersion } : {}),
      ...(this.legacySessionId !== undefined ? { 'Mcp-Session-Id': this.legacySessionId } : {}),
      ...info.headers,
    };
  }

  /**
   * One HTTP exchange. Resolves when the body (or SSE stream) has ended, or
   * with `early` as soon as the answer's headers arrived (the GET stream).
   */
  private exchange(
    method: 'POST' | 'GET',
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
    early: boolean,
    /** Which POST this exchange carries: a request's id (recorded on its frames), or a notification's. */
    origin: Pick<HttpInfo, 'requestId' | 'notification' | 'standalone'>,
    onHeaders?: (http: HttpInfo) => void,
  ): Promise<SendOutcome> {
    const sink = this.sink!;
    const lib = this.url.protocol === 'https:' ? https : http;
    return new Promise<SendOutcome>((resolve, reject) => {
      if (this.closed) return reject(new TransportError('connection closed'));
      let req!: http.ClientRequest;
      const start = (retried: boolean) => {
        req = lib.request(this.url, { method, headers, agent: this.agent, signal });
        const sent = req;
        this.open.add(sent);
        let answered = false;
        sent.on('response', () => (answered = true));
        sent.on('close', () => this.open.delete(sent));
        sent.on('error', (err: NodeJS.ErrnoException) => {
          if (err.name === 'AbortError') return resolve({});
          // A kept-alive socket the server closed (idle) just as it was reused, before any answer:
          // the race Node documents for reused sockets. The request is sent once more, on a fresh socket.
          if (!retried && !answered && sent.reusedSocket && err.code === 'ECONNRESET' && !this.closed) return start(true);
          reject(new TransportError(describeNetError(err, this.opts.url)));
        });
        sent.on('response', onResponse);
        sent.end(body);
      };
      const onResponse = (res: http.IncomingMessage) =>
        this.onAnswer(res, { sink, early, origin, onHeaders, destroy: () => req.destroy() }, resolve);
      start(false);
    });
  }

  /**
   * The answer to an exchange: note a legacy session id, resolve at once for
   * `early` (the GET stream), and read the body for the session.
   */
  private onAnswer(
    res: http.IncomingMessage,
    how: {
      sink: TransportSink;
      early: boolean;
      origin: Pick<HttpInfo, 'requestId' | 'notification'>;
      onHeaders?: (http: HttpInfo) => void;
      destroy: () => void;
    },
    resolve: (outcome: SendOutcome) => void,
  ): void {
    const status = res.statusCode ?? 0;
    const assigned = res.headers['mcp-session-id'];
    if (this.legacy && this.legacySessionId === undefined && typeof assigned === 'string' && assigned !== '') {
      this.legacySessionId = assigned;
    }
    const contentType = String(res.headers['content-type'] ?? '');
    const declaredSse = contentType.toLowerCase().startsWith('text/event-stream');
    const httpInfo: HttpInfo = { status, contentType, stream: declaredSse, ...how.origin };
    how.onHeaders?.({ ...httpInfo });
    if (how.early) {
      resolve({ http: httpInfo });
      // A GET answered without a stream (405: none offered) carries nothing for the session.
      if (!declaredSse || status < 200 || status >= 300) {
        res.resume();
        return;
      }
    }
    const read = bodyReader({
      sink: how.sink,
      httpInfo,
      status,
      contentType,
      declaredSse,
      max: this.opts.maxMessageBytes,
      destroy: how.destroy,
    });
    res.on('aborted', () => {});
    res.on('error', () => {});
    res.on('data', read.data);
    res.on('end', read.end);
    res.on('close', () => {
      const { delivered, snippet, oversized } = read.state;
      resolve({ http: httpInfo, ...(delivered ? {} : { bodySnippet: snippet }), ...(oversized ? { oversized } : {}) });
    });
  }

  /** Legacy era: end the session with an HTTP DELETE now; later requests still carry its id. */
  async terminate(): Promise<SendOutcome> {
    if (this.legacySessionId === undefined || this.closed) return {};
    this.terminated = true;
    const status = await this.endSession(this.legacySessionId);
    return status === undefined ? {} : { http: { status } };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const req of this.open) req.destroy();
    this.open.clear();
    if (this.legacySessionId !== undefined && !this.terminated) await this.endSession(this.legacySessionId);
    this.agent.destroy();
  }

  /** Legacy era: tell the server the session is over (HTTP DELETE; 405 means it does not allow that). */
  private endSession(sessionId: string): Promise<number | undefined> {
    const lib = this.url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = {
      ...this.opts.headers,
      'Mcp-Session-Id': sessionId,
      ...(this.legacyVersion ? { 'MCP-Protocol-Version': this.legacyVersion } : {}),
    };
    return new Promise<number | undefined>((resolve) => {
      const req = lib.request(this.url, { method: 'DELETE', headers, agent: this.agent, timeout: 1000 });
      let status: number | undefined;
      req.on('response', (res) => {
        status = res.statusCode;
        res.resume();
        res.on('end', () => resolve(status));
        res.on('error', () => resolve(status));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(status));
      req.on('close', () => resolve(status));
      req.end();
    });
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

/** One answer whose body is read for the session: where its messages go, its HTTP facts, and how to stop the exchange. */
interface Answer {
  sink: TransportSink;
  httpInfo: HttpInfo;
  status: number;
  contentType: string;
  /** The content type says text/event-stream. */
  declaredSse: boolean;
  max: number;
  /** Stop the exchange (a body past the maximum message size). */
  destroy: () => void;
}

/** What reading one answer's body found. */
interface BodyState {
  /** A message went to the session. */
  delivered: boolean;
  /** Something past the maximum message size was dropped. */
  oversized: boolean;
  /** The start of a body that carried no message. */
  snippet: string;
}

/** Reads one answer's body: `data` per chunk, `end` when it has ended; `state` says what it found. */
function bodyReader(a: Answer): { state: BodyState; data: (chunk: Buffer) => void; end: () => void } {
  const { sink, httpInfo, status, contentType, max } = a;
  const state: BodyState = { delivered: false, oversized: false, snippet: '' };
  // The body is an SSE stream when the server says so, or (judged elsewhere)
  // when it streams SSE events under another content type.
  let mode: 'sse' | 'body' | undefined = a.declaredSse ? 'sse' : undefined;
  let head = '';
  const decoder = new StringDecoder('utf8');
  const checkUtf8 = utf8Checker(sink, () => (mode === 'sse' ? 'SSE stream' : 'response body'));
  const feedSse = sseFeeder(sink, httpInfo, max, state);
  const parts: Buffer[] = [];
  let size = 0;
  const lines = lineReader((line) => {
    if (!(status >= 200 && status < 300) && !/"jsonrpc"\s*:/.test(line.toString('utf8'))) return;
    state.delivered = true;
    if (!isUtf8(line)) checkUtf8(line);
    sink.message(line.toString('utf8'), httpInfo);
  }, httpInfo);
  const feed = (chunk: Buffer) => {
    if (mode === 'sse') {
      checkUtf8(chunk);
      return feedSse(decoder.write(chunk));
    }
    if (state.oversized) return;
    size += chunk.length;
    if (size > max) {
      state.oversized = true;
      const excerpt = Buffer.concat([...parts, chunk].slice(0, 2))
        .subarray(0, 256)
        .toString('utf8');
      sink.violation(
        'oversized-message',
        `an HTTP response body exceeded the maximum message size (${max} bytes) and was dropped`,
        excerpt,
      );
      parts.length = 0;
      a.destroy();
      return;
    }
    parts.push(chunk);
    if (lines.mode !== false && chunk.includes(10)) size = lines.take(parts);
  };
  const data = (chunk: Buffer) => {
    if (mode === undefined) {
      head += chunk.toString('latin1');
      parts.push(chunk);
      const start = head.trimStart();
      if (start === '' && head.length < 1024) return;
      mode = SSE_START.test(start) ? 'sse' : 'body';
      httpInfo.stream = mode === 'sse';
      const buffered = Buffer.concat(parts);
      parts.length = 0;
      feed(buffered);
      return;
    }
    feed(chunk);
  };
  const end = () => {
    if (mode === 'sse') return;
    const bytes = Buffer.concat(parts);
    const body = bytes.toString('utf8');
    if (body.trim() === '') return;
    // An HTTP error answer (401, 404, ...) may carry any body; only a JSON-RPC one is a message.
    const ok = status >= 200 && status < 300;
    if ((/json/i.test(contentType) || /^\s*[{[]/.test(body)) && (ok || /"jsonrpc"\s*:/.test(body))) {
      state.delivered = true;
      if (!isUtf8(bytes)) checkUtf8(bytes);
      sink.message(body, httpInfo);
    } else {
      state.snippet = body.slice(0, 200);
    }
  };
  return { state, data, end };
}

/**
 * A body that is not an SSE stream, read leniently as it comes: when its
 * first line is a whole JSON object, each line is a message delivered as the
 * line ends (newline-separated JSON, a framing the transport does not allow
 * and the check that owns it judges); otherwise (`mode` false) the body is
 * one message, read at its end. `take` delivers the complete lines buffered
 * in `parts`, leaves the rest there, and returns its size.
 */
function lineReader(deliver: (line: Buffer) => void, httpInfo: HttpInfo) {
  const r = {
    mode: undefined as boolean | undefined,
    delivered: 0,
    take(parts: Buffer[]): number {
      const bytes = Buffer.concat(parts);
      let from = 0;
      for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, from)) {
        const line = bytes.subarray(from, nl);
        const text = line.toString('utf8').trim();
        if (text !== '' && r.mode === undefined && !isJsonObject(text)) {
          r.mode = false;
          break;
        }
        from = nl + 1;
        if (text === '') continue;
        r.mode = true;
        if (++r.delivered > 1) httpInfo.lines = true;
        deliver(line);
      }
      parts.length = 0;
      if (from < bytes.length) parts.push(bytes.subarray(from));
      return r.mode ? bytes.length - from : bytes.length;
    },
  };
  return r;
}

/** The text is one whole JSON object. */
function isJsonObject(text: string): boolean {
  if (!text.startsWith('{')) return false;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Well-formedness of the stream's bytes, checked as they come (one violation per answer); `what` names the stream. */
function utf8Checker(sink: TransportSink, what: () => string): (chunk: Buffer) => void {
  const strict = new TextDecoder('utf-8', { fatal: true });
  let badUtf8 = false;
  return (chunk: Buffer) => {
    if (badUtf8) return;
    try {
      strict.decode(chunk, { stream: true });
    } catch {
      badUtf8 = true;
      sink.violation(
        'not-utf8',
        `an HTTP ${what()} is not well-formed UTF-8 (read with replacement characters)`,
        chunk.subarray(0, 256).toString('utf8'),
      );
    }
  };
}

/** An SSE stream's text, fed as it comes: each event with data is a message for the session. */
function sseFeeder(sink: TransportSink, httpInfo: HttpInfo, max: number, state: BodyState): (text: string) => void {
  // SSE: characters fed since the last complete event; past `max` the event is dropped up to its end.
  let since = 0;
  let discarding = false;
  let tail = '';
  const parser = createParser({
    onEvent: (event) => {
      since = 0;
      if (event.data.trim() === '') return;
      state.delivered = true;
      sink.message(event.data, httpInfo);
    },
  });
  return (text: string) => {
    if (discarding) {
      const joined = tail + text;
      const end = eventBoundary(joined);
      if (end === -1) {
        tail = joined.slice(-3);
        return;
      }
      discarding = false;
      tail = '';
      text = joined.slice(end);
    }
    since += text.length;
    parser.feed(text);
    if (since > max) {
      state.oversized = true;
      sink.violation(
        'oversized-message',
        `an SSE event exceeded the maximum message size (${max} bytes) and was dropped`,
        text.slice(0, 256),
      );
      parser.reset({ consume: false });
      discarding = true;
      since = 0;
    }
  };
}

/** A raw answer's body read to its end (or cut at the size limit): its text, its encoding and the messages in it. */
function completeRaw(answer: RawHttpResponse, bytes: Buffer, cut: boolean): void {
  const body = bytes.toString('utf8');
  answer.body = body;
  if (!cut && !isUtf8(bytes)) answer.invalidUtf8 = true;
  answer.sse = answer.sse || SSE_START.test(body.trimStart());
  if (answer.sse) {
    const parser = createParser({ onEvent: (e) => e.data.trim() !== '' && answer.messages.push(e.data) });
    parser.feed(body);
  } else if (body.trim() !== '') answer.messages.push(body);
}

/** An answer's headers, lower-cased, a repeated one joined with ", ". */
function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

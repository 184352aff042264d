/**
 * The Streamable HTTP session of the legacy era (2025-11-25/basic/transports
 * "Session Management", "Listening for Messages from the Server", "Sending
 * Messages to the Server", "Multiple Connections", "Resumability and
 * Redelivery"): a session the server no longer has answers 404, a request
 * without the session id 400, the standalone GET is an SSE stream (or 405)
 * that carries no responses, a request of the server goes on one stream only,
 * and SSE event IDs, when the server gives them, are unique across the
 * session's streams, a POST's stream opening with a priming event (the 202
 * for a notification, a rule of both eras, is streamable-http/notification-status).
 * The modern transport has no sessions, no GET stream and no event IDs.
 */
import { releaseWhenHeld, slowCall } from './triggers.js';
import { whyNotCallableAsWritten } from './safety.js';
import { TransportError } from '../harness/errors.js';
import { KnownSilentError } from '../harness/timeouts.js';
import type { Exchange, RequestOptions, Session } from '../harness/session.js';
import { sseEvents, type SseEvent } from '../harness/sse.js';
import { defineCheck, frameKey, frameMessage, show, type Probe } from './check.js';
import type { JsonObject } from '../model/json.js';
import type { InputCapability } from '../model/config.js';
import type { WireFrame } from '../model/wire.js';

/** A session id no server issued (visible ASCII, shaped like one). */
export const UNKNOWN_SESSION_ID = 'mcp-conformance-unknown-session-0d5e7c1a';

interface Answer {
  status?: number;
  exchange?: Exchange;
  frames: WireFrame[];
  detail: string;
}

/** Send a request and tell its HTTP status, whether or not a JSON-RPC response came with it. */
async function statusOf(s: Session, method: string, opts: RequestOptions = {}): Promise<Answer> {
  try {
    const ex = await s.request(method, {}, opts);
    const status = ex.http?.status;
    return { status, exchange: ex, frames: ex.frames, detail: `HTTP ${status ?? '?'} ${show(ex.response, 200)}` };
  } catch (err) {
    const frames = (err as { frames?: WireFrame[] }).frames ?? [];
    if (err instanceof TransportError && err.httpStatus !== undefined) return { status: err.httpStatus, frames, detail: err.message };
    return { frames, detail: err instanceof Error ? err.message : String(err) };
  }
}

function requireSession(t: { session: Session; skip(reason: string): never }): string {
  const id = t.session.sessionId;
  if (id === undefined) return t.skip('the server assigned no Mcp-Session-Id (it serves the legacy era statelessly)');
  return id;
}

export const terminated404 = defineCheck({
  id: 'sessions/terminated-404',
  title: 'a request naming a session the server no longer has (ended with DELETE, or never issued) gets HTTP 404',
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Session Management' },
  quote:
    'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
  async run(t) {
    requireSession(t);
    // A session id the server never issued: to the server it is a session it does not have.
    const unknown = await statusOf(t.session, 'ping', { headers: { 'Mcp-Session-Id': UNKNOWN_SESSION_ID } });
    t.note('unknown session id', unknown.detail);
    t.expect(unknown.status === 404, {
      expected: `HTTP 404 for a request with Mcp-Session-Id ${UNKNOWN_SESSION_ID}, which the server never issued`,
      actual: unknown.detail,
      wire: unknown.frames,
    });
    // A session of its own, ended with DELETE.
    const s = await t.ctx.openSession();
    const id = s.sessionId;
    if (id === undefined) return t.notObserved('the fresh session was assigned no session id');
    const deleted = await s.terminate();
    t.note('DELETE', deleted === undefined ? 'no answer' : `HTTP ${deleted}`);
    if (deleted === 405) {
      t.note('ended session', 'the server does not allow clients to terminate sessions (405): only the unknown id is judged');
      return;
    }
    if (deleted === undefined || deleted < 200 || deleted >= 300) {
      return t.notObserved(
        `DELETE of session ${id} was answered ${deleted === undefined ? 'not at all' : `HTTP ${deleted}`}, neither 2xx nor 405`,
      );
    }
    const after = await statusOf(s, 'ping');
    t.expect(after.status === 404, {
      expected: `HTTP 404 for a request with Mcp-Session-Id ${id}, after DELETE ended that session (HTTP ${deleted})`,
      actual: after.detail,
      wire: after.frames,
    });
  },
});

export const missingId400 = defineCheck({
  id: 'sessions/missing-id-400',
  title: 'a request without Mcp-Session-Id (other than initialize) gets HTTP 400 from a server that assigns sessions',
  level: 'SHOULD',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Session Management' },
  quote:
    'Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
  async run(t) {
    requireSession(t);
    // A connection without the handshake carries no session id.
    const s = await t.ctx.openSession({ handshake: false });
    const answer = await statusOf(s, 'tools/list');
    t.note('without Mcp-Session-Id', answer.detail);
    if (answer.status !== undefined && answer.status >= 200 && answer.status < 300 && answer.exchange?.result) {
      return t.skip('the server serves a request without a session id: it assigns sessions but does not require them');
    }
    t.expect(answer.status === 400, {
      expected: 'HTTP 400 Bad Request for tools/list without Mcp-Session-Id',
      actual: answer.detail,
      wire: answer.frames,
    });
  },
});

const isResponse = (m: JsonObject) => !('method' in m) && ('result' in m || 'error' in m);

/** A frame that came on a standalone GET stream (not on a POST's answer). */
const onGetStream = (f: WireFrame) => f.dir === 'in' && f.http?.standalone === true;

export const getStream = defineCheck({
  id: 'sessions/get-stream',
  title: 'the standalone GET is answered with an SSE stream or 405, and the stream carries no responses',
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Listening for Messages from the Server' },
  quote:
    'The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.',
  parts: {
    'no-response': {
      level: 'MUST',
      spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Listening for Messages from the Server' },
      quote:
        'The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request.',
    },
  },
  async run(t) {
    // A client MAY hold several streams: a second GET on a fresh session's id.
    const s = await t.ctx.openSession();
    await s.openGetStream();
    await s.request('ping').catch(() => undefined);
    for (const session of t.ctx.allSessions()) {
      for (const g of session.getStreams) {
        const sse = g.status >= 200 && g.status < 300 && (g.contentType ?? '').toLowerCase().startsWith('text/event-stream');
        t.expect(sse || g.status === 405, {
          expected: 'Content-Type: text/event-stream, or HTTP 405 Method Not Allowed',
          actual: `GET ${session.sessionId === undefined ? '(no session id)' : `with Mcp-Session-Id ${session.sessionId}`} answered HTTP ${g.status}, Content-Type ${show(g.contentType ?? '')}`,
          wire: session.frames().slice(0, 6),
        });
      }
      for (const f of session.frames().filter(onGetStream)) {
        let m: JsonObject;
        try {
          m = JSON.parse(f.text) as JsonObject;
        } catch {
          continue;
        }
        if (typeof m === 'object' && m !== null && isResponse(m)) {
          t.expect(false, {
            part: 'no-response',
            expected: 'only requests and notifications on the GET stream',
            actual: `a JSON-RPC response (id ${show(m.id)})`,
            wire: [f],
          });
        }
      }
    }
  },
});

/** A protocol version no server speaks, for the version header probe. */
export const UNSUPPORTED_HEADER_VERSION = '1900-01-01';

export const versionHeader400 = defineCheck({
  id: 'sessions/version-header-400',
  title: 'a request whose MCP-Protocol-Version header names an unsupported version gets HTTP 400',
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Protocol Version Header' },
  quote: 'If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.',
  async run(t) {
    // On the primary session, with its session id: only the header is wrong.
    const answer = await statusOf(t.session, 'tools/list', { headerVersion: UNSUPPORTED_HEADER_VERSION });
    t.note(`MCP-Protocol-Version: ${UNSUPPORTED_HEADER_VERSION}`, answer.detail);
    t.expect(answer.status === 400, {
      expected: `HTTP 400 Bad Request for tools/list with MCP-Protocol-Version: ${UNSUPPORTED_HEADER_VERSION}`,
      actual: answer.detail,
      wire: answer.frames,
    });
  },
});

/** The request a server makes of each client capability. */
const REQUEST_OF_CAPABILITY: Record<InputCapability, string> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};

export const callRequestsOnCallStream = defineCheck({
  id: 'sessions/call-requests-on-call-stream',
  unlockedBy: ['capabilityTool'],
  title: "requests the server makes for a call (the configured capability tool) come on that call's stream, not the GET stream",
  level: 'SHOULD',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Listening for Messages from the Server' },
  quote: 'These messages SHOULD be unrelated to any concurrently-running JSON-RPC request from the client.',
  async run(t) {
    const tool = t.ctx.config.capabilityTool;
    if (!tool)
      return t.notObserved('no capabilityTool in the configuration file: the suite knows no call that makes the server ask the client');
    const excluded = whyNotCallableAsWritten(t.ctx, tool.name);
    if (excluded) return t.notObserved(`capabilityTool ${tool.name} ${excluded}`);
    // Only requests for what the tool needs are its own; anything else may be unrelated, as the GET stream allows.
    const methods = new Set(tool.requires.map((c) => REQUEST_OF_CAPABILITY[c]));
    const asked: Array<{ method: string; frame: WireFrame }> = [];
    const off = t.session.onMessage((m, frame) => {
      if (typeof m.method === 'string' && 'id' in m && methods.has(m.method)) asked.push({ method: m.method, frame });
    });
    let call: Exchange;
    try {
      call = await t.request('tools/call', { name: tool.name, arguments: tool.arguments ?? {} });
    } finally {
      off();
    }
    t.note(
      'the call',
      `${call.error ? 'error' : 'result'} after the server asked the client: ${asked.map((a) => a.method).join(', ') || 'nothing'}`,
    );
    if (asked.length === 0)
      return t.notObserved(
        `${tool.name} made no ${[...methods].join(' or ')} request to the client (declared: ${show(t.session.declaredCapabilities)})`,
      );
    for (const a of asked) {
      const onGet = a.frame.http?.standalone === true;
      // The same request on the call's stream too is a broadcast: sessions/no-broadcast's.
      if (onGet && asked.some((b) => b.frame.http?.standalone !== true && b.frame.text === a.frame.text)) continue;
      t.expect(!onGet, {
        expected: `${a.method}, made for tools/call ${JSON.stringify(call.id)} while it ran, on that call's response stream`,
        actual: `it came on the standalone GET stream, which carries messages unrelated to running requests`,
        wire: [...call.frames, a.frame].sort((x, y) => x.seq - y.seq),
      });
    }
  },
});

/**
 * Why a set of session ids is not unique or is predictable (a counter: the
 * same prefix and small increasing numbers), or undefined. Randomness cannot
 * be proven from a few samples; only these two are judged.
 */
export function sessionIdProblem(ids: string[]): string | undefined {
  if (new Set(ids).size < ids.length) return `the same id was assigned to two sessions: ${ids.map((i) => JSON.stringify(i)).join(', ')}`;
  let prefix = ids[0] ?? '';
  for (const id of ids) while (!id.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const rest = ids.map((id) => id.slice(prefix.length));
  if (ids.length > 1 && rest.every((r) => /^\d{1,15}$/.test(r))) {
    const n = rest.map(Number);
    const steps = n.slice(1).map((x, i) => x - n[i]!);
    if (steps.every((d) => d > 0 && d <= 1000))
      return `the ids count up (${ids.map((i) => JSON.stringify(i)).join(', ')}): the next one can be guessed`;
  }
  return undefined;
}

export const idUnique = defineCheck({
  id: 'sessions/id-unique',
  title: 'session ids are unique and not guessable (no repeats, no counter)',
  level: 'SHOULD',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Session Management' },
  quote:
    'The session ID SHOULD be globally unique and cryptographically secure (e.g., a securely generated UUID, a JWT, or a cryptographic hash).',
  async run(t) {
    requireSession(t);
    const sessions = [t.session, await t.ctx.openSession(), await t.ctx.openSession()];
    const ids = sessions.map((s) => s.sessionId).filter((id): id is string => id !== undefined);
    t.note('session ids', ids.length);
    const problem = sessionIdProblem(ids);
    t.expect(problem === undefined, {
      expected: 'a different, unguessable Mcp-Session-Id for each session',
      actual: problem ?? '',
      wire: sessions.flatMap((s) => s.frames().slice(0, 2)),
    });
  },
});

type RawAnswer = Awaited<ReturnType<Session['rawHttp']>>;

/** One POST answered with an SSE stream: the request, the answer and the stream's events as written. */
interface SseAnswer {
  what: string;
  answer: RawAnswer;
  events: SseEvent[];
}

/**
 * POSTs on the primary session that a server may answer with an SSE stream: ping, and the configured slow
 * call with a progressToken, twice (two streams of one session). Only the answers that are streams.
 */
async function sseAnswers(t: Probe): Promise<SseAnswer[]> {
  const s = t.session;
  const usable = (await slowCall(t.ctx, 'sessions/sse-event-ids')).call;
  const requests: Array<{ what: string; method: string; params: JsonObject; token?: string }> = [
    { what: 'ping', method: 'ping', params: {} },
  ];
  for (const n of usable ? [1, 2] : []) {
    const token = `mcpc-ids-${n}-${s.nextId()}`;
    const params = { name: usable!.name, arguments: usable!.arguments ?? {}, _meta: { progressToken: token } };
    requests.push({ what: `tools/call ${usable!.name} (${n})`, method: 'tools/call', params, token });
  }
  const out: SseAnswer[] = [];
  for (const r of requests) {
    // A held slow call is let finish once its stream opens (releaseWhenHeld).
    const release = usable && r.token ? releaseWhenHeld(s, usable, r.token) : undefined;
    try {
      const answer = await s.rawHttp({ message: s.message(r.method, r.params), onHeaders: release?.onHeaders }).finally(release?.done);
      if (answer.sse) out.push({ what: r.what, answer, events: sseEvents(answer.body) });
    } catch (err) {
      if (!(err instanceof TransportError || err instanceof KnownSilentError)) throw err;
      t.note(`${r.what} not answered`, err.message);
    }
  }
  return out;
}

const hasId = (e: SseEvent) => e.id !== undefined && e.id !== '';

export const sseEventIds = defineCheck({
  id: 'sessions/sse-event-ids',
  unlockedBy: ['slowTool'],
  title: "SSE event IDs are unique across a session's streams, and a POST's stream opens with a priming event",
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Resumability and Redelivery' },
  quote:
    'If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use.',
  parts: {
    priming: {
      level: 'SHOULD',
      spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Sending Messages to the Server' },
      quote:
        'The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID).',
    },
  },
  async run(t) {
    const streams = await sseAnswers(t);
    if (streams.length === 0)
      return t.notObserved(
        (await slowCall(t.ctx, 'sessions/sse-event-ids')).call
          ? 'no request was answered with an SSE stream'
          : 'ping was not answered with an SSE stream, and the suite knows no slow call (none configured, none found): name a call the server answers with a stream (slowTool)',
      );
    const withIds = streams.filter((x) => x.events.some(hasId));
    t.note('SSE streams', `${streams.length}, ${withIds.length} with event IDs`);
    // Event IDs are the server's choice (Servers MAY attach an id); the priming event carries one, so it is judged with them.
    if (withIds.length === 0)
      return t.skip('the server attaches no id to its SSE events (a MAY): no event ID to be unique, and no resumable stream to prime');
    const seen = new Map<string, SseAnswer>();
    // One finding per pair of streams (or stream) that repeat an ID: the first ID they share.
    const repeated = new Set<string>();
    for (const x of streams) {
      for (const e of x.events.filter(hasId)) {
        const first = seen.get(e.id!);
        if (!first) seen.set(e.id!, x);
        else if (!repeated.has(`${first.what}\n${x.what}`)) {
          repeated.add(`${first.what}\n${x.what}`);
          t.expect(false, {
            expected: 'a different event ID on every SSE event of the session',
            actual: `event ID ${show(e.id)} came on the stream answering ${first.what}${first === x ? ' twice' : ` and again on the stream answering ${x.what}`}`,
            wire: first === x ? x.answer.frames : [...first.answer.frames, ...x.answer.frames],
          });
        }
      }
    }
    for (const x of withIds) {
      const head = x.events[0]!;
      t.expect(hasId(head) && (head.data ?? '') === '', {
        part: 'priming',
        expected: `the stream answering ${x.what} opens with an event of an event ID and an empty data field`,
        actual: `its first event: ${show(head.text, 200)}`,
        wire: x.answer.frames,
      });
    }
  },
});

export const noBroadcast = defineCheck({
  id: 'sessions/no-broadcast',
  title: 'a request the server makes goes on one stream, not on both a call stream and the GET stream',
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Multiple Connections' },
  quote:
    'The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.',
  observer: true,
  async run(t) {
    // What is told for sure to be one message: a request of the server (its id names it). A copy on the
    // GET stream before the call's stream ended was no redelivery of a message lost with a closed
    // stream: both streams were open. Responses twice are protocol/response-ids' (one response per request).
    let judged = 0;
    for (const session of t.ctx.allSessions()) {
      const frames = session.frames().filter((f) => f.dir === 'in' && f.http !== undefined);
      const answeredAt = new Map<string, number>();
      const onCall = new Map<string, WireFrame>();
      for (const f of frames) {
        const m = frameMessage(f);
        if (!m || f.http?.requestId === undefined) continue;
        const stream = `${typeof f.http.requestId}:${f.http.requestId}`;
        if (!('method' in m) && m.id === f.http.requestId) answeredAt.set(stream, f.seq);
        else if (typeof m.method === 'string' && 'id' in m) onCall.set(`${typeof m.id}:${String(m.id)}`, f);
      }
      for (const f of frames.filter((x) => x.http?.standalone === true)) {
        const m = frameMessage(f);
        if (!m || typeof m.method !== 'string' || !('id' in m)) continue;
        judged++;
        const first = onCall.get(`${typeof m.id}:${String(m.id)}`);
        if (!first || first.text !== f.text) continue;
        const stream = `${typeof first.http!.requestId}:${first.http!.requestId}`;
        if (f.seq > (answeredAt.get(stream) ?? Number.NEGATIVE_INFINITY)) continue;
        t.ctx.framesJudged.add(frameKey(f));
        t.expect(false, {
          expected: `${m.method} ${show(m.id)} on one stream only`,
          actual: `it came on the stream of request ${show(first.http!.requestId)} and again on the GET stream while that stream was open`,
          wire: [first, f],
        });
      }
    }
    t.note('server requests on GET streams', judged);
  },
});

export const sessionChecks = [
  idUnique,
  terminated404,
  missingId400,
  getStream,
  versionHeader400,
  callRequestsOnCallStream,
  sseEventIds,
  noBroadcast,
];

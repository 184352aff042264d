/**
 * The Streamable HTTP server rules a correct client never puts to the test
 * (basic/transports/streamable-http): a foreign Origin, a notification POST,
 * wrong or missing request-metadata headers, an unknown method, an older
 * client's GET, DELETE, session id and Last-Event-ID. Each probe is one HTTP
 * exchange outside the JSON-RPC bookkeeping (Session.rawHttp), so what the
 * server answers to it is judged here alone.
 */
import { TransportError } from '../harness/errors.js';
import { KnownSilentError } from '../harness/timeouts.js';
import type { Session } from '../harness/session.js';
import { SUBSCRIPTION_NOTIFICATIONS } from '../harness/subscription.js';
import { ERROR_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { defineCheck, frameKey, show, VerdictSignal, type Probe } from './check.js';
import { listenFact } from './subscriptions.js';
import { promptArguments } from './prompts.js';
import { whyNotCallable } from './safety.js';
import { probeCall } from './targets.js';
import { releaseWhenHeld, slowCall } from './triggers.js';
import { encodeHeaderValue, findHeaderAnnotations, TOKEN } from '../harness/protocol.js';

const { HEADER_MISMATCH, METHOD_NOT_FOUND, UNSUPPORTED_VERSION } = ERROR_CODES;

/** An origin that is never a real one (RFC 2606 reserves `.invalid`). */
const FOREIGN_ORIGIN = 'http://mcp-conformance.invalid';
/** A method no revision defines. */
const UNKNOWN_METHOD = 'mcp-conformance/no-such-method';

type RawAnswer = Awaited<ReturnType<Session['rawHttp']>>;

/** The one JSON-RPC message of an answer, parsed (undefined: none, or not JSON). */
function messageOf(r: RawAnswer): JsonObject | undefined {
  const last = r.messages.at(-1);
  if (last === undefined) return undefined;
  try {
    const m = JSON.parse(last) as unknown;
    return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** What an answer was, in one line: status, and the JSON-RPC result or error it carried. */
function describeRaw(r: RawAnswer): string {
  const m = messageOf(r);
  const rpc = !m
    ? r.body === ''
      ? 'no body'
      : `body ${show(r.body, 120)}`
    : 'error' in m
      ? `JSON-RPC error ${show((m.error as JsonObject | undefined)?.code)} ${show((m.error as JsonObject | undefined)?.message, 120)}`
      : 'result' in m
        ? 'a result'
        : `message ${show(m, 120)}`;
  return `HTTP ${r.status}, ${rpc}`;
}

/** The answer carried a JSON-RPC result: the server served the request. */
const served = (r: RawAnswer) => r.status >= 200 && r.status < 300 && messageOf(r)?.result !== undefined;

/** A request that reaches the server's method handling on the primary connection. */
function plainRequest(t: Probe): string {
  return t.ctx.era === 'legacy' ? 'ping' : 'server/discover';
}

/** Send `message` raw; a failed HTTP exchange ends the check not-observed with why. */
async function send(t: Probe, req: Parameters<Session['rawHttp']>[0]): Promise<RawAnswer> {
  try {
    return await t.session.rawHttp(req);
  } catch (err) {
    if (err instanceof TransportError || err instanceof KnownSilentError)
      return t.notObserved(`the probe could not be sent: ${err.message}`);
    throw err;
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export const origin = defineCheck({
  id: 'streamable-http/origin',
  title: 'a request with a foreign Origin is refused with 403 Forbidden',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Security & Endpoint' },
  quote:
    'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.',
  legacy: {
    spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Security Warning' },
    quote:
      'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.',
  },
  transports: ['http'],
  async run(t) {
    const endpoint = new URL(t.session.endpoint!);
    // Which origins a public server admits is its own policy; a server on a loopback
    // address serving a page of a foreign site is what DNS rebinding exploits.
    if (!LOOPBACK.has(endpoint.hostname)) {
      return t.notObserved(
        `the endpoint ${endpoint.host} is not a loopback address, so which origins are invalid is the server's policy; run the server on 127.0.0.1 or localhost to have its Origin validation judged`,
      );
    }
    const method = plainRequest(t);
    const own = await send(t, { message: t.session.message(method), headers: { Origin: endpoint.origin } });
    t.note('own origin', describeRaw(own));
    for (const [value, why] of [
      [FOREIGN_ORIGIN, 'a foreign site, not this loopback server'],
      ['null', 'an opaque origin: a sandboxed frame or a local file'],
    ] as const) {
      const r = await send(t, { message: t.session.message(method), headers: { Origin: value } });
      t.expect(r.status === 403, {
        expected: `${method} with Origin: ${value} (${why}): HTTP 403 Forbidden`,
        actual: describeRaw(r),
        wire: r.frames,
      });
    }
  },
});

export const notificationStatus = defineCheck({
  id: 'streamable-http/notification-status',
  title: 'a notification POST gets 202 Accepted with no body, or an HTTP error status',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Sending Messages' },
  quote:
    'If the server accepts it, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept it, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
  legacy: {
    spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Sending Messages to the Server' },
    quote:
      'If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
  },
  transports: ['http'],
  async run(t) {
    // notifications/cancelled naming a request that never was: a server may take it or refuse it.
    const s = t.session;
    const { params } = s.message('notifications/cancelled', { requestId: s.nextId(), reason: 'mcp-conformance: a notification POST' });
    const r = await send(t, { message: { jsonrpc: '2.0', method: 'notifications/cancelled', params } });
    t.note('answer', describeRaw(r));
    const accepted = r.status === 202 && r.body === '';
    t.expect(accepted || r.status >= 400, {
      expected: 'HTTP 202 Accepted with an empty body (accepted), or an HTTP error status 4xx/5xx (not accepted)',
      actual: `HTTP ${r.status}${r.body === '' ? ' with an empty body' : ` with a body: ${show(r.body, 200)}`}`,
      wire: r.frames,
    });
  },
});

/** The media type of a Content-Type value, lower case, without parameters. */
const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export const contentType = defineCheck({
  id: 'streamable-http/content-type',
  title: 'every answer to a request is application/json or text/event-stream',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Sending Messages' },
  quote:
    'If the body is a JSON-RPC request, the server MUST return either Content-Type: application/json (a single JSON object) or Content-Type: text/event-stream (an SSE response stream).',
  legacy: {
    spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Sending Messages to the Server' },
    quote:
      'If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.',
  },
  transports: ['http'],
  observer: true,
  async run(t) {
    // Every message that came on the answer to a request's POST (frames carry the Content-Type it came under).
    const byType = new Map<string, { count: number; frame: WireFrame }>();
    let judged = 0;
    for (const s of t.ctx.allSessions()) {
      for (const f of s.frames()) {
        if (f.dir !== 'in' || f.http?.requestId === undefined) continue;
        judged++;
        const type = mediaType(f.http.contentType);
        if (type === 'application/json' || type === 'text/event-stream') continue;
        const seen = byType.get(type);
        if (seen) seen.count++;
        else byType.set(type, { count: 1, frame: f });
      }
    }
    t.note('messages judged', judged);
    if (judged === 0) return t.notObserved('no answer to a request came over HTTP');
    for (const [type, seen] of byType) {
      t.ctx.framesJudged.add(frameKey(seen.frame));
      t.expect(false, {
        expected: 'Content-Type application/json or text/event-stream',
        actual: `${seen.count} message(s) came under Content-Type ${show(seen.frame.http?.contentType ?? '(none)')}${type === '' ? ' (no Content-Type)' : ''}`,
        wire: [seen.frame],
      });
    }
  },
});

export const unknownMethod = defineCheck({
  id: 'streamable-http/unknown-method',
  title: 'an unknown method gets 404 Not Found and JSON-RPC error -32601',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Protocol Version Header' },
  quote:
    'If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).',
  transports: ['http'],
  async run(t) {
    const r = await send(t, { message: t.session.message(UNKNOWN_METHOD) });
    const error = messageOf(r)?.error as JsonObject | undefined;
    t.note('answer', describeRaw(r));
    t.expect(r.status === 404 && error?.code === METHOD_NOT_FOUND, {
      expected: `${UNKNOWN_METHOD}: HTTP 404 Not Found carrying JSON-RPC error -32601`,
      actual: describeRaw(r),
      wire: r.frames,
    });
  },
});

/** One request whose headers are then spoiled, with the answer to it sent correctly. */
interface Probed {
  what: string;
  method: string;
  params: JsonObject;
  /** The answer with correct headers. */
  control: RawAnswer;
}

/** A request for a method with `Mcp-Name`, built from what the server lists: prompts/get, resources/read, tools/call. */
async function namedRequests(t: Probe): Promise<Array<{ method: string; params: JsonObject }>> {
  const caps = t.ctx.discovery().capabilities ?? {};
  const out: Array<{ method: string; params: JsonObject }> = [];
  if (caps.prompts !== undefined) {
    const prompt = (await t.ctx.walk('prompts/list')).items.find((p) => typeof p.name === 'string');
    if (prompt) out.push({ method: 'prompts/get', params: { name: prompt.name!, arguments: promptArguments(prompt) } });
  }
  if (caps.resources !== undefined) {
    const resource = (await t.ctx.walk('resources/list')).items.find((r) => typeof r.uri === 'string');
    if (resource) out.push({ method: 'resources/read', params: { uri: resource.uri! } });
  }
  if (caps.tools !== undefined) {
    const tools = (await t.ctx.tools()).items.filter((x) => typeof x.name === 'string');
    // A tool the suite may call, with valid arguments: the header checks need a call the server serves.
    const callable = tools.map((x) => probeCall(t.ctx, x)).find((c) => typeof c !== 'string');
    if (callable && typeof callable !== 'string')
      out.push({ method: 'tools/call', params: { name: callable.name, arguments: callable.arguments } });
    // A tool that requires an argument, called without it: nothing is done, whatever the server answers.
    // Still a call of the tool: a server that does not validate runs it, so only a tool the suite may call so.
    const tool = tools.find(
      (x) =>
        whyNotCallable(t.ctx, x, 'invalid arguments') === undefined &&
        Array.isArray((x.inputSchema as JsonObject | undefined)?.required) &&
        ((x.inputSchema as JsonObject).required as unknown[]).length > 0,
    );
    if (tool) out.push({ method: 'tools/call', params: { name: tool.name!, arguments: {} } });
  }
  return out;
}

/** Expect a header-validation rejection: HTTP 400 and a HeaderMismatch error valid against its schema. */
function expectMismatch(t: Probe, r: RawAnswer, expected: string, opts: { part?: string; alsoCodes?: number[] } = {}): void {
  const m = messageOf(r);
  const error = m?.error as JsonObject | undefined;
  const codes = [HEADER_MISMATCH, ...(opts.alsoCodes ?? [])];
  if (
    !t.expect(r.status === 400 && codes.includes(error?.code as number), {
      expected: `${expected}: HTTP 400 Bad Request carrying JSON-RPC error ${codes.join(' or ')}`,
      actual: describeRaw(r),
      wire: r.frames,
      ...(opts.part ? { part: opts.part } : {}),
    })
  ) {
    return;
  }
  const def = error?.code === HEADER_MISMATCH ? 'HeaderMismatchError' : 'UnsupportedProtocolVersionError';
  const problems = t.ctx.protocolSchema.validate(def, m);
  t.expect(problems.length === 0, {
    expected: `an error response valid against ${def} of the ${t.ctx.revision} schema`,
    actual: problems.join('; '),
    wire: r.frames,
    ...(opts.part ? { part: opts.part } : {}),
  });
}

/** The requests the header checks spoil: the plain one, and each named one the server serves with correct headers. */
async function probedRequests(t: Probe, named: boolean): Promise<Probed[]> {
  const out: Probed[] = [];
  const candidates = [{ method: 'server/discover', params: {} as JsonObject }, ...(named ? await namedRequests(t) : [])];
  for (const c of candidates) {
    const control = await send(t, { message: t.session.message(c.method, c.params) });
    out.push({ what: c.method, ...c, control });
  }
  return out;
}

export const headerMismatch = defineCheck({
  id: 'streamable-http/header-mismatch',
  title: 'a header that disagrees with the body is refused with 400 and HeaderMismatch (-32020)',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Validation' },
  quote:
    'Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body. … When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code:',
  parts: {
    protocolVersion: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Protocol Version Header' },
      quote:
        'If the values do not match, the server MUST reject the request with 400 Bad Request and a HeaderMismatch JSON-RPC error (see Server Validation).',
    },
  },
  transports: ['http'],
  async run(t) {
    const s = t.session;
    const supported = t.ctx.discovery().exchange?.result?.supportedVersions;
    const other = Array.isArray(supported) ? supported.find((v) => typeof v === 'string' && v !== s.protocolVersion) : undefined;
    let judged = 0;
    for (const p of await probedRequests(t, true)) {
      if (!served(p.control)) {
        t.note(`${p.what} not served with correct headers`, describeRaw(p.control));
        continue;
      }
      judged++;
      const spoilt: Array<{ header: string; value: string; alsoCodes?: number[]; part?: string }> = [];
      if (p.method === 'server/discover') {
        spoilt.push({ header: 'Mcp-Method', value: 'tools/list' });
        // A header naming a version the server does not support is also an unsupported version (-32022).
        spoilt.push(
          typeof other === 'string'
            ? { header: 'MCP-Protocol-Version', value: other, part: 'protocolVersion' }
            : { header: 'MCP-Protocol-Version', value: '2099-01-01', alsoCodes: [UNSUPPORTED_VERSION], part: 'protocolVersion' },
        );
      } else {
        const field = p.method === 'resources/read' ? 'uri' : 'name';
        spoilt.push({ header: 'Mcp-Name', value: `${String(p.params[field])}-mismatch` });
      }
      for (const x of spoilt) {
        const r = await send(t, { message: s.message(p.method, p.params), headers: { [x.header]: x.value } });
        expectMismatch(t, r, `${p.method} with ${x.header}: ${x.value}, disagreeing with the body`, {
          alsoCodes: x.alsoCodes,
          part: x.part,
        });
      }
    }
    t.note('requests judged', judged);
    if (judged === 0) t.notObserved('no request was served with correct headers, so a refusal could not be told from any other');
  },
});

export const headerMissing = defineCheck({
  id: 'streamable-http/header-missing',
  title: 'a request without a required header is refused with 400 and HeaderMismatch (-32020)',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Validation' },
  quote:
    'When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code: … Validation failure conditions include: A required standard header (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing.',
  parts: {
    version: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Protocol Version Header' },
      quote:
        'A server that supports clients implementing protocol versions earlier than 2025-06-18 (which did not define the MCP-Protocol-Version header) MAY treat a request that omits the header as protocol version 2025-03-26. A server that does not support such clients MUST reject a request without the header per Server Validation.',
    },
    caseInsensitive: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Case Sensitivity' },
      quote: 'Clients and servers MUST use case-insensitive comparisons for header names.',
    },
  },
  transports: ['http'],
  async run(t) {
    const s = t.session;
    let judged = 0;
    for (const p of await probedRequests(t, true)) {
      if (!served(p.control)) {
        t.note(`${p.what} not served with correct headers`, describeRaw(p.control));
        continue;
      }
      judged++;
      if (p.method === 'server/discover') {
        const noMethod = await send(t, { message: s.message(p.method, p.params), omit: ['Mcp-Method'] });
        expectMismatch(t, noMethod, `${p.method} without Mcp-Method`);
        // Without the version header the request is either refused or taken for 2025-03-26, where server/discover is no method.
        const noVersion = await send(t, { message: s.message(p.method, p.params), omit: ['MCP-Protocol-Version'] });
        t.expect(!served(noVersion), {
          expected: `${p.method} without MCP-Protocol-Version: refused (or taken for 2025-03-26, which has no such method), not served`,
          actual: describeRaw(noVersion),
          wire: noVersion.frames,
          part: 'version',
        });
      } else {
        const r = await send(t, { message: s.message(p.method, p.params), omit: ['Mcp-Name'] });
        expectMismatch(t, r, `${p.method} without Mcp-Name`);
      }
      await expectRecasedServed(t, p);
    }
    t.note('requests judged', judged);
    if (judged === 0) t.notObserved('no request was served with correct headers, so a refusal could not be told from any other');
  },
});

/**
 * The request of `p` with its standard headers named in unusual letter case (all lower, all upper, mixed):
 * header names compare case-insensitively, so it is served as with the usual spelling.
 */
async function expectRecasedServed(t: Probe, p: Probed): Promise<void> {
  const message = t.session.message(p.method, p.params);
  const version = ((message.params as JsonObject)._meta as JsonObject | undefined)?.['io.modelcontextprotocol/protocolVersion'];
  const headers: Record<string, string> = { 'MCP-METHOD': p.method };
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  const field = p.method === 'resources/read' ? 'uri' : 'name';
  if (p.method !== 'server/discover') headers['mCP-nAME'] = encodeHeaderValue(String(p.params[field]));
  const r = await send(t, { message, headers });
  t.expect(served(r), {
    expected: `${p.method} with its headers spelled ${Object.keys(headers).join(', ')}: served as with the usual spelling (${describeRaw(p.control)})`,
    actual: describeRaw(r),
    wire: [...p.control.frames, ...r.frames],
    part: 'caseInsensitive',
  });
}

export const headerSentinel = defineCheck({
  id: 'streamable-http/header-sentinel',
  title: 'a Base64-sentinel Mcp-Name is decoded before it is compared',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Value Encoding' },
  quote:
    'In particular, servers MUST decode an encoded Mcp-Name or Mcp-Param-{Name} value before comparing it to the corresponding request body value during Server Validation.',
  parts: {
    compared: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Validation' },
      quote:
        'For headers that permit the Base64 sentinel encoding (Mcp-Name and Mcp-Param-{Name}), servers MUST decode encoded values (see Value Encoding) before comparing them to the body value.',
    },
  },
  transports: ['http'],
  async run(t) {
    const s = t.session;
    const named = await namedRequests(t);
    if (named.length === 0)
      return t.notObserved('the server lists no prompt, resource or tool taking a required argument, so no request carries Mcp-Name');
    for (const n of named) {
      const field = n.method === 'resources/read' ? 'uri' : 'name';
      const value = String(n.params[field]);
      const control = await send(t, { message: s.message(n.method, n.params) });
      // The sentinel form of a value that needs none: still to be decoded, and then equal.
      const encoded = `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
      const r = await send(t, { message: s.message(n.method, n.params), headers: { 'Mcp-Name': encoded } });
      const error = messageOf(r)?.error as JsonObject | undefined;
      const refused = error?.code === HEADER_MISMATCH || (r.status === 400 && control.status !== 400);
      t.expect(!refused, {
        expected: `${n.method} with Mcp-Name ${encoded} (${show(value)} Base64-encoded): answered as with the plain value (${describeRaw(control)})`,
        actual: describeRaw(r),
        wire: [...control.frames, ...r.frames],
      });
      // A different value in the sentinel form: decoded, it disagrees with the body, so the request is refused.
      if (!served(control)) continue;
      const wrong = `=?base64?${Buffer.from(`${value}-mismatch`, 'utf8').toString('base64')}?=`;
      const mismatch = await send(t, { message: s.message(n.method, n.params), headers: { 'Mcp-Name': wrong } });
      expectMismatch(
        t,
        mismatch,
        `${n.method} with Mcp-Name ${wrong} (${show(`${value}-mismatch`)} Base64-encoded), disagreeing with the body`,
        {
          part: 'compared',
        },
      );
    }
  },
});

/** A header-mirrored argument of a tool the suite may call: the annotation's header name, its path, and the call. */
interface MirroredCall {
  tool: string;
  header: string;
  path: string[];
  type: unknown;
  args: JsonObject;
}

/** The value at a property path of the arguments. */
function valueAt(args: unknown, path: string[]): unknown {
  let v = args;
  for (const key of path) v = typeof v === 'object' && v !== null ? (v as JsonObject)[key] : undefined;
  return v;
}

/** The same arguments with one value replaced. */
function withValue(args: JsonObject, path: string[], value: unknown): JsonObject {
  const copy = structuredClone(args);
  let node: JsonObject = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as JsonObject;
  }
  node[path.at(-1)!] = value as JsonObject[string];
  return copy;
}

/** Tools with a valid, statically reachable `x-mcp-header` annotation, each with a call the suite may send (valid, safe arguments). */
async function mirroredCalls(t: Probe): Promise<MirroredCall[]> {
  const out: MirroredCall[] = [];
  for (const tool of (await t.ctx.tools()).items) {
    const annotations = findHeaderAnnotations(tool.inputSchema).filter((a) => a.path && typeof a.value === 'string' && TOKEN.test(a.value));
    if (annotations.length === 0) continue;
    // The probes vary the call's headers and arguments: made-up calls, whatever call they start from.
    const held = whyNotCallable(t.ctx, tool, 'header probes');
    const call = held ?? probeCall(t.ctx, tool);
    if (typeof call === 'string') {
      t.note(`${String(tool.name)} not called`, call);
      continue;
    }
    for (const a of annotations)
      out.push({ tool: call.name, header: `Mcp-Param-${String(a.value)}`, path: a.path!, type: a.type, args: call.arguments });
  }
  return out;
}

/** The same arguments without the value at a property path. */
function withoutValue(args: JsonObject, path: string[]): JsonObject {
  const copy = structuredClone(args);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = typeof node === 'object' && node !== null ? (node as JsonObject)[key] : undefined;
  if (typeof node === 'object' && node !== null) delete (node as JsonObject)[path.at(-1)!];
  return copy;
}

/** One mirrored argument given a value, and the call with it served with correct headers. */
interface ServedMirror {
  c: MirroredCall;
  value: string | number | boolean;
  params: JsonObject;
}

/**
 * The rows of "Server Behavior for Custom Headers" a server answers on its own: with the value provided the
 * header is validated (a wrong value refused), with the value null or the argument left out it is not
 * expected (whatever the server answers, not HeaderMismatch), with the value in the body it is required.
 */
async function judgeRows(t: Probe, m: ServedMirror): Promise<void> {
  const s = t.session;
  const { c, value, params } = m;
  const other = typeof value === 'string' ? `${value}-mismatch` : typeof value === 'boolean' ? String(!value) : String(value + 1);
  const mismatch = await send(t, { message: s.message('tools/call', params), headers: { [c.header]: other } });
  expectMismatch(t, mismatch, `tools/call ${c.tool} with ${c.header}: ${other}, the argument being ${show(value)}`, { part: 'provided' });
  const missing = await send(t, { message: s.message('tools/call', params), omit: [c.header] });
  expectMismatch(t, missing, `tools/call ${c.tool} without ${c.header}, the argument being ${show(value)}`, { part: 'omitted' });
  const argument = `arguments.${c.path.join('.')}`;
  for (const [part, args, what] of [
    ['nullValue', withValue(params.arguments as JsonObject, c.path, null), `${argument} null`],
    ['absent', withoutValue(params.arguments as JsonObject, c.path), `no ${argument}`],
  ] as const) {
    const r = await send(t, { message: s.message('tools/call', { name: c.tool, arguments: args }), omit: [c.header] });
    const error = messageOf(r)?.error as JsonObject | undefined;
    t.expect(error?.code !== HEADER_MISMATCH, {
      expected: `tools/call ${c.tool} with ${what} and no ${c.header}: not refused for want of the header (any other answer)`,
      actual: describeRaw(r),
      wire: r.frames,
      part,
    });
  }
}

/** The Base64 sentinel forms: the plain value encoded is served; a string with non-ASCII characters, encoded from UTF-8, is not a mismatch. */
async function judgeEncoded(t: Probe, m: ServedMirror): Promise<void> {
  const s = t.session;
  const { c, value, params } = m;
  const sentinel = `=?base64?${Buffer.from(String(value), 'utf8').toString('base64')}?=`;
  const encoded = await send(t, { message: s.message('tools/call', params), headers: { [c.header]: sentinel } });
  t.expect(served(encoded), {
    expected: `tools/call ${c.tool} with ${c.header}: ${sentinel} (${show(String(value))} Base64-encoded): served as with the plain value`,
    actual: describeRaw(encoded),
    wire: encoded.frames,
  });
  if (typeof value !== 'string') return;
  // The argument may refuse the new value (an enum, a pattern): only a header mismatch is judged.
  const wide = `${value}-\u00e9\u4e16`;
  const header = encodeHeaderValue(wide);
  const r = await send(t, {
    message: s.message('tools/call', { name: c.tool, arguments: withValue(params.arguments as JsonObject, c.path, wide) }),
    headers: { [c.header]: header },
  });
  const error = messageOf(r)?.error as JsonObject | undefined;
  t.expect(error?.code !== HEADER_MISMATCH, {
    expected: `tools/call ${c.tool} with the argument ${show(wide)} and ${c.header}: ${header} (its UTF-8 bytes Base64-encoded): not a header mismatch`,
    actual: describeRaw(r),
    wire: r.frames,
    part: 'decodeUtf8',
  });
}

export const paramHeaders = defineCheck({
  id: 'streamable-http/param-headers',
  title: 'an Mcp-Param-* header is checked against its argument: decoded, required when the value is given, not expected without one',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
  quote:
    'Any server that processes the message body MUST validate that encoded header values, after decoding if Base64-encoded, match the corresponding values in the request body. Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 (HeaderMismatch) if any validation fails.',
  parts: {
    provided: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
      quote: 'Parameter value provided Client MUST include the header Server MUST validate header matches body',
    },
    nullValue: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
      quote: 'Parameter value is null Client MUST omit the header Server MUST NOT expect the header',
    },
    absent: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
      quote: 'Parameter not in arguments Client MUST omit the header Server MUST NOT expect the header',
    },
    omitted: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
      quote: 'Client omits header but value is in body Non-conforming client Server MUST reject the request',
    },
    invalidCharacters: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Behavior for Custom Headers' },
      quote:
        'Servers MUST reject requests with a recognized Mcp-Param-{Name} header that contains invalid characters (see Value Encoding).',
    },
    numeric: {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Server Validation' },
      quote:
        'When validating integer parameter values, servers SHOULD compare the header value and the body value numerically rather than as strings (e.g., 42.0 and 42 are considered equal).',
    },
    decodeUtf8: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Value Encoding' },
      quote: 'Servers and intermediaries that need to inspect these values MUST decode them accordingly.',
    },
  },
  transports: ['http'],
  async run(t) {
    const s = t.session;
    const calls = await mirroredCalls(t);
    if (calls.length === 0)
      return t.notObserved(
        'no listed tool the suite may call has a valid x-mcp-header annotation (a read-only tool, or one the configuration file allows)',
      );
    let judged = 0;
    for (const c of calls) {
      let args = c.args;
      let value = valueAt(args, c.path);
      // An absent optional argument is given a value of its type, so that the header is due.
      if (value === undefined || value === null) {
        value = c.type === 'integer' ? 42 : c.type === 'boolean' ? true : c.type === 'string' ? 'mcp-conformance' : undefined;
        if (value === undefined) continue;
        args = withValue(args, c.path, value);
      }
      if (!(typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value)))) continue;
      const params = { name: c.tool, arguments: args };
      const control = await send(t, { message: s.message('tools/call', params) });
      if (!served(control)) {
        t.note(`${c.tool} ${c.header} not served with correct headers`, describeRaw(control));
        continue;
      }
      judged++;
      await judgeEncoded(t, { c, value, params });
      await judgeRows(t, { c, value, params });
      // A byte outside visible ASCII (sent as Latin-1): an invalid header character.
      const invalid = await send(t, { message: s.message('tools/call', params), headers: { [c.header]: `mcp\u00e9conformance` } });
      expectMismatch(t, invalid, `tools/call ${c.tool} with ${c.header} carrying a non-ASCII byte`, { part: 'invalidCharacters' });
      if (typeof value === 'number') {
        const numeric = await send(t, { message: s.message('tools/call', params), headers: { [c.header]: `${value}.0` } });
        t.expect(served(numeric), {
          expected: `tools/call ${c.tool} with ${c.header}: ${value}.0, the argument being ${value}: served as with ${value}`,
          actual: describeRaw(numeric),
          wire: numeric.frames,
          part: 'numeric',
        });
      }
    }
    t.note('mirrored arguments judged', judged);
    if (judged === 0) t.notObserved('no call of a tool with x-mcp-header annotations was served with correct headers');
  },
});

export const sseEnds = defineCheck({
  id: 'streamable-http/sse-ends',
  unlockedBy: ['slowTool'],
  title: 'the final response ends its SSE stream',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Receiving Messages' },
  quote: 'The final JSON-RPC response SHOULD terminate the stream.',
  legacy: {
    spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Sending Messages to the Server' },
    quote: 'After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream.',
  },
  transports: ['http'],
  async run(t) {
    // The configured slow call with a progressToken: the request a server most likely answers with a stream.
    const found = await slowCall(t.ctx, 'streamable-http/sse-ends');
    if (!found.call) return t.notObserved(`${found.reason} (a call a server answers with an SSE stream)`);
    const slow = found.call;
    const s = t.session;
    const token = `mcpc-sse-${s.nextId()}`;
    const message = s.message('tools/call', { name: slow.name, arguments: slow.arguments ?? {}, _meta: { progressToken: token } });
    // A held call is let finish once its stream opens (releaseWhenHeld).
    const release = releaseWhenHeld(s, slow, token);
    const r = await send(t, { message, onHeaders: release.onHeaders }).finally(release.done);
    if (!r.sse) return t.notObserved(`tools/call ${slow.name} was answered without an SSE stream (${describeRaw(r)})`);
    const final = messageOf(r);
    const answered = final !== undefined && final.id === message.id && ('result' in final || 'error' in final);
    if (!answered) return t.notObserved(`the SSE stream carried no response to tools/call ${slow.name} within ${s.requestTimeoutMs} ms`);
    t.note('stream', `${r.messages.length} event(s) in ${r.durationMs} ms`);
    t.expect(!r.timedOut, {
      expected: 'the SSE stream ends with the final response',
      actual: `the stream was still open ${s.requestTimeoutMs} ms after the request was sent, after its final response`,
      wire: r.frames,
    });
  },
});

export const requestStreamNotifications = defineCheck({
  id: 'streamable-http/request-stream-notifications',
  title: "notifications on a request's stream relate to that request",
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Receiving Messages' },
  quote:
    'The server MAY send JSON-RPC notifications — for example, notifications/progress or notifications/message — before the final response. These notifications MUST relate to the originating client request.',
  transports: ['http'],
  observer: true,
  async run(t) {
    // What can be told without knowing a server's own notifications: a subscription's notification
    // (list changes, resource updates, acknowledgments) belongs on a subscriptions/listen stream, and
    // a progress notification names the progressToken of the request whose stream carries it.
    let judged = 0;
    const faults: Array<{ expected: string; actual: string; wire: WireFrame[] }> = [];
    for (const s of t.ctx.allSessions()) {
      const requests = new Map<string, { method: string; token: unknown; frame: WireFrame }>();
      for (const f of s.frames()) {
        let m: JsonObject | undefined;
        try {
          m = JSON.parse(f.text) as JsonObject;
        } catch {
          continue;
        }
        if (typeof m !== 'object' || m === null) continue;
        if (f.dir === 'out') {
          if ((typeof m.id === 'string' || typeof m.id === 'number') && typeof m.method === 'string') {
            const meta = ((m.params as JsonObject | undefined)?._meta ?? {}) as JsonObject;
            requests.set(`${typeof m.id}:${m.id}`, { method: m.method, token: meta.progressToken, frame: f });
          }
          continue;
        }
        const stream = f.http?.requestId;
        if (stream === undefined || typeof m.method !== 'string' || 'id' in m) continue;
        const request = requests.get(`${typeof stream}:${stream}`);
        if (!request || request.method === 'subscriptions/listen') continue;
        judged++;
        const params = (m.params ?? {}) as JsonObject;
        if (SUBSCRIPTION_NOTIFICATIONS.has(m.method)) {
          faults.push({
            expected: `on the stream of ${request.method} only notifications about it (${m.method} belongs on a subscriptions/listen stream)`,
            actual: `${m.method} on the response stream of ${request.method}`,
            wire: [request.frame, f],
          });
        } else if (m.method === 'notifications/progress' && params.progressToken !== request.token) {
          faults.push({
            expected: `progress on the stream of ${request.method} for its own progressToken ${show(request.token ?? '(none sent)')}`,
            actual: `notifications/progress for progressToken ${show(params.progressToken)}`,
            wire: [request.frame, f],
          });
        }
      }
    }
    t.note('notifications on request streams', judged);
    for (const f of faults.slice(0, 5)) t.expect(false, f);
  },
});

export const olderClients = defineCheck({
  id: 'streamable-http/older-clients',
  title: "an older client's GET and DELETE get 405 Method Not Allowed",
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Earlier Streamable HTTP Revisions' },
  quote:
    'A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed.',
  parts: {
    sessionId: {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Earlier Streamable HTTP Revisions' },
      quote:
        'A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: … An Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs. A Last-Event-ID header: ignore it; streams are not resumable.',
    },
  },
  transports: ['http'],
  async run(t) {
    const s = t.session;
    // A server that also speaks 2025-11-25 gives GET, DELETE and session ids their meaning there.
    const init = await send(t, {
      message: {
        jsonrpc: '2.0',
        id: s.nextId(),
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-conformance', version: '0.1.0' } },
      },
      headers: { 'MCP-Protocol-Version': '2025-11-25' },
      omit: ['Mcp-Method'],
    });
    if (served(init))
      return t.skip(
        'the server also speaks 2025-11-25 (it answered initialize with a result), so these rules for a server of this revision only do not apply',
      );
    for (const method of ['GET', 'DELETE']) {
      const r = await send(t, { method, headersOnly: true });
      t.expect(r.status === 405, {
        expected: `HTTP ${method} to the MCP endpoint: 405 Method Not Allowed`,
        actual: `HTTP ${r.status}`,
        wire: r.frames,
      });
    }
    const plain = 'server/discover';
    for (const [header, value] of [
      ['Mcp-Session-Id', 'mcp-conformance-stale-session'],
      ['Last-Event-ID', 'mcp-conformance-1'],
    ] as const) {
      const r = await send(t, { message: s.message(plain), headers: { [header]: value } });
      const minted = r.headers['mcp-session-id'];
      t.expect(served(r) && minted === undefined, {
        expected: `${plain} with ${header}: ${value}: served as without it, and no Mcp-Session-Id in the answer`,
        actual: `${describeRaw(r)}${minted !== undefined ? `, Mcp-Session-Id: ${show(minted)}` : ''}`,
        wire: r.frames,
        part: 'sessionId',
      });
    }
  },
});

export const accelBuffering = defineCheck({
  id: 'streamable-http/x-accel-buffering',
  title: 'an SSE response carries X-Accel-Buffering: no',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Receiving Messages' },
  quote: 'When initiating an SSE stream, servers SHOULD include the X-Accel-Buffering: no header in the HTTP response.',
  transports: ['http'],
  async run(t) {
    // subscriptions/listen is always answered with an SSE stream; only its headers are read.
    // A listen that got nothing at all is subscriptions/acknowledged-first's finding, waited for once per run.
    const fact = listenFact(t);
    t.requires(fact);
    let r: Awaited<ReturnType<typeof send>>;
    try {
      r = await send(t, {
        message: t.session.message('subscriptions/listen', { notifications: { toolsListChanged: true } }),
        headersOnly: true,
      });
    } catch (err) {
      if (err instanceof VerdictSignal && /no HTTP answer/.test(err.reason))
        fact.failed ??= `a subscriptions/listen POST got ${err.reason.replace(/^.*?: /, '')}`;
      throw err;
    }
    if (!r.sse)
      return t.notObserved(
        `subscriptions/listen was not answered with an SSE stream (${describeRaw(r)}), and no other request is sure to be`,
      );
    const value = r.headers['x-accel-buffering'];
    t.expect(value !== undefined && value.trim().toLowerCase() === 'no', {
      expected: 'X-Accel-Buffering: no on the SSE response',
      actual: value === undefined ? 'no X-Accel-Buffering header' : `X-Accel-Buffering: ${show(value)}`,
      wire: r.frames,
    });
  },
});

export const streamableHttpChecks = [
  origin,
  notificationStatus,
  contentType,
  unknownMethod,
  headerMismatch,
  headerMissing,
  headerSentinel,
  paramHeaders,
  sseEnds,
  requestStreamNotifications,
  olderClients,
  accelBuffering,
];

/**
 * JSON-RPC message rules judged from everything the run saw (basic/index
 * "Messages", "Responses", "Notifications", "Result Responses"; the
 * transports' rules on server-sent requests; the schema). The 2025-11-25
 * basic/index states the id and notification rules too, so those checks run
 * in the legacy era as well; the ban on server-sent requests and resultType
 * are the modern era's only, and the rules on the ids of the requests a
 * server sends (basic/index "Requests") the legacy era's only.
 */
import { INPUT_REQUEST_KINDS } from '../harness/mrtr.js';
import type { Violation, ViolationKind } from '../harness/session.js';
import { defineCheck, frameKey, schedule, show } from './check.js';
import type { WireFrame } from '../model/wire.js';
import { judgeViolations, SHOWN } from './violations.js';
import { inboundMessages } from './wire-messages.js';
import { ELICITATION_REQUEST_PARTS, judgeElicitationRequests } from './elicitation.js';

/** The result types of the core protocol. */
const RESULT_TYPES = ['complete', 'input_required'];

/** Responses that can only have answered the notification in the probe's window (a notification has no id to echo). */
const STRAY: ViolationKind[] = ['response-without-id', 'notification-response'];

export const noServerRequests = defineCheck({
  id: 'protocol/no-server-requests',
  title: 'the server sends no JSON-RPC requests',
  level: 'MUST',
  // The patterns page states it for every transport (each binding repeats it: stdio "The server MUST NOT
  // write JSON-RPC requests to stdout", Streamable HTTP "MUST NOT send independent JSON-RPC requests on
  // this stream", counted here). Modern only: 2025-11-25 lets servers send requests (sampling, roots, elicitation).
  spec: { revision: 'draft', page: 'basic/patterns/index', section: 'Overview' },
  quote: 'Servers MUST NOT initiate JSON-RPC requests, and clients do not send JSON-RPC responses.',
  parts: {
    // A request for client input (roots, sampling, elicitation) sent as a JSON-RPC request is the MRTR
    // page's defect: such a request belongs in an InputRequiredResult's inputRequests.
    mrtr: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Multi Round-Trip Requests' },
      quote:
        'Servers MUST send server-to-client requests (such as roots/list, sampling/createMessage, or elicitation/create) using the MRTR pattern.',
    },
  },
  observer: true,
  async run(t) {
    const input = (v: Violation) => requestMethod(v) in INPUT_REQUEST_KINDS;
    judgeViolations(
      t,
      ['server-request'],
      'responses and notifications only; server-to-client interactions carried in InputRequiredResult',
      'message',
      undefined,
      (v) => !input(v),
    );
    judgeViolations(
      t,
      ['server-request'],
      `no ${Object.keys(INPUT_REQUEST_KINDS).join(', ')} request of its own: an InputRequiredResult whose inputRequests carries it`,
      'message',
      'mrtr',
      input,
    );
  },
});

/** The method of the server-sent request a violation records ('' when unreadable). */
function requestMethod(v: Violation): string {
  const text = v.frame?.text ?? '';
  try {
    const msg = JSON.parse(text) as { method?: unknown };
    if (typeof msg.method === 'string') return msg.method;
  } catch {
    // An excerpt cut short: read the field where it stands.
  }
  return /"method"\s*:\s*"([^"\\]*)"/.exec(text)?.[1] ?? '';
}

export const responseIds = defineCheck({
  id: 'protocol/response-ids',
  title: 'every response answers a request the client sent, once',
  level: 'MUST',
  // One response per request is JSON-RPC 2.0's (a second response carries the request's id, so the id
  // rule does not cover it); an id the client never sent breaks the id rule, the part same-id.
  spec: { revision: 'draft', page: 'basic/index', section: 'Messages' },
  quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Messages' } },
  parts: {
    'same-id': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: 'Responses' },
      quote:
        'Result responses MUST include the same ID as the request they correspond to. … Error responses MUST include the same ID as the request they correspond to (except in error cases where the ID could not be read due a malformed request).',
      legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Responses' } },
    },
  },
  observer: true,
  async run(t) {
    judgeViolations(t, ['unknown-id'], 'every response carrying the id of a request the client sent', 'message', 'same-id');
    judgeViolations(t, ['duplicate-response'], 'one response per request', 'response');
  },
});

export const noResponseToNotification = defineCheck({
  id: 'protocol/no-response-to-notification',
  title: 'the server does not answer a notification',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'Notifications' },
  quote: 'Notifications are sent from the client to the server or vice versa, as a one-way message. The receiver MUST NOT send a response.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Notifications' } },
  // On Streamable HTTP a notification's POST has its own rules (202, or an error status with an id-less error).
  transports: ['stdio'],
  async run(t) {
    // The one notification a client sends on stdio: cancel a request it just issued (basic/patterns/cancellation).
    // Legacy era: ping, which every 2025-11-25 server answers (basic/utilities/ping).
    const method = t.ctx.era === 'legacy' ? 'ping' : 'server/discover';
    const s = t.session;
    const id = s.nextId();
    const abandon = new AbortController();
    const cancelled = s.request(method, {}, { id, signal: abandon.signal }).catch(() => undefined);
    const stray: Violation[] = [];
    const off = s.onViolation((v) => {
      if (STRAY.includes(v.kind)) stray.push(v);
    });
    let note: WireFrame;
    try {
      note = await s.notify('notifications/cancelled', {
        requestId: id,
        reason: 'mcp-conformance: checking that a notification gets no response',
      });
      // Anything the server answers to the notification arrives before its answer to the next request.
      const barrier = await t.request(method);
      t.note('stray responses', stray.length);
      for (const v of stray.slice(0, SHOWN)) {
        t.expect(false, {
          expected: 'no response to notifications/cancelled',
          actual: `after the notification the server sent a response that answers no request: ${v.detail}`,
          wire: [note, ...(v.frame ? [v.frame] : []), ...barrier.frames],
        });
      }
    } finally {
      off();
      abandon.abort();
      await cancelled;
    }
  },
});

export const messagesSchemaValid = defineCheck({
  id: 'protocol/messages-schema-valid',
  title: 'every other message the server sent is valid against the protocol schema',
  level: 'MUST',
  // basic/index#Schema names the schema "the source of truth for all protocol messages and
  // structures" (no keyword of its own): a schema rule, cited as the schema's message definition.
  spec: { revision: 'draft', page: 'schema', section: 'JSONRPCMessage' },
  // The comment alone has no keyword: the definition (a schema rule, MUST as a whole) is what grounds the level.
  quote:
    'Refers to any valid JSON-RPC object that can be decoded off the wire, or encoded to be sent. … JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;',
  legacy: { spec: { revision: '2025-11-25', page: 'schema', section: 'JSONRPCMessage' } },
  // Two shapes the schema refuses that basic/index states in words, each judged here on its own (the session
  // records them apart from the messages it validates, so no other check sees them): a response with neither
  // result nor error (not a "message that is not JSON-RPC" for the transport checks), and a notification
  // method sent with an id (not a request for protocol/no-server-requests; it is validated and routed without
  // its id, so its other faults are still the schema's).
  parts: {
    'result-field': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: 'Result Responses' },
      quote: 'Result responses MUST include a result field.',
      legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Result Responses' } },
    },
    'notification-id': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: 'Notifications' },
      quote: 'Notifications MUST NOT include an ID.',
      legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Notifications' } },
    },
    // Legacy era: the parameters an elicitation/create request must carry, as client/elicitation states them.
    ...ELICITATION_REQUEST_PARTS,
  },
  observer: true,
  async run(t) {
    // First: a request these parts judge is set aside from the schema findings below.
    const elicitationFaults = judgeElicitationRequests(t);
    judgeViolations(t, ['response-without-result'], 'a response with a result (or an error)', 'response', 'result-field');
    judgeViolations(t, ['notification-with-id'], 'a notification without an id', 'notification', 'notification-id');
    const sessions = t.ctx.allSessions();
    // Responses to a method another check judged against the schema are that check's finding.
    // Legacy era, HTTP: a 400 or 404 whose body is an error without the request's id is the session
    // layer refusing the POST (2025-11-25 basic/transports "Session Management": servers that require a
    // session SHOULD answer a request without one with 400, an ended session with 404; a rejected POST's
    // body MAY be "a JSON-RPC error response that has no id", which JSON-RPC 2.0 writes as null), not a
    // response to judge against the schema: e.g. a 1.x SDK server's answer to the era probe. In the
    // modern era a 400 carries the request's JSON-RPC error response itself, so it is judged.
    const rejected = (ex: (typeof sessions)[number]['invalidExchanges'][number]) =>
      t.ctx.era === 'legacy' &&
      !!ex.http &&
      (ex.http.status === 400 || ex.http.status === 404) &&
      !!ex.error &&
      (ex.response?.id === undefined || ex.response.id === null);
    const all = sessions.flatMap((s) =>
      s.invalidExchanges.filter((ex) => !t.ctx.schemaJudged.has(ex.method) && !t.ctx.schemaJudgedExchanges.has(ex)),
    );
    const unjudged = all.filter((ex) => !rejected(ex));
    const transportRejections = all.filter(rejected);
    if (transportRejections.length) {
      t.note(
        "HTTP error statuses with an id-less JSON-RPC error body (the transport's rejection, not judged)",
        transportRejections.map((ex) => `${ex.method}: HTTP ${ex.http!.status}`),
      );
    }
    // A request one of the elicitation parts judged is left aside here (that part's finding).
    judgeViolations(
      t,
      ['schema-invalid'],
      'a schema-valid notification',
      'message',
      undefined,
      (v) => !v.frame || !elicitationFaults.has(frameKey(v.frame)),
    );
    t.note('invalid responses', unjudged.length);
    for (const ex of unjudged.slice(0, SHOWN)) {
      t.expect(false, {
        expected: `a response to ${ex.method} valid against ${ex.schemaDef}`,
        actual: ex.schemaErrors.join('; '),
        wire: ex,
      });
    }
    // Messages over --max-message-size are dropped unread: the spec sets no size limit, so they are no
    // finding, but they were not validated either.
    const unvalidated = sessions.flatMap((s) => s.violations.filter((v) => v.kind === 'unvalidated' || v.kind === 'oversized-message'));
    if (t.findings.length === 0 && unvalidated.length > 0) {
      const oversized = unvalidated.some((v) => v.kind === 'oversized-message');
      t.notObserved(
        `${unvalidated.length} message(s) could not be validated: ${unvalidated[0]!.detail}` +
          (oversized ? ' (the spec sets no size limit: raise --max-message-size to read and judge such messages)' : ''),
      );
    }
  },
});

/**
 * 2025-11-25 only: servers send requests there (roots/list, sampling,
 * elicitation, ping), and the Requests rules bind whoever sends one. Judged
 * over every request the server sent in the run, per session: on stdio the
 * connection (its process); on HTTP the Mcp-Session-Id, so the ids of a
 * server that assigns none (no session spans its POSTs) are not compared.
 * The id's faults are this check's alone: the session validates the rest of
 * such a request against the schema as if its id were valid.
 */
export const requestIds = defineCheck({
  id: 'protocol/request-ids',
  title: 'every request the server sends has a string or integer id it has not used before',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/index', section: 'Requests' },
  quote: 'Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null.',
  parts: {
    unique: {
      level: 'MUST',
      spec: { revision: '2025-11-25', page: 'basic/index', section: 'Requests' },
      quote: 'The request ID MUST NOT have been previously used by the requestor within the same session.',
    },
  },
  observer: true,
  async run(t) {
    judgeViolations(t, ['request-id-invalid'], 'a request id that is a string or an integer (never null)', 'request');
    judgeViolations(t, ['request-id-reused'], 'a request id the server has not used before in the session', 'request', 'unique');
    // A notification method sent with an id is no request (messages-schema-valid's notification-id judges it).
    const seen = inboundMessages(t).filter((m) => m.kind === 'request' && !t.ctx.protocolSchema.isNotificationMethod(m.msg.method));
    t.note('server requests seen', seen.length);
    if (seen.length)
      t.note(
        'first server requests',
        seen.slice(0, SHOWN).map((m) => `${show(m.msg.method, 60)} id ${show(m.msg.id, 60)}`),
      );
    if (seen.length === 0 && t.findings.length === 0) {
      t.notObserved(
        'the server sent no request to the client in the run: configure capabilityTool in the configuration file with a tool that makes the server ask the client (sampling, elicitation or roots)',
      );
    }
  },
});

export const resultType = defineCheck({
  id: 'protocol/result-type',
  title: 'every result carries a resultType the protocol defines',
  level: 'MUST',
  // "A resultType of any value unrecognized by the client MUST be considered invalid" is the client's; the
  // server's side of it is the supported set: the core values plus those of extensions advertised via
  // capabilities. The suite's requests declare no extension, so no other value is supported on them. A
  // result without the field breaks Result Responses' MUST (the part present).
  spec: { revision: 'draft', page: 'basic/index', section: 'ResultType' },
  quote:
    'Extensions MAY add additional ResultType values. The set of supported ResultType values MUST be created from the set defined in the core protocol and include any additional values of supported extensions that are advertised via capabilities.',
  parts: {
    present: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: 'Result Responses' },
      quote: 'The result MUST include a resultType field to indicate the type of the result.',
    },
  },
  observer: true,
  async run(t) {
    let results = 0;
    const serverExtensions = t.ctx.discovery().capabilities?.extensions;
    for (const session of t.ctx.allSessions()) {
      for (const seen of session.resultTypes.values()) {
        results += seen.count;
        const where = `in ${seen.count} ${seen.method} result(s)`;
        if (seen.resultType === undefined) {
          t.expect(false, { expected: 'a resultType field', actual: `no resultType ${where}`, wire: [seen.frame], part: 'present' });
          continue;
        }
        t.expect(RESULT_TYPES.includes(seen.resultType as string), {
          expected: `resultType ${RESULT_TYPES.map((x) => JSON.stringify(x)).join(' or ')} (the suite declared no extension that adds others)`,
          actual:
            `resultType ${show(seen.resultType)} ${where}` +
            (serverExtensions !== undefined ? ` (the server advertises extensions ${show(Object.keys(serverExtensions as object))})` : ''),
          wire: [seen.frame],
        });
      }
    }
    if (results === 0) t.notObserved('no request was answered with a result');
    t.note('results', results);
  },
});

// Counts every stray response on its connection while it runs: it needs the connection to itself.
schedule(noResponseToNotification, { exclusive: 'counts every stray response on its connection' });

export const protocolChecks = [noServerRequests, responseIds, noResponseToNotification, messagesSchemaValid, requestIds, resultType];

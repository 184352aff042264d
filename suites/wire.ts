/**
 * Rules about the wire as a whole, judged from everything the run saw
 * (basic/index "Messages", basic/patterns, basic/transports).
 */
import { formatSeconds } from '../harness/errors.js';
import { BOTH_ERAS, defineCheck, frameKey, type Probe } from './check.js';
import type { Violation, ViolationKind } from '../harness/session.js';
import type { WireFrame } from './model.js';

/** Findings shown per check; every violation is counted. */
const SHOWN = 5;

/**
 * One finding per kept violation of `kinds` (the first few), across every
 * connection of the run; the first finding says how many there were in all.
 */
function judgeViolations(t: Probe, kinds: ViolationKind[], expected: string, noun = 'message'): void {
  const sessions = t.ctx.allSessions();
  // A frame another check already judged as its own finding is that check's.
  const elsewhere = (v: Violation) => !!v.frame && t.ctx.framesJudged.has(frameKey(v.frame));
  const all = sessions.flatMap((s) => s.violations.filter((v) => kinds.includes(v.kind)));
  const kept = all.filter((v) => !elsewhere(v));
  const count = sessions.reduce((n, s) => n + s.countOf(...kinds), 0) - (all.length - kept.length);
  t.note('violations', count);
  if (count === 0) return;
  const shown = kept.slice(0, SHOWN);
  const total = count > 1 ? ` (${count.toLocaleString('en-US')} such ${noun}s in the run${count > shown.length ? `; the first ${shown.length} shown` : ''})` : '';
  shown.forEach((v, i) => {
    t.expect(false, { expected, actual: i === 0 ? `${v.detail}${total}` : v.detail, wire: v.frame ? [v.frame] : [] });
  });
}

export const stdoutJsonRpcOnly = defineCheck({
  id: 'transport/stdout-json-rpc-only',
  title: 'the server writes nothing but MCP messages to stdout',
  level: 'MUST',
  spec: { page: 'basic/transports/stdio', section: 'stdio' },
  requirement: 'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
  transports: ['stdio'],
  revisions: BOTH_ERAS,
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per stdout line', 'line');
  },
});

export const exitsOnStdinClose = defineCheck({
  id: 'transport/exits-on-stdin-close',
  title: 'the server exits when its stdin is closed',
  level: 'SHOULD',
  spec: { page: 'basic/transports/stdio', section: 'Shutdown' },
  requirement: 'Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file.',
  transports: ['stdio'],
  async run(t) {
    // A process of its own, shown to be serving, then its stdin closed.
    const s = await t.ctx.openSession();
    const ex = await s.request('server/discover');
    await s.close();
    const how = s.shutdown;
    if (!how) return t.notObserved('the server process could not be observed stopping');
    const grace = formatSeconds(how.graceMs);
    const actual =
      how.step === 'SIGTERM'
        ? `it was still running ${grace} after its stdin was closed; it exited on SIGTERM`
        : `it exited neither within ${grace} after its stdin was closed nor within ${grace} of SIGTERM; it was killed with SIGKILL`;
    t.note('stopped by', how.step);
    t.expect(how.step === 'stdin' || how.step === 'itself', {
      expected: `the process exits within ${grace} (--shutdown-timeout) after its stdin is closed`,
      actual,
      wire: ex,
    });
  },
});

export const httpJsonRpcOnly = defineCheck({
  id: 'transport/http-json-rpc-only',
  title: 'every JSON response body and SSE event is one JSON-RPC message',
  level: 'MUST',
  spec: { page: 'basic/index', section: 'Messages' },
  requirement:
    'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification (on Streamable HTTP: a JSON response body or an SSE event carries one JSON-RPC message).',
  // On stdio the stricter stdout rule judges the same faults.
  transports: ['http'],
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per JSON body or SSE event');
  },
});

export const messageSize = defineCheck({
  id: 'transport/message-size',
  title: 'every message fits within the largest message the suite accepts',
  level: 'SHOULD',
  spec: { page: 'basic/transports/index', section: 'Messages' },
  requirement:
    'A binding MUST deliver server-sent responses and notifications to the client. The spec sets no size limit, so a message larger than the client accepts (--max-message-size) is judged as a SHOULD: it cannot be delivered to this client.',
  observer: true,
  async run(t) {
    const max = t.ctx.settings.maxMessageBytes;
    judgeViolations(t, ['oversized-message'], `every message at most ${max.toLocaleString('en-US')} bytes (--max-message-size)`);
  },
});

export const noServerRequests = defineCheck({
  id: 'protocol/no-server-requests',
  title: 'the server sends no JSON-RPC requests',
  level: 'MUST',
  spec: { page: 'basic/patterns/index', section: 'Overview' },
  requirement:
    'Servers MUST NOT initiate JSON-RPC requests (stdio: the server MUST NOT write JSON-RPC requests to stdout; Streamable HTTP: it MUST NOT send independent JSON-RPC requests on a response stream).',
  observer: true,
  async run(t) {
    judgeViolations(t, ['server-request'], 'responses and notifications only; server-to-client interactions carried in InputRequiredResult');
  },
});

export const responseIds = defineCheck({
  id: 'protocol/response-ids',
  title: 'every response answers a request the client sent, once',
  level: 'MUST',
  spec: { page: 'basic/index', section: 'Responses' },
  requirement:
    'Result and error responses MUST include the same ID as the request they correspond to; a response with an id the client never used, or a second response to an answered request, corresponds to no request.',
  observer: true,
  async run(t) {
    judgeViolations(t, ['unknown-id', 'duplicate-response'], 'one response per request, carrying that request\'s id');
  },
});

/** Responses that can only have answered the notification in the probe's window (a notification has no id to echo). */
const STRAY: ViolationKind[] = ['response-without-id', 'notification-response'];

export const noResponseToNotification = defineCheck({
  id: 'protocol/no-response-to-notification',
  title: 'the server does not answer a notification',
  level: 'MUST',
  spec: { page: 'basic/index', section: 'Notifications' },
  requirement: 'Notifications are one-way messages: the receiver MUST NOT send a response.',
  // On Streamable HTTP a notification's POST has its own rules (202, or an error status with an id-less error).
  transports: ['stdio'],
  async run(t) {
    // The one notification a client sends on stdio: cancel a request it just issued (basic/patterns/cancellation).
    const s = t.session;
    const id = s.nextId();
    const abandon = new AbortController();
    const cancelled = s.request('server/discover', {}, { id, signal: abandon.signal }).catch(() => undefined);
    const stray: Violation[] = [];
    const off = s.onViolation((v) => {
      if (STRAY.includes(v.kind)) stray.push(v);
    });
    let note: WireFrame;
    try {
      note = await s.notify('notifications/cancelled', { requestId: id, reason: 'mcp-conformance: checking that a notification gets no response' });
      // Anything the server answers to the notification arrives before its answer to the next request.
      const barrier = await t.request('server/discover');
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
  spec: { page: 'basic/index', section: 'Schema' },
  requirement:
    'All messages MUST follow JSON-RPC 2.0 and the protocol schema, the source of truth for all protocol messages and structures.',
  revisions: BOTH_ERAS,
  observer: true,
  async run(t) {
    const sessions = t.ctx.allSessions();
    // Responses to a method another check judged against the schema are that check's finding.
    const unjudged = sessions.flatMap((s) =>
      s.invalidExchanges.filter((ex) => !t.ctx.schemaJudged.has(ex.method) && !t.ctx.schemaJudgedExchanges.has(ex)),
    );
    judgeViolations(t, ['schema-invalid'], 'a schema-valid notification');
    t.note('invalid responses', unjudged.length);
    for (const ex of unjudged.slice(0, SHOWN)) {
      t.expect(false, {
        expected: `a response to ${ex.method} valid against ${ex.schemaDef}`,
        actual: ex.schemaErrors.join('; '),
        wire: ex,
      });
    }
    const unvalidated = sessions.flatMap((s) => s.violations.filter((v) => v.kind === 'unvalidated'));
    if (t.findings.length === 0 && unvalidated.length > 0) {
      t.notObserved(`${unvalidated.length} message(s) could not be validated: ${unvalidated[0]!.detail}`);
    }
  },
});

export const wireChecks = [
  stdoutJsonRpcOnly,
  exitsOnStdinClose,
  httpJsonRpcOnly,
  messageSize,
  noServerRequests,
  responseIds,
  noResponseToNotification,
  messagesSchemaValid,
];

/**
 * JSON-RPC message rules judged from everything the run saw (basic/index
 * "Messages", "Responses", "Notifications", "ResultType").
 */
import type { Violation, ViolationKind } from '../harness/session.js';
import { defineCheck, frameKey, schedule, show } from './check.js';
import type { WireFrame } from '../model/wire.js';
import { judgeViolations, SHOWN } from './violations.js';

/** The result types of the core protocol. */
const RESULT_TYPES = ['complete', 'input_required'];

/** Responses that can only have answered the notification in the probe's window (a notification has no id to echo). */
const STRAY: ViolationKind[] = ['response-without-id', 'notification-response'];

export const noServerRequests = defineCheck({
  id: 'protocol/no-server-requests',
  title: 'the server sends no JSON-RPC requests',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/patterns/index', section: 'Overview' },
  quote:
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
  spec: { revision: 'draft', page: 'basic/index', section: 'Responses' },
  quote:
    'Result and error responses MUST include the same ID as the request they correspond to; a response with an id the client never used, or a second response to an answered request, corresponds to no request.',
  observer: true,
  async run(t) {
    judgeViolations(t, ['unknown-id', 'duplicate-response'], 'one response per request, carrying that request\'s id');
  },
});

export const noResponseToNotification = defineCheck({
  id: 'protocol/no-response-to-notification',
  title: 'the server does not answer a notification',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'Notifications' },
  quote: 'Notifications are one-way messages: the receiver MUST NOT send a response.',
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
  spec: { revision: 'draft', page: 'basic/index', section: 'Schema' },
  quote:
    'All messages MUST follow JSON-RPC 2.0 and the protocol schema, the source of truth for all protocol messages and structures.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Schema' } },
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

export const resultType = defineCheck({
  id: 'protocol/result-type',
  title: 'every result carries a resultType the protocol defines',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'ResultType' },
  quote:
    'The result MUST include a resultType field; a resultType of any value unrecognized by the client MUST be considered invalid ("complete" and "input_required" are defined by the core protocol).',
  observer: true,
  async run(t) {
    let results = 0;
    for (const session of t.ctx.allSessions()) {
      for (const seen of session.resultTypes.values()) {
        results += seen.count;
        t.expect(RESULT_TYPES.includes(seen.resultType as string), {
          expected: `resultType ${RESULT_TYPES.map((x) => JSON.stringify(x)).join(' or ')}`,
          actual: `${seen.resultType === undefined ? 'no resultType' : `resultType ${show(seen.resultType)}`} in ${seen.count} ${seen.method} result(s)`,
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

export const protocolChecks = [noServerRequests, responseIds, noResponseToNotification, messagesSchemaValid, resultType];

/**
 * Logging (server/utilities/logging): a server that sends log messages
 * declares the `logging` capability (both eras), and answers an unknown level
 * in `logging/setLevel` with -32602 (legacy only: the modern revisions have no
 * logging/setLevel). The legacy page's sentence about which levels follow
 * `logging/setLevel` ("Only sends error level and above", and the schema's
 * lowercase "should send all logs at this level and higher") has no RFC 2119
 * keyword, so no check holds it against a server.
 *
 * In the modern era logging is per request: a request asks for log messages
 * with `io.modelcontextprotocol/logLevel` in its `_meta`. A message for a
 * request without it is logging/only-requested's; a message on a listen
 * stream is subscriptions/no-request-scoped's (part log-messages); an unknown
 * level in `_meta` is answered with -32602 (logging/meta-level-invalid). That
 * the messages for a request are "at or above the requested level" rides on
 * a MAY ("the server MAY send notifications/message notifications at or above
 * the requested level"), so it is not judged.
 */
import { defineCheck, describeAnswer, frameMessage, show, type Probe } from './check.js';
import { maySend } from './subscription-observers.js';
import type { Session } from '../harness/session.js';
import { ERROR_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';

/** A level no revision defines. */
export const UNKNOWN_LEVEL = 'mcp-conformance-unknown-level';

function declaresLogging(caps: Record<string, unknown> | undefined): boolean {
  return !!caps && caps.logging !== undefined;
}

export const capabilityDeclared = defineCheck({
  id: 'logging/capability-declared',
  title: 'a server that sends log messages declares the logging capability',
  level: 'MUST',
  observer: true,
  spec: { revision: 'draft', page: 'server/utilities/logging', section: 'Capabilities' },
  quote: 'Servers that emit log message notifications MUST declare the logging capability',
  legacy: { spec: { revision: '2025-11-25', page: 'server/utilities/logging', section: 'Capabilities' } },
  async run(t) {
    const caps = t.ctx.discovery().capabilities;
    const where = t.ctx.era === 'legacy' ? 'initialize' : 'server/discover';
    if (!caps) return t.notObserved(`${where} gave no capabilities to judge against`);
    // Modern: one request that asks for log messages, on a fresh connection, so the run holds a request
    // the server may log for, whether or not it declares logging.
    if (t.ctx.era === 'modern' && maySend(t)) await askForLogs(t);
    const sent = t.ctx
      .allSessions()
      .map((s) => s.inboundMethods.get('notifications/message'))
      .filter((m) => m !== undefined);
    const count = sent.reduce((n, m) => n + m.count, 0);
    t.note('log messages seen', count);
    if (count === 0 || declaresLogging(caps)) return;
    t.expect(false, {
      expected: `capabilities.logging in the ${where} result, since the server sends notifications/message`,
      actual: `${count} notifications/message, and the ${where} capabilities are ${show(caps)}`,
      wire: [sent[0]!.frame, ...(t.ctx.discovery().exchange?.frames ?? [])]
        .filter((f, i, all) => all.indexOf(f) === i)
        .sort((a, b) => a.at - b.at),
    });
  },
});

export const invalidLevel = defineCheck({
  id: 'logging/invalid-level',
  title: 'logging/setLevel with an unknown level is answered with -32602',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'server/utilities/logging', section: 'Error Handling' },
  quote: 'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)',
  async run(t) {
    if (!declaresLogging(t.ctx.discovery().capabilities)) return t.skip('the server does not declare the logging capability in initialize');
    // A fresh connection, so whatever the server makes of the level stays there.
    const s = await t.ctx.openSession();
    const ex = await s.request('logging/setLevel', { level: UNKNOWN_LEVEL });
    t.expect(ex.error?.code === ERROR_CODES.INVALID_PARAMS, {
      expected: `JSON-RPC error -32602 for level ${JSON.stringify(UNKNOWN_LEVEL)}`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

/** The `_meta` key a modern request asks for log messages with (draft Per-request log level). */
export const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/** A notifications/message no request that asked for log messages can claim. */
interface Unrequested {
  expected: string;
  actual: string;
  wire: WireFrame[];
}

/**
 * The log messages of one connection sent for a request without a logLevel. Over HTTP a
 * notification on a request's response stream is that request's; a message on a listen stream
 * is subscriptions/no-request-scoped's (part log-messages), and one on no request's stream is
 * left aside. On stdio nothing ties a notification to a request, so only the messages that came
 * before the connection's first request carrying a logLevel are judged: none of them can be for
 * a request that asked (the suite sends a logLevel only on the fresh connections of the logging
 * checks, so a bounded log that dropped its oldest frames drops no such request). A message that is
 * not a valid notification (an id, an unknown level) is protocol/messages-schema-valid's.
 */
function unrequestedOn(t: Probe, s: Session): { judged: number; faults: Unrequested[] } {
  const requests = new Map<string, { method: string; asked: boolean; frame: WireFrame }>();
  let askedBefore = false;
  let lastRequest: WireFrame | undefined;
  let judged = 0;
  const faults: Unrequested[] = [];
  for (const f of s.frames()) {
    const m = frameMessage(f);
    // A request cut short in the log may have carried a level: what follows it on stdio is not judged.
    if (!m) {
      askedBefore ||= f.dir === 'out' && f.truncated === true;
      continue;
    }
    if (f.dir === 'out') {
      // A connection opened with initialize speaks the legacy era from there on, whose log messages follow other rules.
      if (m.method === 'initialize') break;
      if ((typeof m.id === 'string' || typeof m.id === 'number') && typeof m.method === 'string') {
        const asked = ((m.params as JsonObject | undefined)?._meta as JsonObject | undefined)?.[LOG_LEVEL_META] !== undefined;
        requests.set(`${typeof m.id}:${m.id}`, { method: m.method, asked, frame: f });
        askedBefore ||= asked;
        lastRequest = f;
      }
      continue;
    }
    if (m.method !== 'notifications/message' || 'id' in m) continue;
    if (t.ctx.protocolSchema.validate('LoggingMessageNotification', m).length) continue;
    if (f.http) {
      const stream = f.http.requestId;
      const request = stream === undefined ? undefined : requests.get(`${typeof stream}:${stream}`);
      if (!request || request.method === 'subscriptions/listen') continue;
      judged++;
      if (request.asked) continue;
      faults.push({
        expected: `no notifications/message on the response stream of ${request.method}, whose _meta has no ${LOG_LEVEL_META}`,
        actual: `notifications/message ${show(m.params, 160)} on that stream`,
        wire: [request.frame, f],
      });
    } else {
      // Before any request, a message is for none: the sentence speaks of a request, so it is left aside.
      if (askedBefore || !lastRequest) continue;
      judged++;
      faults.push({
        expected: `no notifications/message on a connection where no request has carried ${LOG_LEVEL_META} in its _meta`,
        actual: `notifications/message ${show(m.params, 160)} before any request asked for log messages`,
        wire: [lastRequest, f],
      });
    }
  }
  return { judged, faults };
}

/** server/discover asking for every log message (debug), on `s` or a fresh connection; how many log messages that connection then held. */
async function askForLogs(t: Probe, session?: Session): Promise<number> {
  const s = session ?? (await t.ctx.openSession());
  await s.request('server/discover', { _meta: { [LOG_LEVEL_META]: 'debug' } });
  return s.frames().filter((f) => f.dir === 'in' && frameMessage(f)?.method === 'notifications/message').length;
}

export const onlyRequested = defineCheck({
  id: 'logging/only-requested',
  title: 'notifications/message only for a request that carries a logLevel',
  level: 'MUST',
  observer: true,
  spec: { revision: 'draft', page: 'server/utilities/logging', section: 'Per-request log level' },
  quote: 'The server MUST NOT emit notifications/message for a request that does not include this field.',
  async run(t) {
    // Whether or not the server declares logging (logging/capability-declared judges that), a log message
    // for a request that did not ask is this rule's: every connection of the run is judged.
    // One request that asks for everything (debug is the lowest level), so the run holds a request the
    // server may log for; what it sends is noted, not judged (the page only permits it: MAY).
    // Before it, the same request without the field: the server must not log for that one.
    if (maySend(t)) {
      const s = await t.ctx.openSession();
      await s.request('server/discover');
      const logged = await askForLogs(t, s);
      t.note(`log messages on the connection that asked once (${LOG_LEVEL_META} "debug")`, logged);
    }
    let judged = 0;
    const faults: Unrequested[] = [];
    for (const session of t.ctx.allSessions()) {
      const r = unrequestedOn(t, session);
      judged += r.judged;
      faults.push(...r.faults);
    }
    t.note('log messages judged', judged);
    for (const f of faults.slice(0, 5)) t.expect(false, f);
    if (judged === 0 && !declaresLogging(t.ctx.discovery().capabilities))
      t.skip('the server does not declare the logging capability, and sent no log message for a request in the run');
  },
});

export const metaLevelInvalid = defineCheck({
  id: 'logging/meta-level-invalid',
  title: 'a request whose _meta logLevel is not a log level is rejected with -32602',
  level: 'SHOULD',
  // The modern counterpart of logging/invalid-level: the level rides in any request's _meta, not in
  // logging/setLevel (which the modern revisions do not have), so it is its own, modern-only check.
  spec: { revision: 'draft', page: 'server/utilities/logging', section: 'Error Handling' },
  quote:
    "If the io.modelcontextprotocol/logLevel value carried in a request's _meta is not a recognized log level, the server SHOULD reject that request with a standard JSON-RPC error: Invalid log level: -32602 (Invalid params)",
  async run(t) {
    if (!declaresLogging(t.ctx.discovery().capabilities))
      return t.skip('the server does not declare the logging capability in server/discover');
    // A fresh connection, so the request that carries a log level stays apart from the run's other traffic.
    const s = await t.ctx.openSession();
    const ex = await s.request('server/discover', { _meta: { [LOG_LEVEL_META]: UNKNOWN_LEVEL } });
    t.expect(ex.error?.code === ERROR_CODES.INVALID_PARAMS, {
      expected: `JSON-RPC error -32602 for server/discover with _meta ${LOG_LEVEL_META} ${JSON.stringify(UNKNOWN_LEVEL)}`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

export const loggingChecks = [capabilityDeclared, invalidLevel, onlyRequested, metaLevelInvalid];

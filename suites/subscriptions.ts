/**
 * subscriptions/listen, list-change notifications and how a subscription
 * ends (basic/patterns/subscriptions, basic/patterns/cancellation, server/tools
 * "List Changed Notification", and how a stream ends on each transport).
 *
 * Every wait is a deadline on an event: the acknowledgment (per-request
 * timeout), a change notification (--notification-timeout / the config file's
 * listChanged.timeoutMs), or a later request's response on the same
 * connection, which proves the server has moved past everything before it.
 */
import { runShellCommand } from '../harness/command.js';
import { RequestTimeoutError } from '../harness/errors.js';
import {
  ACKNOWLEDGED,
  orderFrames,
  REQUEST_SCOPED,
  requestedBy,
  subscriptionIdOf,
  type Subscription,
  type SubscriptionMessage,
} from '../harness/subscription.js';
import type { Exchange, RequestOptions, Session } from '../harness/session.js';
import { walkList } from '../harness/walk.js';
import {
  defineCheck,
  idOf,
  memoKey,
  schedule,
  describeAnswer,
  show,
  VerdictSignal,
  type Fact,
  type Probe,
  type SuiteContext,
} from './check.js';
import { describeDiff, isSame, toolsDiff } from './compare.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { whyNotCallableAsWritten } from './safety.js';
import { beforeAcknowledgment, maySend, reportObservations, unrequested, untagged } from './subscription-observers.js';
import type { ChangeTrigger } from '../model/config.js';

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const NO_TRIGGER = 'no listChanged.trigger in the configuration file: the suite cannot make the tool list change';
const NO_END_TRIGGER =
  "no subscriptionEnd.trigger in the configuration file: the suite cannot make the server end a subscription on its own initiative (closing stdin is the client's shutdown, not the server's initiative)";

/** Runs in which the server was seen not to notify after a change: later checks do not wait again. */
const silentRuns = new WeakSet<SuiteContext>();

/** HTTP facts of the listen answer. */
type HttpInfo = NonNullable<Awaited<Subscription['headers']>>;

interface Opened {
  sub: Subscription;
  ack?: SubscriptionMessage;
  /** Why there is no acknowledgment. */
  why?: string;
  /**
   * HTTP: the listen was answered with something other than an SSE stream (its
   * status and headers): a framing subscriptions/http-sse judges; the others
   * read what came leniently and judge what they can.
   */
  framing?: HttpInfo;
  /** HTTP: the listen answer's status and headers, when they had arrived. */
  headers?: HttpInfo;
}

/** HTTP: a 2xx answer labelled text/event-stream. */
function isSseAnswer(http: HttpInfo): boolean {
  return http.status >= 200 && http.status < 300 && /^text\/event-stream\b/i.test(http.contentType ?? '');
}

/**
 * HTTP: settles once the listen answer's headers show no SSE stream and a
 * later request on the connection has been answered (whatever the body
 * carried by then was read, newline-separated JSON included); never for an
 * SSE stream or on stdio.
 */
async function notAStream(sub: Subscription, session: Session): Promise<HttpInfo> {
  const http = await sub.headers;
  if (!http || isSseAnswer(http)) return new Promise<HttpInfo>(() => {});
  await roundTrip(session).catch(() => undefined);
  return http;
}

/** Status and Content-Type of an answer, in words. */
function describeHeaders(http: HttpInfo): string {
  return `HTTP ${http.status}, Content-Type: ${show(http.contentType || '(none)')}`;
}

/** Open a subscription and wait for its acknowledgment (or the listen request ending) within the request timeout. */
/**
 * The shared precondition of every check that listens: a subscriptions/listen
 * gets an answer of some kind. Once one got nothing at all within the request
 * timeout, the others report not-observed at once, naming the check that judges it.
 */
const listenAnswers = memoKey<Fact<Opened>>('subscriptions: a listen request is answered');

/** Open a subscription and wait for its acknowledgment (or the listen request ending) within the request timeout. */
/** The listen precondition of the run, for any check that sends subscriptions/listen. */
export function listenFact(t: Probe): Fact<unknown> {
  return t.ctx.run.memo(listenAnswers, (): Fact<Opened> => ({ owner: acknowledgedFirst }));
}

/** The value of a promise that has already settled, else undefined. */
const settled = <T>(p: Promise<T>): Promise<T | undefined> => Promise.race([p, Promise.resolve(undefined)]);

async function open(
  t: Probe,
  session: Session,
  params: JsonObject,
  subs: Subscription[],
  opts: RequestOptions = {},
  /** HTTP: an SSE answer's headers are enough (http-sse judges them; the acknowledgment is acknowledged-first's). */
  untilHeaders = false,
): Promise<Opened> {
  const fact = listenFact(t) as Fact<Opened>;
  if (t.check !== fact.owner) t.requires(fact);
  // The owner judges the attempt that met the silence (its frames are the evidence) without waiting it out again.
  else if (fact.failed !== undefined && fact.value) return fact.value;
  const sub = session.listen(params, opts);
  subs.push(sub);
  const ms = t.ctx.settings.requestTimeoutMs;
  const framing = notAStream(sub, session);
  const streamed = untilHeaders ? sub.headers.then((h) => (h && isSseAnswer(h) ? undefined : new Promise<never>(() => {}))) : undefined;
  const ack = await Promise.race([
    sub.acknowledgment(ms),
    sub.ended.then(() => undefined),
    framing.then(() => undefined),
    ...(streamed ? [streamed] : []),
  ]);
  const found = ack ?? sub.messages.find((m) => m.msg.method === ACKNOWLEDGED);
  const http = await settled(framing);
  const headers = await settled(sub.headers);
  if (found) return { sub, ack: found, headers, ...(http ? { framing: http } : {}) };
  if (headers && isSseAnswer(headers) && untilHeaders) return { sub, headers, why: 'not waited for (the headers decided)' };
  if (http && sub.open) {
    // The framing is http-sse's finding; nothing the others could read leniently acknowledged the subscription.
    const why = `subscriptions/listen was answered ${describeHeaders(http)}, not an SSE stream, and no acknowledgment could be read from its body; see ${idOf(httpSse)}`;
    return { sub, why, framing: http, headers };
  }
  const end = sub.open ? undefined : await sub.ended;
  const why = end
    ? end.exchange
      ? `subscriptions/listen was answered with ${describeAnswer(end.exchange)}`
      : `subscriptions/listen ended: ${end.error?.message}`
    : `no notifications/subscriptions/acknowledged within ${ms / 1000} s`;
  // Nothing at all came back (the stream still open, or the listen request timed out): the precondition fails for every listener.
  if (sub.messages.length === 0 && (!end || end.error instanceof RequestTimeoutError)) {
    fact.failed ??= `a subscriptions/listen request (connection ${session.connection}) got no acknowledgment and no answer within ${ms / 1000} s`;
    fact.value ??= { sub, why };
  }
  return { sub, why, headers };
}

/**
 * For the checks of other pages that wait on a subscription: open one on
 * `session` (cancelled when the check ends) and return its acknowledgment, or
 * end the check not-observed, naming the check that judges why there is none.
 */
export async function acknowledgedSubscription(t: Probe, session: Session, params: JsonObject): Promise<Subscription> {
  const subs: Subscription[] = [];
  t.defer(() => cancelAll(subs));
  const o = await open(t, session, params, subs);
  const ack = requireAck(t, o);
  t.note('acknowledged filter', (ack.msg.params as JsonObject | undefined)?.notifications);
  return o.sub;
}

/** The acknowledgment, or not-observed (the acknowledgment itself is judged by subscriptions/acknowledged-first). */
function requireAck(t: Probe, o: Opened): SubscriptionMessage {
  if (!o.ack) t.notObserved(`the subscription was not acknowledged (${o.why}); see ${idOf(o.framing ? httpSse : acknowledgedFirst)}`);
  return o.ack;
}

async function cancelAll(subs: Subscription[]): Promise<void> {
  for (const s of subs) await s.cancel().catch(() => {});
}

interface Fired {
  ok: boolean;
  detail: string;
  exchange?: Exchange;
}

/** Run the configured trigger (or undo): a tool call on `session`, or a shell command. */
export async function fire(t: Probe, session: Session, which: 'trigger' | 'undo'): Promise<Fired | undefined> {
  const spec = t.ctx.config.listChanged?.[which];
  if (!spec) return undefined;
  return runTrigger(t, session, spec);
}

/** Run a configured trigger (listChanged, subscriptionEnd): a tool call on `session`, or a shell command. */
export async function runTrigger(t: Probe, session: Session, spec: ChangeTrigger): Promise<Fired> {
  if ('tool' in spec) {
    const excluded = whyNotCallableAsWritten(t.ctx, spec.tool);
    if (excluded) return { ok: false, detail: `the configured tool ${JSON.stringify(spec.tool)} was ${excluded}` };
    const ex = await session.request('tools/call', { name: spec.tool, arguments: spec.arguments ?? {} });
    const ok = !ex.error && ex.result?.isError !== true;
    return { ok, detail: `tools/call ${spec.tool} answered with ${describeAnswer(ex)}`, exchange: ex };
  }
  const r = await runShellCommand(spec.command, { timeoutMs: t.ctx.settings.requestTimeoutMs, signal: t.ctx.signal });
  return { ok: r.ok, detail: `the command ${r.detail}` };
}

interface Change {
  /** The trigger ran and succeeded. */
  triggered: boolean;
  /** The witness received notifications/tools/list_changed after the trigger. */
  notified: boolean;
  exchanges: Exchange[];
}

/**
 * Cause a tool-list change with the configured trigger, wait (deadline) for
 * the witness subscription's notification, then undo the change (and wait
 * for that notification too, so it does not spill into later checks).
 */
async function changeTools(t: Probe, session: Session, witness?: Subscription): Promise<Change> {
  const exchanges: Exchange[] = [];
  const mark = witness?.messages.length ?? 0;
  const fired = await fire(t, session, 'trigger');
  if (!fired) return { triggered: false, notified: false, exchanges };
  if (fired.exchange) exchanges.push(fired.exchange);
  if (!fired.ok) t.notObserved(`the configured listChanged.trigger failed: ${fired.detail}`);
  const wait = silentRuns.has(t.ctx) ? 0 : t.ctx.settings.notificationTimeoutMs;
  const first = witness ? await witness.waitFor((m) => m.msg.method === TOOLS_CHANGED, wait, mark) : undefined;
  if (witness && !first && wait > 0) silentRuns.add(t.ctx);
  const undone = await fire(t, session, 'undo');
  if (undone?.exchange) exchanges.push(undone.exchange);
  if (undone && !undone.ok) t.note('undo', `the configured listChanged.undo failed: ${undone.detail}`);
  if (undone?.ok && witness && first) {
    // The undo's own notification (it may have arrived already).
    await witness.waitFor((m) => m.msg.method === TOOLS_CHANGED, t.ctx.settings.notificationTimeoutMs, witness.messages.indexOf(first) + 1);
  }
  const notified = !!first;
  return { triggered: true, notified, exchanges };
}

/** A later request's response on the same connection: everything the server sent before it has arrived. */
function roundTrip(session: Session): Promise<Exchange> {
  return session.request('server/discover');
}

/** The messages of a subscription from before the suite cancelled it. */
const live = (sub: Subscription) => sub.messages.filter((m) => !m.afterCancel);

function describe(m: SubscriptionMessage): string {
  const what = typeof m.msg.method === 'string' ? m.msg.method : 'the listen response';
  return `${what} (subscriptionId ${show(subscriptionIdOf(m.msg))})`;
}

/** A listen filter asking only for tools-list changes. */
const TOOLS_FILTER = { notifications: { toolsListChanged: true } };

export const acknowledgedFirst = defineCheck({
  id: 'subscriptions/acknowledged-first',
  title: 'the acknowledgment is the first message of a subscription',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/patterns/subscriptions', section: 'Acknowledgment' },
  quote:
    "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send any notification on the subscription before it.",
  // Judged after every other check: every subscription of the run is observed.
  observer: true,
  async run(t) {
    const subs: Subscription[] = [];
    let o: Opened | undefined;
    try {
      o = maySend(t) ? await open(t, t.session, TOOLS_FILTER, subs) : undefined;
      // A listen answer that is no SSE stream is http-sse's finding: judged here only from what could be read of it.
      if (o && !o.ack && o.framing) t.note('not judged', o.why);
      else if (o) {
        if (
          t.expect(!!o.ack, {
            expected: 'notifications/subscriptions/acknowledged for the subscription',
            actual: o.why ?? '',
            wire: o.sub.frames(),
          })
        ) {
          const at = o.sub.messages.indexOf(o.ack!);
          const before = o.sub.messages.slice(0, at);
          t.expect(before.length === 0, {
            expected: 'the acknowledgment before any other message of the subscription',
            actual: `${before.length} message(s) came first: ${before.map(describe).join(', ')}`,
            wire: o.sub.frames(),
          });
        }
      }
    } finally {
      await cancelAll(subs);
    }
    // Every other subscription of the run, passively.
    const passive = beforeAcknowledgment(t.ctx);
    reportObservations(t, passive.observations);
    t.note('acknowledged subscriptions observed', passive.acknowledged);
    if (t.findings.length === 0 && passive.acknowledged === 0)
      t.notObserved(`no subscription of the run was acknowledged${o?.framing && !o.ack ? ` (${o.why})` : ''}`);
  },
});

export const subscriptionIdTagged = defineCheck({
  id: 'subscriptions/subscription-id',
  title: 'the acknowledgment and every notification of a subscription carry its listen request id, same JSON type',
  level: 'MUST',
  // subscriptions#Receiving Notifications says what the tag holds without a keyword; the MUST is basic/index#_meta's.
  spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
  quote:
    'On notifications delivered via a subscriptions/listen stream, the server MUST include io.modelcontextprotocol/subscriptionId in _meta so the client can correlate the notification with the originating subscription request.',
  // Judged after every other check: every subscription of the run is observed.
  observer: true,
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    let judged = 0;
    let cutShort: VerdictSignal | undefined;
    try {
      for (const type of maySend(t) ? (['number', 'string'] as const) : []) {
        const id = session.nextIdOf(type);
        const o = await open(t, session, TOOLS_FILTER, subs, { id });
        if (!o.ack) {
          t.note(`${type} id`, `not acknowledged: ${o.why}`);
          continue;
        }
        const change = await changeTools(t, session, o.sub);
        await roundTrip(session);
        await o.sub.cancel();
        judged++;
        t.note(`${type} id`, { messages: live(o.sub).length, changeNotified: change.notified });
        expectTagged(t, o.sub, live(o.sub));
      }
    } catch (err) {
      // The active part could not be observed: the passive one still judges the run.
      if (!(err instanceof VerdictSignal)) throw err;
      cutShort = err;
    } finally {
      await cancelAll(subs);
    }
    // Every other subscription of the run, passively.
    const passive = untagged(t.ctx);
    reportObservations(t, passive.observations);
    if (cutShort && t.findings.length === 0) throw cutShort;
    t.note('subscription notifications observed', passive.judged);
    if (t.findings.length === 0 && judged === 0 && passive.judged === 0)
      t.notObserved('no subscription was acknowledged; see subscriptions/acknowledged-first');
  },
});

/** Each message carries the subscription's id, with the listen request id's JSON type. */
function expectTagged(t: Probe, sub: Subscription, messages: SubscriptionMessage[]): void {
  const id = sub.id;
  for (const m of messages) {
    const tag = subscriptionIdOf(m.msg);
    t.expect(tag === id, {
      expected: `subscriptionId ${JSON.stringify(id)} (a JSON ${typeof id}) on ${describe(m).split(' (')[0]}`,
      actual: tag === undefined ? 'no subscriptionId in _meta' : `subscriptionId ${JSON.stringify(tag)} (a JSON ${typeof tag})`,
      wire: [...(sub.requestFrame ? [sub.requestFrame] : []), m.frame],
    });
  }
}

// subscriptions/acknowledged-filter is gone: "The notifications field in the acknowledgment reflects
// the subset the server agreed to honor. Notification types the server does not support are omitted."
// has no keyword, so it can back no verdict. (Sending a type the client did not request is
// subscriptions/only-requested's MUST NOT.)

/** Without a trigger, how long only-requested holds its subscriptions open for unprompted notifications. */
const UNPROMPTED_WINDOW_MS = 1000;

export const onlyRequested = defineCheck({
  id: 'subscriptions/only-requested',
  unlockedBy: ['listChanged.trigger'],
  title: 'a subscription gets only the notification types it asked for',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/patterns/subscriptions', section: 'Opening a Stream' },
  quote: 'The server MUST NOT send notification types the client has not explicitly requested.',
  // Judged after every other check: every subscription of the run is observed.
  observer: true,
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    let triggered = false;
    let notified: boolean | undefined;
    let cutShort: VerdictSignal | undefined;
    try {
      if (maySend(t)) {
        // The witness asks for tools-list changes; the other subscription does not.
        const witness = await open(t, session, TOOLS_FILTER, subs);
        requireAck(t, witness);
        const other = await open(t, session, { notifications: { promptsListChanged: true, resourcesListChanged: true } }, subs);
        requireAck(t, other);
        if (!t.ctx.config.listChanged?.trigger) {
          // No trigger: both stay open a moment for whatever the server sends unprompted (an event with a deadline).
          const unasked = (sub: Subscription) => sub.waitFor((m) => requestedBy(sub.filter, m.msg) === false, UNPROMPTED_WINDOW_MS);
          await Promise.race([unasked(witness.sub), unasked(other.sub)]);
        }
        const change = await changeTools(t, session, witness.sub);
        await roundTrip(session);
        await cancelAll(subs);
        triggered = change.triggered;
        notified = change.notified;
        for (const o of [witness, other]) {
          for (const m of live(o.sub)) {
            t.expect(requestedBy(o.sub.filter, m.msg) !== false, {
              expected: `only notifications the filter ${show(o.sub.filter)} asked for`,
              actual: `${describe(m)} arrived for that subscription`,
              wire: [...(o.sub.requestFrame ? [o.sub.requestFrame] : []), m.frame],
            });
          }
        }
      }
    } catch (err) {
      // The active part could not be observed: the passive one still judges the run.
      if (!(err instanceof VerdictSignal)) throw err;
      cutShort = err;
    } finally {
      await cancelAll(subs);
    }
    // Every subscription of the run, passively: no trigger is needed to see a type nobody asked for.
    const passive = unrequested(t.ctx);
    reportObservations(t, passive.observations);
    if (t.findings.length) return;
    if (cutShort) throw cutShort;
    t.note('governed notifications observed', passive.governed);
    if (!triggered && passive.governed === 0) t.notObserved(NO_TRIGGER);
    if (triggered) t.note('change notified to the witness', notified);
  },
});

export const httpSse = defineCheck({
  id: 'subscriptions/http-sse',
  title: 'on HTTP, the listen response is an SSE stream that stays open',
  level: 'MUST',
  // Receiving Messages describes the listen stream without a keyword; the MUST is Sending Messages':
  // a request is answered with application/json (a single JSON object: the response) or an SSE stream,
  // so a listen answer that carries the acknowledgment, a notification, is an SSE stream.
  // That the stream stays open has no keyword: an early end is noted, not judged.
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Sending Messages' },
  quote:
    'If the body is a JSON-RPC request, the server MUST return either Content-Type: application/json (a single JSON object) or Content-Type: text/event-stream (an SSE response stream).',
  transports: ['http'],
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    try {
      // Decided at the status line and headers: an SSE stream, or not (the acknowledgment is acknowledged-first's).
      const o = await open(t, session, TOOLS_FILTER, subs, {}, true);
      const http = o.headers;
      if (!http) return t.notObserved(`the listen request got no answer (${o.why}); see ${idOf(acknowledgedFirst)}`);
      t.note('Content-Type', http.contentType);
      if (!isSseAnswer(http)) return judgeNotStreamed(t, o, http);
      await roundTrip(session);
      if (!o.sub.open) {
        const end = await o.sub.ended;
        t.note(
          'stream ended early',
          `before a later request was answered: ${end.exchange ? describeAnswer(end.exchange) : end.error?.message}`,
        );
      }
    } finally {
      await cancelAll(subs);
    }
  },
});

/**
 * A listen answered with something other than an SSE stream: a failure,
 * unless by the time a later request was answered the body had ended as one
 * JSON-RPC error (the server declined the subscription, in the single JSON
 * object the sentence allows).
 */
async function judgeNotStreamed(t: Probe, o: Opened, http: HttpInfo): Promise<void> {
  const end = o.sub.open ? undefined : await o.sub.ended;
  if (end?.exchange?.error && o.sub.messages.length <= 1) {
    t.notObserved(`the server declined the subscription: subscriptions/listen was answered with ${describeAnswer(end.exchange)}`);
  }
  const body = o.sub.messages.length
    ? `its body carried ${o.sub.messages.length} message(s)${o.sub.messages.length > 1 ? ' (newline-separated JSON)' : ''}: ${o.sub.messages.map(describe).join(', ')}`
    : 'nothing of its body had arrived when a later request was answered';
  t.expect(false, {
    expected:
      'Content-Type: text/event-stream on the listen response (its acknowledgment and notifications are messages before the response: an SSE stream)',
    actual: `${describeHeaders(http)}; ${body}`,
    wire: o.sub.frames(),
  });
}

export const noRequestScoped = defineCheck({
  id: 'subscriptions/no-request-scoped',
  title: 'no progress or log notifications on a listen stream',
  level: 'MUST',
  // An HTTP rule (a response stream's notifications relate to its request): on stdio every message
  // shares one channel and there is no listen stream to judge, so HTTP only. The listen request
  // carries neither a progressToken nor a logLevel, so no progress or log notification can relate
  // to it (without a logLevel the server MUST NOT send notifications/message for a request).
  spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Receiving Messages' },
  quote:
    'The server MAY send JSON-RPC notifications — for example, notifications/progress or notifications/message — before the final response. These notifications MUST relate to the originating client request. … Request-scoped notifications like notifications/progress and notifications/message are not delivered on the listen stream — they flow only on the response stream of the request they relate to.',
  parts: {
    // The logging page says it of log messages in so many words: they are judged under its sentence.
    // Its "any stream other than" the logging request's is, for a stream whose request set no level,
    // logging/only-requested's finding (a message for a request without the field).
    'log-messages': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/utilities/logging', section: 'Per-request log level' },
      quote:
        'notifications/message is request-scoped: the server MUST NOT deliver it on a subscriptions/listen stream or on any stream other than the one carrying the response to the request that set the log level.',
    },
  },
  transports: ['http'],
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    try {
      const o = await open(t, session, TOOLS_FILTER, subs);
      requireAck(t, o);
      const change = await changeTools(t, session, o.sub);
      await roundTrip(session);
      await o.sub.cancel();
      for (const m of live(o.sub).filter((x) => REQUEST_SCOPED.has(String(x.msg.method)))) {
        const log = m.msg.method === 'notifications/message';
        t.expect(false, {
          expected: 'only notifications that relate to the listen request on its stream (it asked for neither progress nor logging)',
          actual: `${describe(m)} arrived on the subscription`,
          wire: [...(o.sub.requestFrame ? [o.sub.requestFrame] : []), m.frame],
          ...(log ? { part: 'log-messages' } : {}),
        });
      }
      t.note('change caused', change.triggered);
    } finally {
      await cancelAll(subs);
    }
  },
});

async function walkTools(t: Probe, session: Session, when: string) {
  const walk = await walkList(session, 'tools/list', 'tools', { maxPages: t.ctx.settings.maxPages });
  if (!walk.exhausted) t.notObserved(`tools/list ${when} could not be walked: ${walk.problem?.detail}`);
  return walk;
}

export const listChanged = defineCheck({
  id: 'subscriptions/list-changed',
  unlockedBy: ['listChanged.trigger'],
  title: 'a real change of the tool list is notified to a subscription that asked for it',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'List Changed Notification' },
  quote:
    'When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification to clients that have opened a subscriptions/listen stream with toolsListChanged: true',
  async run(t) {
    if (!t.ctx.config.listChanged?.trigger) t.notObserved(NO_TRIGGER);
    const declared = (t.ctx.discovery().capabilities?.tools as JsonObject | undefined)?.listChanged === true;
    const session = t.session;
    const subs: Subscription[] = [];
    try {
      const o = await open(t, session, TOOLS_FILTER, subs);
      requireAck(t, o);
      const before = await walkTools(t, session, 'before the change');
      const mark = o.sub.messages.length;
      const started = Date.now();
      const fired = (await fire(t, session, 'trigger'))!;
      if (!fired.ok) t.notObserved(`the configured listChanged.trigger failed: ${fired.detail}`);
      const ms = t.ctx.settings.notificationTimeoutMs;
      const notice = await o.sub.waitFor((m) => m.msg.method === TOOLS_CHANGED, ms, mark);
      const latency = Date.now() - started;
      let after;
      try {
        after = await walkTools(t, session, 'after the change');
      } finally {
        // Leave the server as it was found, whatever happened.
        const undone = await fire(t, session, 'undo');
        if (undone && !undone.ok) t.note('undo', `the configured listChanged.undo failed: ${undone.detail}`);
        if (undone?.ok && notice) await o.sub.waitFor((m) => m.msg.method === TOOLS_CHANGED, ms, o.sub.messages.indexOf(notice) + 1);
      }
      await o.sub.cancel();

      const diff = toolsDiff(before.items, after.items);
      const changed = !isSame(diff);
      t.note('difference', diff);
      const early = o.sub.messages.slice(0, mark).filter((m) => m.msg.method === TOOLS_CHANGED);
      if (early.length) t.note('notified without a change', `${early.length} notifications/tools/list_changed before the trigger ran`);
      if (!changed) {
        if (!notice) t.notObserved(`the trigger ran (${fired.detail}) but tools/list did not change`);
        t.note('notified without a change', 'notifications/tools/list_changed arrived, but tools/list is the same before and after');
        return;
      }
      if (notice) {
        t.note('notified after (ms)', latency);
        return;
      }
      if (!declared) t.skip('the tool list changed without a notification, and the server does not declare tools.listChanged: true');
      t.expect(false, {
        expected: `notifications/tools/list_changed on the subscription within ${ms / 1000} s of the change`,
        actual: `none arrived, yet tools/list changed: ${describeDiff(diff)}`,
        wire: orderFrames([...o.sub.frames(), ...(fired.exchange?.frames ?? []), ...after!.pages.flatMap((p) => p.frames)]),
      });
    } finally {
      await cancelAll(subs);
    }
  },
});

export const demultiplex = defineCheck({
  id: 'subscriptions/demultiplex',
  unlockedBy: ['listChanged.trigger'],
  title: 'two concurrent subscriptions each get their own notifications, tagged with their own id',
  level: 'MUST',
  // Multiple Concurrent Subscriptions describes the demultiplexing without a keyword; the MUST is
  // basic/index#_meta's: the tag correlates a notification with the subscription it originates from.
  spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
  quote:
    'On notifications delivered via a subscriptions/listen stream, the server MUST include io.modelcontextprotocol/subscriptionId in _meta so the client can correlate the notification with the originating subscription request.',
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    try {
      const prompts = await open(t, session, { notifications: { promptsListChanged: true } }, subs);
      const tools = await open(t, session, TOOLS_FILTER, subs);
      if (!tools.ack && prompts.sub.messages.filter((m) => m.msg.method === ACKNOWLEDGED).length > 1) {
        t.expect(false, {
          expected: `each acknowledgment tagged with its own subscription id (${JSON.stringify(prompts.sub.id)}, ${JSON.stringify(tools.sub.id)})`,
          actual: `both acknowledgments carried ${JSON.stringify(prompts.sub.id)}`,
          wire: orderFrames([...prompts.sub.frames(), ...tools.sub.frames()]),
        });
        return;
      }
      requireAck(t, prompts);
      const ack = requireAck(t, tools);
      const wait = silentRuns.has(t.ctx) ? 0 : t.ctx.settings.notificationTimeoutMs;
      const seen = session.waitForMessage((m) => m.method === TOOLS_CHANGED, wait);
      const change = await changeTools(t, session);
      if (change.triggered && !(await seen) && wait > 0) silentRuns.add(t.ctx);
      await roundTrip(session);
      await cancelAll(subs);
      if (!change.triggered) t.notObserved(NO_TRIGGER);

      const agreed = ((ack.msg.params as JsonObject | undefined)?.notifications ?? {}) as JsonObject;
      const forTools = live(tools.sub).filter((m) => m.msg.method === TOOLS_CHANGED);
      const forPrompts = live(prompts.sub).filter((m) => m.msg.method === TOOLS_CHANGED);
      t.note('tools/list_changed', { [String(tools.sub.id)]: forTools.length, [String(prompts.sub.id)]: forPrompts.length });
      if (forTools.length + forPrompts.length === 0) {
        t.note(
          'not exercised',
          'no notifications/tools/list_changed arrived for either subscription; only the acknowledgments were demultiplexed',
        );
        return;
      }
      if (agreed.toolsListChanged !== true) return;
      t.expect(forTools.length > 0, {
        expected: `notifications/tools/list_changed tagged ${JSON.stringify(tools.sub.id)}, the subscription that asked for it`,
        actual: `it arrived tagged ${JSON.stringify(prompts.sub.id)} (the other subscription, filter ${show(prompts.sub.filter)}) and never for ${JSON.stringify(tools.sub.id)}`,
        wire: orderFrames([...tools.sub.frames(), ...prompts.sub.frames()]),
      });
    } finally {
      await cancelAll(subs);
    }
  },
});

export const cancelEnds = defineCheck({
  id: 'subscriptions/cancel-ends',
  title: 'cancelling a subscription ends it: nothing more arrives for it',
  level: 'MUST',
  // subscriptions#Cancellation lists how a subscription ends, with no MUST; the MUST NOT is
  // stdio#Cancellation's. On HTTP the client closes the stream, after which nothing can arrive on it:
  // the pass would be vacuous, so stdio only.
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'Cancellation' },
  quote: 'Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.',
  transports: ['stdio'],
  async run(t) {
    const subs: Subscription[] = [];
    const session = t.session;
    try {
      const first = await open(t, session, TOOLS_FILTER, subs);
      requireAck(t, first);
      await first.sub.cancel();
      // The next listen's acknowledgment comes after the server has read the cancellation
      // (stdio: one ordered channel). What it sent before that crossed the cancellation on
      // the wire, which the spec tolerates; what comes after it is judged.
      const second = await open(t, session, TOOLS_FILTER, subs);
      requireAck(t, second);
      const cutoff = first.sub.messages.length;
      const crossed = first.sub.messages.filter((m) => m.afterCancel).length;
      if (crossed) t.note('in flight when cancelled', `${crossed} message(s) sent before the server read the cancellation`);
      const change = await changeTools(t, session, second.sub);
      const later = await roundTrip(session);
      await cancelAll(subs);
      const after = first.sub.messages.slice(cutoff);
      for (const m of after) {
        t.expect(false, {
          expected: `nothing more for subscription ${JSON.stringify(first.sub.id)} once the server has read its cancellation`,
          actual: `${describe(m)} arrived after the next subscription was acknowledged`,
          wire: orderFrames([...first.sub.frames(), ...later.frames]),
        });
      }
      if (t.findings.length) return;
      t.note('judged until', change.notified ? 'a change was notified to a later subscription' : 'a later request was answered');
    } finally {
      await cancelAll(subs);
    }
  },
});

/** A notifications/cancelled naming the subscription's listen request (same value: the id's JSON type is another rule). */
const namesListen = (sub: Subscription) => (m: SubscriptionMessage) =>
  m.msg.method === 'notifications/cancelled' && String((m.msg.params as JsonObject | undefined)?.requestId) === String(sub.id);

/** What the suite saw when the configured subscriptionEnd.trigger ended a subscription. */
interface ServerEnd {
  /** Why it could not be seen (not-observed). */
  why?: string;
  sub?: Subscription;
  fired?: Fired;
  response?: SubscriptionMessage;
  cancelled?: SubscriptionMessage;
  /** How long the suite waited for each signal. */
  ms: number;
  wire: WireFrame[];
}

/** One server-initiated end per run, shared by the checks that judge it (graceful-close, teardown-cancelled). */
const serverEndKey = memoKey<Promise<ServerEnd>>('subscriptions: a subscription the server ended (subscriptionEnd.trigger)');

/**
 * End a subscription with the configured subscriptionEnd.trigger, on a fresh
 * connection, and collect both signals of the end: the listen response and a
 * notifications/cancelled naming the listen request. A conformant server sends
 * both, in either order: once one has come, the other is waited for too (stdio;
 * on HTTP nothing can follow the response on the closed stream).
 */
function serverEnd(t: Probe): Promise<ServerEnd> {
  return t.ctx.run.memo(serverEndKey, async (): Promise<ServerEnd> => {
    const end = t.ctx.config.subscriptionEnd;
    const ms = end?.timeoutMs ?? t.ctx.settings.requestTimeoutMs;
    if (!end) return { why: NO_END_TRIGGER, ms, wire: [] };
    const session = await t.ctx.openSession();
    const subs: Subscription[] = [];
    try {
      const o = await open(t, session, TOOLS_FILTER, subs, { id: session.nextIdOf('string') });
      if (!o.ack)
        return {
          why: `the subscription was not acknowledged (${o.why}); see ${idOf(o.framing ? httpSse : acknowledgedFirst)}`,
          ms,
          wire: o.sub.frames(),
        };
      const fired = await runTrigger(t, session, end.trigger);
      if (!fired.ok) return { why: `the configured subscriptionEnd.trigger failed: ${fired.detail}`, ms, wire: [] };
      const torn = namesListen(o.sub);
      // The end: the listen response, a notifications/cancelled naming it, or the stream closing (HTTP).
      await Promise.race([o.sub.waitFor((m) => m.via === 'response' || torn(m), ms), o.sub.ended]);
      // The other signal may follow the first (either order is conformant): the response (until the stream ends,
      // HTTP), then on stdio a cancellation after it (on HTTP nothing follows the response on the closed stream).
      if (o.sub.messages.some(torn)) await Promise.race([o.sub.waitFor((m) => m.via === 'response', ms), o.sub.ended]);
      if (t.ctx.transport === 'stdio' && o.sub.messages.some((m) => m.via === 'response')) await o.sub.waitFor(torn, ms);
      const response = o.sub.messages.find((m) => m.via === 'response');
      const cancelled = o.sub.messages.find(torn);
      const wire = orderFrames([...o.sub.frames(), ...(fired.exchange?.frames ?? [])]);
      if (!response && !cancelled && o.sub.open)
        return {
          why: `the configured subscriptionEnd.trigger ran (${fired.detail}), but the subscription did not end within ${ms / 1000} s`,
          ms,
          wire,
        };
      return { sub: o.sub, fired, response, cancelled, ms, wire };
    } finally {
      await cancelAll(subs);
    }
  });
}

export const gracefulClose = defineCheck({
  id: 'subscriptions/graceful-close',
  unlockedBy: ['subscriptionEnd'],
  title: 'a subscription the server ends on its own initiative gets a completion result',
  level: 'SHOULD',
  // Only a server-initiated end is judged, caused by the configuration file's subscriptionEnd.trigger.
  // Closing the server's stdin is the client's shutdown (stdio#Shutdown) and a transport close, which
  // subscriptions#Cancellation lists as its own way a subscription ends, with no response: a server
  // that exits when its stdin closes is conformant, so without a trigger the check is not observed.
  // The cancellation page asks for a notifications/cancelled at the same end (subscriptions/teardown-cancelled):
  // a conformant server sends both, in either order, and each is judged on its own.
  spec: { revision: 'draft', page: 'basic/patterns/subscriptions', section: 'Graceful Closure' },
  quote:
    'When the server ends a subscription on its own initiative (for example, during shutdown), it SHOULD respond to the original subscriptions/listen request with a completion result before closing the stream.',
  parts: {
    // Which id the closing result's _meta carries: the page says it in words after the SHOULD (the schema's comment has
    // no keyword either), so a wrong value is judged at the SHOULD it continues, never at MUST.
    'subscription-id': {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'basic/patterns/subscriptions', section: 'Graceful Closure' },
      quote:
        'it SHOULD respond to the original subscriptions/listen request with a completion result before closing the stream. … Like every other message on the stream, the response carries io.modelcontextprotocol/subscriptionId in _meta, identifying which subscription it closes. The value matches the JSON-RPC id of the originating subscriptions/listen request.',
    },
    // The listen response is a result, not a JSON-RPC error.
    successful: {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'basic/patterns/subscriptions', section: 'Cancellation' },
      quote:
        'A subscription ends when: … The server tears it down (e.g., during shutdown) — it SHOULD send a successful subscriptions/listen response to signal a graceful end (see Graceful Closure), then close the stream.',
    },
  },
  async run(t) {
    const seen = await serverEnd(t);
    if (!seen.sub) return t.notObserved(seen.why ?? 'no subscription was ended');
    const { response, cancelled, fired, wire } = seen;
    if (!response) {
      const how = cancelled
        ? 'notifications/cancelled named the listen request'
        : `the stream ended: ${(await seen.sub.ended).error?.message ?? 'no response'}`;
      t.expect(false, {
        expected: 'a result answering the subscriptions/listen request before the subscription ends',
        actual: `after the trigger (${fired?.detail}) the subscription ended without its listen response: ${how}`,
        wire,
      });
      return;
    }
    judgeClosingResult(t, seen.sub, response, wire);
  },
});

export const teardownCancelled = defineCheck({
  id: 'subscriptions/teardown-cancelled',
  unlockedBy: ['subscriptionEnd'],
  title: 'stdio: a subscription the server ends on its own initiative is torn down with notifications/cancelled naming its listen request',
  level: 'MUST',
  // stdio only: the schema's CancelledNotification says the server sends it "On stdio", solely to
  // terminate a listen stream; on HTTP the listen stream closing is the end. The same end as
  // subscriptions/graceful-close (one trigger per run, shared), judged for the other signal.
  spec: { revision: 'draft', page: 'basic/patterns/cancellation', section: 'Cancellation' },
  quote:
    'A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream (see Subscriptions).',
  transports: ['stdio'],
  async run(t) {
    const seen = await serverEnd(t);
    if (!seen.sub) return t.notObserved(seen.why ?? 'no subscription was ended');
    t.expect(!!seen.cancelled, {
      expected: `notifications/cancelled with requestId ${JSON.stringify(seen.sub.id)} as the server tears the subscription down`,
      actual: `after the trigger (${seen.fired?.detail}) the subscription ended ${seen.response ? 'with its listen response' : 'without a response'}, and no notifications/cancelled named it within ${seen.ms / 1000} s`,
      wire: seen.wire,
    });
  },
});

/** The listen response that closed a subscription: a successful completion result, tagged with the subscription id. */
function judgeClosingResult(t: Probe, sub: Subscription, response: SubscriptionMessage, wire: ReturnType<typeof orderFrames>): void {
  const result = response.msg.result as JsonObject | undefined;
  const ok = t.expect(!!result, {
    expected: 'a successful subscriptions/listen response (a result) signalling the graceful end',
    actual: `a JSON-RPC error: ${show(response.msg.error)}`,
    wire,
    part: 'successful',
  });
  if (!ok) return;
  // A missing resultType is protocol/result-type's; a result that asks for input is no completion.
  t.expect(result!.resultType === undefined || result!.resultType === 'complete', {
    expected: 'a completion result (resultType "complete")',
    actual: `resultType ${show(result!.resultType)}`,
    wire,
  });
  // A missing key fails the schema (protocol/messages-schema-valid's finding); a wrong value passes it.
  const tag = subscriptionIdOf(response.msg);
  if (tag === undefined) t.note('subscriptionId on the closing result', 'missing (see protocol/messages-schema-valid)');
  else {
    t.expect(tag === sub.id, {
      expected: `_meta subscriptionId ${JSON.stringify(sub.id)} (a JSON ${typeof sub.id}) on the closing result`,
      actual: `subscriptionId ${JSON.stringify(tag)} (a JSON ${typeof tag})`,
      wire,
      part: 'subscription-id',
    });
  }
}

// Scheduling needs, declared. These change the tool list with the configured
// listChanged trigger: they need the server to themselves.
for (const c of [subscriptionIdTagged, onlyRequested, noRequestScoped, listChanged, demultiplex, cancelEnds]) {
  schedule(c, { exclusive: 'changes the tool list (the listChanged trigger)' });
}

export const subscriptionChecks = [
  acknowledgedFirst,
  subscriptionIdTagged,
  onlyRequested,
  httpSse,
  noRequestScoped,
  listChanged,
  demultiplex,
  cancelEnds,
  gracefulClose,
  teardownCancelled,
];

// Every subscription check listens on the first connection (graceful-close on its own, closing it),
// one at a time: what a server still sends for a cancelled subscription lands where it was opened.
for (const c of subscriptionChecks) schedule(c, { primary: 'listens on the first connection' });
// Cancels a subscription and then changes the tool list: after every other check that listens on the primary connection.
schedule(cancelEnds, { after: subscriptionChecks.filter((c) => c !== cancelEnds && c !== gracefulClose && c !== teardownCancelled) });

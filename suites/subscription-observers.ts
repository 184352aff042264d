/**
 * Passive observers of every subscription of the run. Whichever check opened
 * a subscription, on whichever connection, every message the session tied
 * to it is judged for the rules that need no trigger:
 *
 * - subscriptions/only-requested: a notification type the subscription did
 *   not ask for (and that no other subscription open on the connection at the
 *   time asked for either: a notification meant for another subscription is
 *   misrouted, which subscriptions/demultiplex judges);
 * - subscriptions/subscription-id: a subscription notification without the
 *   subscription's id in `_meta`, or with it in another JSON type;
 * - subscriptions/acknowledged-first: a notification before the
 *   acknowledgment.
 *
 * Only messages clearly tied to the subscription are judged: by their
 * subscriptionId, or (HTTP) by the listen request's own response stream; for
 * the id rule also (stdio) an untagged subscription notification while the
 * subscription was the only one open. The checks that own the rules run
 * these after every other check (they are observers), so the whole run is
 * seen; each finding carries the listen request and the message.
 */
import {
  ACKNOWLEDGED,
  requestedBy,
  SUBSCRIPTION_NOTIFICATIONS,
  subscriptionIdOf,
  type Subscription,
  type SubscriptionMessage,
} from '../harness/subscription.js';
import type { WireFrame } from '../model/wire.js';
import { frameKey, show, type Probe, type SuiteContext } from './check.js';

export interface Observation {
  sub: Subscription;
  m: SubscriptionMessage;
  expected: string;
  actual: string;
}

/** Every subscription the run opened, on every connection. */
export function runSubscriptions(ctx: SuiteContext): Subscription[] {
  return ctx.allSessions().flatMap((s) => [...s.openedSubscriptions()]);
}

const tiedClearly = (m: SubscriptionMessage) => m.via === 'subscription-id' || m.via === 'stream';

/** Was `sub` open when `frame` arrived: its listen request sent before it, and neither cancelled nor answered before it? */
function openAt(sub: Subscription, frame: WireFrame): boolean {
  const req = sub.requestFrame;
  if (!req || req.connection !== frame.connection || req.seq > frame.seq) return false;
  if (sub.cancelFrame && sub.cancelFrame.connection === frame.connection && sub.cancelFrame.seq < frame.seq) return false;
  const response = sub.messages.find((x) => x.via === 'response');
  return !(response && response.frame.seq < frame.seq);
}

const methodOf = (m: SubscriptionMessage) => (typeof m.msg.method === 'string' ? m.msg.method : 'the listen response');

/** Notifications of types a subscription did not ask for. */
export function unrequested(ctx: SuiteContext): { observations: Observation[]; governed: number } {
  const subs = runSubscriptions(ctx);
  const observations: Observation[] = [];
  let governed = 0;
  for (const sub of subs) {
    for (const m of sub.messages) {
      if (!tiedClearly(m) || ctx.framesJudged.has(frameKey(m.frame))) continue;
      const asked = requestedBy(sub.filter, m.msg);
      if (asked === undefined) continue;
      governed++;
      if (asked) continue;
      if (subs.some((o) => o !== sub && openAt(o, m.frame) && requestedBy(o.filter, m.msg) === true)) continue;
      observations.push({
        sub,
        m,
        expected: `only notifications the filter ${show(sub.filter)} asked for`,
        actual: `${methodOf(m)} arrived for subscription ${JSON.stringify(sub.id)}${m.afterCancel ? ' (after the suite cancelled it)' : ''}, which did not ask for it`,
      });
    }
  }
  return { observations, governed };
}

/** Subscription notifications without the subscription's id, or with it in another JSON type. */
export function untagged(ctx: SuiteContext): { observations: Observation[]; judged: number } {
  const observations: Observation[] = [];
  let judged = 0;
  for (const sub of runSubscriptions(ctx)) {
    for (const m of sub.messages) {
      if (m.via === 'response' || m.via === 'cancelled' || !SUBSCRIPTION_NOTIFICATIONS.has(String(m.msg.method))) continue;
      if (ctx.framesJudged.has(frameKey(m.frame))) continue;
      judged++;
      const tag = subscriptionIdOf(m.msg);
      if (tag === sub.id) continue;
      observations.push({
        sub,
        m,
        expected: `subscriptionId ${JSON.stringify(sub.id)} (a JSON ${typeof sub.id}) on ${methodOf(m)}`,
        actual: tag === undefined ? 'no subscriptionId in _meta' : `subscriptionId ${JSON.stringify(tag)} (a JSON ${typeof tag})`,
      });
    }
  }
  return { observations, judged };
}

/** Notifications that came before their subscription's acknowledgment. */
export function beforeAcknowledgment(ctx: SuiteContext): { observations: Observation[]; acknowledged: number } {
  const observations: Observation[] = [];
  let acknowledged = 0;
  for (const sub of runSubscriptions(ctx)) {
    const at = sub.messages.findIndex((m) => m.msg.method === ACKNOWLEDGED);
    if (at < 0) continue;
    acknowledged++;
    for (const m of sub.messages.slice(0, at)) {
      if (!tiedClearly(m) || typeof m.msg.method !== 'string' || ctx.framesJudged.has(frameKey(m.frame))) continue;
      observations.push({
        sub,
        m,
        expected: 'the acknowledgment before any other message of the subscription',
        actual: `${methodOf(m)} came before the acknowledgment of subscription ${JSON.stringify(sub.id)}`,
      });
    }
  }
  return { observations, acknowledged };
}

/** Report observations the check has not already reported (by the inbound frame), each with the listen request and the message. */
export function reportObservations(t: Probe, observations: Observation[]): void {
  const reported = new Set(t.findings.flatMap((f) => f.wire.filter((w) => w.dir === 'in').map(frameKey)));
  for (const o of observations) {
    const key = frameKey(o.m.frame);
    if (reported.has(key)) continue;
    reported.add(key);
    t.expect(false, { expected: o.expected, actual: o.actual, wire: [...(o.sub.requestFrame ? [o.sub.requestFrame] : []), o.m.frame] });
  }
}

/** May an observer check still send (the run not cut short, the primary connection alive)? */
export function maySend(t: Probe): boolean {
  return !t.ctx.signal.aborted && !t.session.closed;
}

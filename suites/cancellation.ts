/**
 * Cancelling an in-flight request (basic/patterns/cancellation,
 * basic/transports/stdio "Cancellation").
 */
import type { Exchange, RequestId } from '../harness/session.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import type { ServerCancellation } from '../harness/cancellations.js';
import { defineCheck, describeAnswer, type Probe } from './check.js';
import { finishedSlowCall, slowCall } from './triggers.js';

/** The sequence number of an exchange's response frame (stdio: one ordered channel). */
function answeredAt(ex: Exchange): number | undefined {
  return ex.frames.filter((f) => f.dir === 'in').at(-1)?.seq;
}

export const noResponseAfterCancel = defineCheck({
  id: 'cancellation/no-response-after-cancel',
  unlockedBy: ['slowTool'],
  title: 'a cancelled in-flight request gets no response, and no progress, once the server has read the cancellation',
  level: 'MUST',
  // Cancellation#Timing Considerations: a cancellation "may arrive after request processing has
  // completed, and potentially after a response has already been sent". So the call is shown to be in
  // flight first (a later request is answered while it is not), and only a response sent after the
  // server read the cancellation is judged: one that follows the answer to a request sent after the
  // cancellation (stdio is one ordered channel). A response in between crossed it on the wire: noted.
  // The 2025-11-25 pages make this a SHOULD ("Not send a response for the cancelled request"), a rule
  // of its own for the legacy era: this check stays modern.
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'Cancellation' },
  quote: 'Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.',
  // On HTTP, closing the response stream is the cancellation, and nothing can arrive on it afterwards.
  transports: ['stdio'],
  async run(t) {
    const found = await slowCall(t.ctx, 'cancellation/no-response-after-cancel', 'in-flight');
    if (!found.call) return t.notObserved(`${found.reason} (a call that stays in flight long enough to cancel)`);
    const slow = found.call;
    const session = t.session;
    const params = { name: slow.name, arguments: slow.arguments ?? {} };
    const id: RequestId = session.nextId();
    // A progressToken on the cancelled call: progress for it is a further message too (the server MAY send none).
    const token = `mcpc-progress-${String(id)}`;
    const progress: WireFrame[] = [];
    t.defer(
      session.onMessage((msg, frame) => {
        if (msg.method === 'notifications/progress' && (msg.params as JsonObject | undefined)?.progressToken === token)
          progress.push(frame);
      }),
    );
    let answeredEarly = false;
    const cancelled = session.request('tools/call', { ...params, _meta: { progressToken: token } }, { id }).then(
      () => {
        answeredEarly = true;
      },
      () => undefined,
    );
    // In flight: a later request is answered while the call is not.
    const before = await session.request('server/discover');
    if (answeredEarly) {
      await cancelled;
      return t.notObserved(
        `tools/call ${slow.name} was answered before a later request: it was not in flight long enough to cancel (give slowTool arguments that make it slower)`,
      );
    }
    await session.cancel(id);
    // Sent after the cancellation: once it is answered, the server has read the cancellation.
    const barrier = await session.request('server/discover');
    // The same call again, let finish (a held call is released: releaseWhenHeld): by the time it is answered,
    // the cancelled one would have been too.
    const probe = await finishedSlowCall(session, slow);
    await cancelled;
    const cutoff = answeredAt(barrier) ?? Number.POSITIVE_INFINITY;
    const late = session.lateResponses(id);
    const crossed = late.filter((f) => f.seq < cutoff);
    const after = late.filter((f) => f.seq > cutoff);
    const lateProgress = progress.filter((f) => f.seq > cutoff);
    t.note('probe', describeAnswer(probe));
    if (crossed.length)
      t.note('crossed the cancellation', `${crossed.length} response(s) sent before the server read the cancellation (allowed)`);
    const what = [
      ...(after.length ? ['answered it'] : []),
      ...(lateProgress.length ? [`sent ${lateProgress.length} notifications/progress for its progressToken`] : []),
    ];
    t.expect(what.length === 0, {
      expected: `no response to tools/call ${JSON.stringify(id)}, and no progress for it, after the server read notifications/cancelled naming it`,
      actual: `the server ${what.join(' and ')} after it had answered a request sent after the cancellation`,
      wire: [...before.frames, ...after, ...lateProgress.slice(0, 4), ...barrier.frames].sort((a, b) => a.seq - b.seq),
    });
  },
});

/** Every notifications/cancelled the server sent in the run, on every connection. */
export function serverCancellations(t: Probe): ServerCancellation[] {
  return t.ctx.allSessions().flatMap((s) => [...s.serverCancellations]);
}

export const serverSentListenOnly = defineCheck({
  id: 'cancellation/server-sent-listen-only',
  unlockedBy: ['subscriptionEnd'],
  title: 'every notifications/cancelled the server sends names a subscriptions/listen request the client sent',
  level: 'MUST',
  // An observer of the whole run: each server-sent cancellation is judged by what its requestId named
  // when it arrived. A listen request already answered is accepted (the pages leave the order of the
  // listen response and the cancellation at a server's end open: see subscriptions/graceful-close).
  spec: { revision: 'draft', page: 'basic/patterns/cancellation', section: 'Behavior Requirements' },
  quote: 'Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream',
  parts: {
    // A cancellation naming another request the client sent: the server used it for another purpose.
    'other-purpose': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/patterns/cancellation', section: 'Cancellation' },
      quote: 'Servers MUST NOT send notifications/cancelled for any other purpose.',
    },
  },
  observer: true,
  async run(t) {
    const seen = serverCancellations(t);
    t.note('server-sent cancellations', seen.length);
    const retyped = seen.filter((c) => c.listen && !c.listen.exactType).length;
    if (retyped) t.note('listen ids named in another JSON type', retyped);
    if (seen.length === 0)
      return t.notObserved(
        'the server sent no notifications/cancelled in this run (a subscriptionEnd.trigger in the configuration file makes it end a subscription)',
      );
    for (const c of seen.filter((c) => !c.listen).slice(0, 5)) {
      const other = c.clientRequest;
      t.expect(false, {
        expected: 'notifications/cancelled naming a subscriptions/listen request the client sent',
        actual: other
          ? `requestId ${JSON.stringify(c.requestId)} names the client's ${other.method ?? 'earlier'} request, which is not a subscriptions/listen`
          : `requestId ${JSON.stringify(c.requestId)} names no request the client sent on this connection`,
        wire: [c.frame],
        ...(other ? { part: 'other-purpose' } : {}),
      });
    }
  },
});

export const cancellationChecks = [noResponseAfterCancel, serverSentListenOnly];

/**
 * Cancelling an in-flight request (basic/patterns/cancellation,
 * basic/transports/stdio "Cancellation").
 */
import type { Exchange, RequestId } from '../harness/session.js';
import { defineCheck, describeAnswer } from './check.js';
import { whyNotCallableAsWritten } from './safety.js';

/** The sequence number of an exchange's response frame (stdio: one ordered channel). */
function answeredAt(ex: Exchange): number | undefined {
  return ex.frames.filter((f) => f.dir === 'in').at(-1)?.seq;
}

export const noResponseAfterCancel = defineCheck({
  id: 'cancellation/no-response-after-cancel',
  title: 'a cancelled in-flight request gets no response once the server has read the cancellation',
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
    const slow = t.ctx.config.slowTool;
    if (!slow)
      return t.notObserved('no slowTool in the configuration file: the suite knows no call that stays in flight long enough to cancel');
    const excluded = whyNotCallableAsWritten(t.ctx, slow.name);
    if (excluded) return t.notObserved(`slowTool ${JSON.stringify(slow.name)} ${excluded}`);
    const session = t.session;
    const params = { name: slow.name, arguments: slow.arguments ?? {} };
    const id: RequestId = session.nextId();
    let answeredEarly = false;
    const cancelled = session.request('tools/call', params, { id }).then(
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
    // The same call again: by the time it is answered, the cancelled one would have been too.
    const probe = await session.request('tools/call', params);
    await cancelled;
    const cutoff = answeredAt(barrier) ?? Number.POSITIVE_INFINITY;
    const late = session.lateResponses(id);
    const crossed = late.filter((f) => f.seq < cutoff);
    const after = late.filter((f) => f.seq > cutoff);
    t.note('probe', describeAnswer(probe));
    if (crossed.length)
      t.note('crossed the cancellation', `${crossed.length} response(s) sent before the server read the cancellation (allowed)`);
    t.expect(after.length === 0, {
      expected: `no response to tools/call ${JSON.stringify(id)} after the server read notifications/cancelled naming it`,
      actual: 'the server answered it after it had answered a request sent after the cancellation',
      wire: [...before.frames, ...after, ...barrier.frames].sort((a, b) => a.seq - b.seq),
    });
  },
});

export const cancellationChecks = [noResponseAfterCancel];

/**
 * Cancelling an in-flight request (basic/patterns/cancellation,
 * basic/transports/stdio "Cancellation").
 */
import type { RequestId } from '../harness/session.js';
import { defineCheck, describeAnswer } from './check.js';
import { whyNotCallableAsWritten } from './safety.js';

export const noResponseAfterCancel = defineCheck({
  id: 'cancellation/no-response-after-cancel',
  title: 'a cancelled in-flight request gets no response',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'Cancellation' },
  quote:
    'To cancel an in-flight request, the client MUST send a notifications/cancelled notification referencing the request\'s ID; servers MUST NOT send any further messages for it.',
  // On HTTP, closing the response stream is the cancellation, and nothing can arrive on it afterwards.
  transports: ['stdio'],
  async run(t) {
    const slow = t.ctx.config.slowTool;
    if (!slow) return t.notObserved('no slowTool in the configuration file: the suite knows no call that stays in flight long enough to cancel');
    const excluded = whyNotCallableAsWritten(t.ctx, slow.name);
    if (excluded) return t.notObserved(`slowTool ${JSON.stringify(slow.name)} ${excluded}`);
    const session = t.session;
    const params = { name: slow.name, arguments: slow.arguments ?? {} };
    const id: RequestId = session.nextId();
    const cancelled = session.request('tools/call', params, { id }).then(
      () => 'answered before the cancellation was sent',
      () => undefined,
    );
    await session.cancel(id);
    // The same call again: by the time it is answered, the cancelled one would have been too.
    const probe = await session.request('tools/call', params);
    const early = await cancelled;
    if (early) t.notObserved(`the call was ${early}`);
    const late = session.lateResponses(id);
    t.note('probe', describeAnswer(probe));
    t.expect(late.length === 0, {
      expected: `no response to tools/call ${JSON.stringify(id)} after notifications/cancelled named it`,
      actual: 'the server answered it after the cancellation (before the same call sent later was answered)',
    });
  },
});

export const cancellationChecks = [noResponseAfterCancel];

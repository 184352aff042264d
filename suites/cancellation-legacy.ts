/**
 * The rules of the 2025-11-25 cancellation page (basic/utilities/cancellation)
 * that the modern checks do not hold: invalid cancellations are ignored (the
 * draft's basic/patterns/cancellation says the same, so that check runs in
 * both eras, on stdio: modern Streamable HTTP has no notifications/cancelled),
 * and, in the legacy era, a request named in `notifications/cancelled` while
 * in flight gets no response (the modern era's stricter MUST is
 * cancellation/no-response-after-cancel). On both transports the cancellation is the notification (in
 * 2025-11-25 a closed HTTP stream is not a cancellation), so the call's
 * stream stays open to see whether an answer still comes.
 *
 * Timing ("Timing Considerations"): a response the server sent before it
 * read the cancellation crossed it and is legal. The suite sends a `ping`
 * right after the cancellation: a server reads its input in order, so a
 * response that arrives before the ping's answer may have crossed the
 * cancellation (not-observed), and only one that arrives after it was sent
 * with the cancellation already read. The same call again marks the time by
 * which the cancelled one would have been answered.
 */
import type { Exchange, RequestId, Session } from '../harness/session.js';
import type { JsonObject } from '../model/json.js';
import { defineCheck, describeAnswer, type Probe } from './check.js';
import type { WireFrame } from '../model/wire.js';
import { serverCancellations } from './cancellation.js';
import { finishedSlowCall, slowCall } from './triggers.js';

export const cancelledNotAnswered = defineCheck({
  id: 'cancellation/cancelled-not-answered',
  unlockedBy: ['slowTool'],
  title: 'a request cancelled in flight with notifications/cancelled gets no response, and no more progress (legacy era)',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'basic/utilities/cancellation', section: 'Behavior Requirements' },
  quote: 'Receivers of cancellation notifications SHOULD: … Not send a response for the cancelled request',
  parts: {
    // Seen from the client: the call carries a progressToken, and no notifications/progress for it
    // comes once the server has read the cancellation (a server MAY send no progress at all).
    'stop-processing': {
      level: 'SHOULD',
      spec: { revision: '2025-11-25', page: 'basic/utilities/cancellation', section: 'Behavior Requirements' },
      quote: 'Receivers of cancellation notifications SHOULD: … Stop processing the cancelled request',
    },
  },
  async run(t) {
    const found = await slowCall(t.ctx, 'cancellation/cancelled-not-answered', 'in-flight');
    if (!found.call) return t.notObserved(`${found.reason} (a call that stays in flight long enough to cancel)`);
    const slow = found.call;
    const s = await t.ctx.openSession();
    const id: RequestId = s.nextId();
    const token = `mcpc-progress-${String(id)}`;
    const params = { name: slow.name, arguments: slow.arguments ?? {} };
    const progress: WireFrame[] = [];
    const off = s.onMessage((msg, frame) => {
      if (msg.method === 'notifications/progress' && (msg.params as JsonObject | undefined)?.progressToken === token) progress.push(frame);
    });
    t.defer(off);
    let answered: Exchange | undefined;
    const call = s
      .request('tools/call', { ...params, _meta: { progressToken: token } }, { id, timeoutMs: t.ctx.settings.requestTimeoutMs * 2 })
      .then(
        (ex) => (answered = ex),
        () => undefined,
      );
    const cancelFrame = await s.notify('notifications/cancelled', { requestId: id, reason: 'mcp-conformance: cancellation check' });
    // The ordering mark: whatever the server sends after this answer, it sent having read the cancellation.
    const mark = await s.request('ping').catch(() => undefined);
    const markFrame = mark?.frames.filter((f) => f.dir === 'in').at(-1);
    // The same call again, let finish (a held call is released: releaseWhenHeld): by the time it is answered, the
    // cancelled one would have been answered (and done reporting) too.
    const again = await finishedSlowCall(s, slow);
    t.note('the same call again', describeAnswer(again));
    // HTTP: the cancelled call's stream is a connection of its own, in no order with the probe's; what it carried is
    // read once it has ended (a server that keeps it open is given up on after one request timeout).
    if (t.ctx.transport === 'http') await settledWithin(call, t.ctx.settings.requestTimeoutMs);
    const lateProgress = markFrame ? progress.filter((f) => f.seq > markFrame.seq) : [];
    t.note('progress for the cancelled call', `${progress.length} (after the ping answer: ${lateProgress.length})`);
    t.expect(lateProgress.length === 0, {
      expected: `no notifications/progress for progressToken ${JSON.stringify(token)} once the server had read the cancellation of its call`,
      actual: `${lateProgress.length} notifications/progress for it arrived after the answer to the ping sent after the cancellation`,
      wire: [cancelFrame, ...(mark?.frames ?? []), ...lateProgress.slice(0, 4)].sort((a, b) => a.seq - b.seq),
      part: 'stop-processing',
    });
    if (!answered) {
      // Stop waiting (HTTP: close its stream); nothing came, as the rule asks.
      await s.cancel(id, 'mcp-conformance: no longer waiting').catch(() => false);
      await call;
      return;
    }
    judgeLateAnswer(t, answered, markFrame, cancelFrame, mark, slow.name);
  },
});

/** `p` settled, or `ms` passed (a give-up bound, not a verdict: nothing is judged from the time). */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([p, bound]);
  clearTimeout(timer);
}

/** The cancelled call was answered: judged only when the answer came after the ping sent after the cancellation. */
function judgeLateAnswer(
  t: Probe,
  answered: Exchange,
  markFrame: WireFrame | undefined,
  cancelFrame: WireFrame,
  mark: Exchange | undefined,
  slow: string,
): void {
  // The response is the exchange's last inbound frame (a progress notification on its stream may come before it).
  const response = answered.frames.filter((f) => f.dir === 'in').at(-1) as WireFrame | undefined;
  if (!markFrame || !response)
    return t.notObserved('the order of the cancelled response and the ping answer sent after the cancellation cannot be told');
  if (response.seq < markFrame.seq) {
    return t.notObserved(
      `the call was answered before the ping sent after the cancellation: the response may have crossed the cancellation (2025-11-25 "Timing Considerations"), so the slow tool (${slow}) was not slow enough to judge`,
    );
  }
  t.expect(false, {
    expected: `no response to tools/call ${JSON.stringify(answered.id)} after notifications/cancelled named it`,
    actual: `the server answered it (${describeAnswer(answered)}) after answering the ping sent after the cancellation`,
    wire: [...answered.frames, cancelFrame, ...(mark?.frames ?? [])].sort((a, b) => a.seq - b.seq),
  });
}

/** Send each notifications/cancelled, then the marker request: it is answered as `first` was, on the same connection, or a problem is named. */
async function stillServing(s: Session, marker: string, first: Exchange, cancels: JsonObject[], sent: WireFrame[]): Promise<string[]> {
  const problems: string[] = [];
  for (const params of cancels) {
    try {
      sent.push(await s.notify('notifications/cancelled', params));
    } catch (err) {
      problems.push(
        `sending notifications/cancelled ${JSON.stringify(params)} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  try {
    const after = await s.request(marker);
    sent.push(...after.frames);
    if (!!after.error !== !!first.error)
      problems.push(`the ${marker} after them was answered ${describeAnswer(after)}, before them ${describeAnswer(first)}`);
  } catch (err) {
    problems.push(`the ${marker} after them got no answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  return problems;
}

/** A request every server of the era answers: ping (legacy), server/discover (modern). */
const markerOf = (era: string) => (era === 'legacy' ? 'ping' : 'server/discover');

export const raceHandled = defineCheck({
  id: 'cancellation/race-handled',
  title: 'a notifications/cancelled that arrives after the response (the race) is handled: the connection goes on serving',
  level: 'MUST',
  // The race of "Timing Considerations": a cancellation for the request just answered. Gracefully, at the
  // least, is to go on serving the connection (Error Handling's "Already completed requests" SHOULD be
  // ignored is the same case; this MUST judges it). Stdio only, as cancellation/invalid-ignored.
  spec: { revision: 'draft', page: 'basic/patterns/cancellation', section: 'Timing Considerations' },
  quote: 'Both parties MUST handle these race conditions gracefully',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/utilities/cancellation', section: 'Timing Considerations' } },
  transports: ['stdio'],
  async run(t) {
    const s = await t.ctx.openSession();
    const marker = markerOf(t.ctx.era);
    const first = await s.request(marker);
    // A second answer before the cancellation: it names a request answered before the latest one, late beyond
    // doubt (a cancellation sent right after its request, as protocol/no-response-to-notification's, may cross too).
    const second = await s.request(marker);
    const sent: WireFrame[] = [...first.frames, ...second.frames];
    const problems = await stillServing(s, marker, first, [{ requestId: first.id, reason: 'mcp-conformance: crossed the response' }], sent);
    t.expect(problems.length === 0, {
      expected: `a cancellation that arrives after the response handled: the next ${marker} answered as the one before, on the same connection`,
      actual: problems.join('; '),
      wire: [...sent, ...s.frames().slice(-4)].filter((f, i, all) => all.indexOf(f) === i).sort((a, b) => a.seq - b.seq),
    });
  },
});

export const invalidIgnored = defineCheck({
  id: 'cancellation/invalid-ignored',
  title: 'an invalid notifications/cancelled (for an unknown request, or malformed) is ignored: the connection goes on serving',
  level: 'SHOULD',
  // The third case, a request already answered, is the race: cancellation/race-handled judges it at MUST.
  spec: { revision: 'draft', page: 'basic/patterns/cancellation', section: 'Error Handling' },
  quote: 'Invalid cancellation notifications SHOULD be ignored: Unknown request IDs … Malformed notifications',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/utilities/cancellation', section: 'Error Handling' } },
  // Modern Streamable HTTP carries no notifications/cancelled (closing the stream cancels); stdio has them in both eras.
  transports: ['stdio'],
  async run(t) {
    // Only the cases a client meets by itself: an id the server does not know, and a malformed one.
    const s = await t.ctx.openSession();
    const marker = markerOf(t.ctx.era);
    const first = await s.request(marker);
    const sent: WireFrame[] = [...first.frames];
    const problems = await stillServing(
      s,
      marker,
      first,
      [
        { requestId: `mcp-conformance-never-sent-${s.nextId()}`, reason: 'mcp-conformance: unknown id' },
        { reason: 'mcp-conformance: no requestId' },
      ],
      sent,
    );
    t.expect(problems.length === 0, {
      expected: `the invalid cancellations ignored: the next ${marker} answered as the one before, on the same connection`,
      actual: problems.join('; '),
      wire: [...sent, ...s.frames().slice(-4)].filter((f, i, all) => all.indexOf(f) === i).sort((a, b) => a.seq - b.seq),
    });
  },
});

export const serverCancelsOwnInFlight = defineCheck({
  id: 'cancellation/server-cancels-own-in-flight',
  title: 'every notifications/cancelled the server sends names a request it sent and had no answer to yet (legacy era)',
  level: 'MUST',
  // An observer of the whole run. The suite answers every server request at once, so a cancellation
  // may cross the answer on the wire ("Timing Considerations"): it is judged out of progress only when
  // the server had demonstrably read the answer (stdio: it had answered a request the suite sent after
  // the answer; on HTTP the order of separate POSTs proves nothing, so only the direction is judged).
  spec: { revision: '2025-11-25', page: 'basic/utilities/cancellation', section: 'Behavior Requirements' },
  quote:
    'Cancellation notifications MUST only reference requests that: Were previously issued in the same direction Are believed to still be in-progress',
  observer: true,
  async run(t) {
    const seen = serverCancellations(t);
    t.note('server-sent cancellations', seen.length);
    if (seen.length === 0)
      return t.notObserved(
        'the server sent no notifications/cancelled in this run: nothing to judge (it may cancel only requests it sent itself)',
      );
    // The first few are shown; the count is in the note.
    for (const c of seen.filter((c) => !c.listen && !(c.serverRequest && !c.serverRequest.answerRead)).slice(0, 5)) {
      const sent = c.serverRequest;
      if (!sent) {
        t.expect(false, {
          expected: 'notifications/cancelled naming a request the server sent on this connection',
          actual: `requestId ${JSON.stringify(c.requestId)} names no request the server sent on this connection${c.clientRequest ? ` (it is the id of a request the client sent)` : ''}`,
          wire: [c.frame],
        });
      } else if (sent.answerRead) {
        t.expect(false, {
          expected: `no cancellation of ${sent.method} ${JSON.stringify(c.requestId)} once the server had read the client's answer to it`,
          actual: 'the server cancelled it after answering a request the client sent after that answer',
          wire: [sent.frame, ...(sent.answer ? [sent.answer] : []), c.frame],
        });
      }
    }
  },
});

export const legacyCancellationChecks = [cancelledNotAnswered, raceHandled, invalidIgnored, serverCancelsOwnInFlight];

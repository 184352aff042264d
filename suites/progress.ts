/**
 * Progress notifications (draft basic/patterns/progress; 2025-11-25
 * basic/utilities/progress): the suite puts a progressToken on a call that
 * takes a while (the configuration's slowTool) and judges every
 * notifications/progress of the connection: the value increases, the token
 * is that of a request still in progress, and nothing comes after the
 * response.
 */
import type { Exchange } from '../harness/session.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { defineCheck, describeAnswer, show } from './check.js';
import { whyNotCallableAsWritten } from './safety.js';
import { TASK_PROGRESS_PREFIX } from './tasks.js';

const PAGE = { revision: 'draft', page: 'basic/patterns/progress' } as const;
const LEGACY_PAGE = { revision: '2025-11-25', page: 'basic/utilities/progress' } as const;

let tokens = 0;

/** The frame's text is a JSON-RPC response. */
function isResponse(text: string): boolean {
  try {
    const m = JSON.parse(text) as JsonObject;
    return typeof m === 'object' && m !== null && !('method' in m) && ('result' in m || 'error' in m);
  } catch {
    return false;
  }
}

export const progressNotifications = defineCheck({
  id: 'progress/notifications',
  unlockedBy: ['slowTool'],
  title: "progress values increase, name an active request's token, and stop at completion",
  level: 'MUST',
  capability: 'tools',
  spec: { ...PAGE, section: 'Progress Flow' },
  quote: 'The progress value MUST increase with each notification, even if the total is unknown.',
  legacy: { spec: { ...LEGACY_PAGE, section: 'Progress Flow' } },
  parts: {
    active: {
      level: 'MUST',
      spec: { ...PAGE, section: 'Behavior Requirements' },
      quote:
        'Progress notifications MUST only reference tokens that: Were provided in an active request Are associated with an in-progress operation',
      legacy: { spec: { ...LEGACY_PAGE, section: 'Behavior Requirements' } },
    },
    afterCompletion: {
      level: 'MUST',
      spec: { ...PAGE, section: 'Implementation Notes' },
      quote: 'Progress notifications MUST stop after completion',
      legacy: { spec: { ...LEGACY_PAGE, section: 'Implementation Notes' } },
    },
  },
  async run(t) {
    const slow = t.ctx.config.slowTool;
    if (!slow) {
      return t.notObserved(
        'no slowTool in the configuration file: the suite knows no call that takes long enough to report progress on; name one (slowTool) to have progress judged',
      );
    }
    const excluded = whyNotCallableAsWritten(t.ctx, slow.name);
    if (excluded) return t.notObserved(`slowTool ${JSON.stringify(slow.name)} ${excluded}`);
    const s = t.session;
    const token = `mcpc-progress-${++tokens}`;
    const seen: Array<{ msg: JsonObject; frame: WireFrame }> = [];
    const off = s.onMessage((msg, frame) => {
      if (msg.method === 'notifications/progress') seen.push({ msg, frame });
    });
    let call: Exchange;
    try {
      call = await s.request('tools/call', { name: slow.name, arguments: slow.arguments ?? {}, _meta: { progressToken: token } });
      // Whatever the server still sends for the call arrives before its answer to the next request (stdio),
      // and on HTTP only the call's own stream, now ended, could carry it.
      await s.request(t.ctx.era === 'legacy' ? 'ping' : 'server/discover');
    } catch (err) {
      return t.notObserved(
        `tools/call ${slow.name} with a progressToken got no answer: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      off();
    }
    t.note('call', describeAnswer(call));
    t.note('progress notifications', seen.length);
    const requestFrame = call.frames[0]!;
    const responseFrame = call.frames.find((f) => f.dir === 'in' && isResponse(f.text));
    const responseSeq = responseFrame?.seq ?? Number.POSITIVE_INFINITY;
    let last: number | undefined;
    let lastFrame: WireFrame | undefined;
    for (const { msg, frame } of seen) {
      const params = (msg.params ?? {}) as JsonObject;
      const named = params.progressToken;
      // The task drive's own token (a task's progress outlives its CreateTaskResult): tasks/progress-stops' to judge.
      if (typeof named === 'string' && named.startsWith(TASK_PROGRESS_PREFIX)) continue;
      if (named !== token) {
        t.expect(false, {
          expected: `notifications/progress only with the token of a request in progress (${show(token)} was the only one sent)`,
          actual: `progressToken ${show(named)}`,
          wire: [requestFrame, frame],
          part: 'active',
        });
        continue;
      }
      if (frame.connection === requestFrame.connection && frame.seq > responseSeq) {
        t.expect(false, {
          expected: `no notifications/progress for ${show(token)} after the call was answered`,
          actual: `progress ${show(params.progress)} came after the response`,
          wire: [requestFrame, ...(responseFrame ? [responseFrame] : []), frame],
          part: 'afterCompletion',
        });
        continue;
      }
      const value = params.progress;
      if (typeof value === 'number' && last !== undefined) {
        t.expect(value > last, {
          expected: 'each progress value greater than the one before',
          actual: `progress ${show(value)} after ${show(last)}`,
          wire: [requestFrame, ...(lastFrame ? [lastFrame] : []), frame],
        });
      }
      if (typeof value === 'number') {
        last = value;
        lastFrame = frame;
      }
    }
    if (t.findings.length === 0 && seen.length === 0) {
      t.notObserved(`the server sent no notifications/progress for tools/call ${slow.name} with a progressToken (it MAY send none)`);
    }
  },
});

export const progressChecks = [progressNotifications];

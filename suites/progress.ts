/**
 * Progress notifications (draft basic/patterns/progress; 2025-11-25
 * basic/utilities/progress): every tools/call the suite makes carries a
 * progressToken, and the suite puts one on a call that takes a while (the
 * configuration's slowTool, or one it found: suites/triggers.ts). Every
 * notifications/progress of every connection of the run is judged, whichever
 * check caused it: the value increases per token, the token is that of a
 * request the suite sent, and nothing comes after the response (on stdio, or
 * on the request's own HTTP stream). What comes after the suite cancelled a
 * request is the cancellation checks' to judge; a task's progress,
 * tasks/progress-stops'.
 */
import type { Session } from '../harness/session.js';
import type { SlowToolSpec } from '../model/config.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { defineCheck, describeAnswer, frameKey, frameMessage, show, type Probe } from './check.js';
import { TASK_PROGRESS_PREFIX } from './tasks.js';
import { runSubscriptions } from './subscription-observers.js';
import { finishedSlowCall, slowCall } from './triggers.js';

const PAGE = { revision: 'draft', page: 'basic/patterns/progress' } as const;
const LEGACY_PAGE = { revision: '2025-11-25', page: 'basic/utilities/progress' } as const;

let tokens = 0;

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
    // The slow call (configured, or found among the generated calls: suites/triggers.ts) makes sure the run holds
    // a call that reports progress; then every notifications/progress of the run is judged, whichever check caused it.
    const slow = await slowCall(t.ctx, 'progress/notifications');
    if (slow.call) await ownCall(t, slow.call);
    const judged = judgeRunProgress(t);
    t.note('progress notifications judged (the whole run)', judged);
    if (t.findings.length === 0 && judged === 0) {
      const carried = t.ctx.allSessions().reduce((n, s) => n + tokensSent(s), 0);
      t.notObserved(
        slow.call
          ? `the server sent no notifications/progress in the run (${carried} request(s) carried a progressToken, tools/call ${slow.call.name} among them; it MAY send none)`
          : `the server sent no notifications/progress in the run (${carried} request(s) carried a progressToken; it MAY send none); ${slow.reason}`,
      );
    }
  },
});

/** The check's own slow call, with a progressToken, followed by a request that marks what the server sent for it. */
async function ownCall(t: Probe, slow: SlowToolSpec): Promise<void> {
  const s = t.session;
  const token = `mcpc-progress-${++tokens}`;
  try {
    const call = await finishedSlowCall(s, slow, { token, timeoutMs: t.ctx.settings.requestTimeoutMs * 2 });
    t.note('call', describeAnswer(call));
    // Whatever the server still sends for the call arrives before its answer to the next request (stdio),
    // and on HTTP only the call's own stream, now ended, could carry it.
    await s.request(t.ctx.era === 'legacy' ? 'ping' : 'server/discover');
  } catch (err) {
    t.note(`tools/call ${slow.name} with a progressToken`, `no answer: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A request that carried a progressToken, as the wire shows it. */
interface Tokened {
  frame: WireFrame;
  id: unknown;
  response?: WireFrame;
  cancelled?: WireFrame;
  last?: { value: number; frame: WireFrame };
}

const tokenKey = (token: unknown) => `${typeof token}:${String(token)}`;
const idOf = (id: unknown) => `${typeof id}:${String(id)}`;

function tokensSent(s: Session): number {
  return s.frames().filter((f) => f.dir === 'out' && progressTokenOf(frameMessage(f)) !== undefined).length;
}

function progressTokenOf(m: JsonObject | undefined): unknown {
  if (!m || typeof m.method !== 'string' || m.id === undefined) return undefined;
  return ((m.params as JsonObject | undefined)?._meta as JsonObject | undefined)?.progressToken;
}

/** Judge every notifications/progress of every connection of the run; returns how many were judged. */
function judgeRunProgress(t: Probe): number {
  // Progress on a subscription's stream is subscriptions/no-request-scoped's finding (a request-scoped
  // notification where none may go): one cause, one finding.
  const onSubscription = new Set(runSubscriptions(t.ctx).flatMap((sub) => sub.messages.map((m) => frameKey(m.frame))));
  let judged = 0;
  for (const s of t.ctx.allSessions()) judged += judgeConnection(t, s.frames(), onSubscription);
  return judged;
}

/** One connection's progress: a known token of a request in progress, not after its answer, increasing. */
function judgeConnection(t: Probe, frames: WireFrame[], onSubscription: ReadonlySet<string>): number {
  const byToken = new Map<string, Tokened>();
  const byId = new Map<string, Tokened>();
  // A log that dropped its oldest frames, or cut a request short, may hide a token: unknown tokens are then not judged.
  let complete = (frames[0]?.seq ?? 1) === 1;
  let judged = 0;
  for (const f of frames) {
    const m = frameMessage(f);
    if (!m) {
      if (f.dir === 'out') complete = false;
      continue;
    }
    if (f.dir === 'out') {
      noteOutbound(m, f, byToken, byId);
      continue;
    }
    if (m.method === undefined && (m.result !== undefined || m.error !== undefined)) {
      const r = byId.get(idOf(m.id));
      if (r && !r.response) r.response = f;
      continue;
    }
    if (m.method !== 'notifications/progress' || 'id' in m || t.ctx.framesJudged.has(frameKey(f)) || onSubscription.has(frameKey(f)))
      continue;
    const params = (m.params ?? {}) as JsonObject;
    const named = params.progressToken;
    // The task drive's own token (a task's progress outlives its CreateTaskResult): tasks/progress-stops' to judge.
    if (typeof named === 'string' && named.startsWith(TASK_PROGRESS_PREFIX)) continue;
    const r = byToken.get(tokenKey(named));
    if (!r) {
      if (!complete) continue;
      judged++;
      t.expect(false, {
        expected: 'notifications/progress only with the progressToken of a request in progress',
        actual: `progressToken ${show(named)}, which no request on this connection carried`,
        wire: [f],
        part: 'active',
      });
      continue;
    }
    // After the suite cancelled the request (or gave up on it), what comes is the cancellation checks' to judge.
    if (r.cancelled) continue;
    judged++;
    judgeOne(t, r, params, f);
  }
  return judged;
}

function noteOutbound(m: JsonObject, f: WireFrame, byToken: Map<string, Tokened>, byId: Map<string, Tokened>): void {
  if (m.method === 'notifications/cancelled') {
    const r = byId.get(idOf((m.params as JsonObject | undefined)?.requestId));
    if (r && !r.cancelled) r.cancelled = f;
    return;
  }
  const token = progressTokenOf(m);
  if (token === undefined) return;
  const r: Tokened = { frame: f, id: m.id };
  byToken.set(tokenKey(token), r);
  byId.set(idOf(m.id), r);
}

/** Same stream (HTTP) or the one ordered channel (stdio): only then does arriving after the answer mean sent after it. */
function afterAnswer(r: Tokened, f: WireFrame): boolean {
  if (!r.response || f.seq < r.response.seq) return false;
  return !f.http || f.http.requestId === r.response.http?.requestId;
}

function judgeOne(t: Probe, r: Tokened, params: JsonObject, f: WireFrame): void {
  if (afterAnswer(r, f)) {
    t.expect(false, {
      expected: `no notifications/progress for ${show(params.progressToken)} after the request was answered`,
      actual: `progress ${show(params.progress)} came after the response`,
      wire: [r.frame, r.response!, f],
      part: 'afterCompletion',
    });
    return;
  }
  const value = params.progress;
  if (typeof value !== 'number') return;
  if (r.last) {
    t.expect(value > r.last.value, {
      expected: 'each progress value greater than the one before',
      actual: `progress ${show(value)} after ${show(r.last.value)}`,
      wire: [r.frame, r.last.frame, f],
    });
  }
  r.last = { value, frame: f };
}

export const progressChecks = [progressNotifications];

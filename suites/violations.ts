/**
 * Judging what the session's wire-wide violation log recorded (harness/session.ts):
 * the transport and protocol checks that need no request of their own.
 */
import type { Violation, ViolationKind } from '../harness/session.js';
import { frameKey, type Probe } from './check.js';

/** Findings shown per check; every violation is counted. */
export const SHOWN = 5;

/**
 * One finding per kept violation of `kinds` (the first few), across every
 * connection of the run; the first finding says how many there were in all.
 */
export function judgeViolations(
  t: Probe,
  kinds: ViolationKind[],
  expected: string,
  noun = 'message',
  part?: string,
  /** Frames (`frameKey`) this check judged under another rule of its own: left aside here only. */
  setAside?: ReadonlySet<string>,
): void {
  const sessions = t.ctx.allSessions();
  // A frame another check already judged as its own finding is that check's.
  const elsewhere = (v: Violation) => !!v.frame && (t.ctx.framesJudged.has(frameKey(v.frame)) || !!setAside?.has(frameKey(v.frame)));
  const all = sessions.flatMap((s) => s.violations.filter((v) => kinds.includes(v.kind)));
  const kept = all.filter((v) => !elsewhere(v));
  const count = sessions.reduce((n, s) => n + s.countOf(...kinds), 0) - (all.length - kept.length);
  t.note('violations', count);
  if (count === 0) return;
  const shown = kept.slice(0, SHOWN);
  const total =
    count > 1
      ? ` (${count.toLocaleString('en-US')} such ${noun}s in the run${count > shown.length ? `; the first ${shown.length} shown` : ''})`
      : '';
  shown.forEach((v, i) => {
    t.expect(false, {
      expected,
      actual: i === 0 ? `${v.detail}${total}` : v.detail,
      wire: v.frame ? [v.frame] : [],
      ...(part ? { part } : {}),
    });
  });
}

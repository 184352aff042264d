/**
 * The violation log of one connection: what broke a rule no single request
 * owns (see `ViolationKind` in session.ts). Every violation is counted; the
 * first MAX_VIOLATIONS of each kind are kept, with a short excerpt of the
 * offending frame, so a flood of one kind hides no other.
 */
import type { Redactor } from './redact.js';
import type { Exchange, Violation, ViolationKind } from './session.js';
import type { WireFrame } from '../model/wire.js';

/** Most violations of one kind kept per connection (all are counted). */
export const MAX_VIOLATIONS = 200;
/** Characters of frame text a violation keeps as evidence. */
const VIOLATION_FRAME_CHARS = 2048;

export class ViolationLog {
  /** The first violations (at most MAX_VIOLATIONS of each kind). */
  readonly violations: Violation[] = [];
  /** How many violations of each kind were seen, kept or not. */
  readonly counts: Partial<Record<ViolationKind, number>> = {};
  /** Exchanges whose response failed schema validation (at most MAX_VIOLATIONS). */
  readonly invalidExchanges: Exchange[] = [];
  private readonly listeners = new Set<(v: Violation) => void>();

  constructor(private readonly redactor: Redactor) {}

  add(kind: ViolationKind, detail: string, frame?: WireFrame): void {
    const count = (this.counts[kind] ?? 0) + 1;
    this.counts[kind] = count;
    const v: Violation = { kind, detail: this.redactor.redact(detail), ...(frame ? { frame: excerpt(frame) } : {}) };
    if (count <= MAX_VIOLATIONS) this.violations.push(v);
    for (const l of [...this.listeners]) l(v);
  }

  /**
   * Take back the violations of `kinds` recorded for these frames (by seq), when
   * a later frame showed what they were (stdio: lines of one message split over
   * lines); returns how many were taken back.
   */
  retract(kinds: ViolationKind[], seqs: Set<number>): number {
    let taken = 0;
    for (let i = this.violations.length - 1; i >= 0; i--) {
      const v = this.violations[i]!;
      if (!kinds.includes(v.kind) || !v.frame || !seqs.has(v.frame.seq)) continue;
      this.violations.splice(i, 1);
      this.counts[v.kind] = (this.counts[v.kind] ?? 1) - 1;
      taken++;
    }
    return taken;
  }

  /** Keep an exchange whose response failed the schema (bounded). */
  addInvalid(ex: Exchange): void {
    if (this.invalidExchanges.length < MAX_VIOLATIONS) this.invalidExchanges.push(ex);
  }

  /** How many violations of these kinds were seen (kept or not). */
  countOf(...kinds: ViolationKind[]): number {
    return kinds.reduce((n, k) => n + (this.counts[k] ?? 0), 0);
  }

  /** Register a listener for every violation as it is recorded; returns the unsubscribe. */
  onViolation(listener: (v: Violation) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A copy of a frame with its text cut to a short excerpt (violations keep many frames). */
function excerpt(frame: WireFrame): WireFrame {
  if (frame.text.length <= VIOLATION_FRAME_CHARS) return frame;
  return { ...frame, text: frame.text.slice(0, VIOLATION_FRAME_CHARS), truncated: true };
}

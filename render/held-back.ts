/**
 * The one summary line about what the safety policy held back: which tools
 * the suite did not call (not annotated readOnlyHint: true, not named by the
 * user), and what lets it call them. The JSON report carries the same as
 * `heldBack`.
 */
import type { RunResult } from '../model/results.js';

const SHOWN = 3;

/** `Held back: 3 tools not annotated readOnlyHint (a, b, c): …`; undefined when nothing was held back. */
export function heldBackLine(run: Pick<RunResult, 'heldBack'>): string | undefined {
  const h = run.heldBack;
  if (!h || h.tools.length === 0) return undefined;
  const n = h.tools.length;
  const names = h.tools.slice(0, SHOWN).join(', ') + (n > SHOWN ? ', …' : '');
  const results = `${h.results} result${h.results === 1 ? '' : 's'} not observed`;
  return `Held back: ${n} tool${n === 1 ? '' : 's'} not annotated readOnlyHint (${names}), ${results}: ${h.remedy}`;
}

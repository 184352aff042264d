/**
 * The waits a run sat out to their deadline: a silence only time could show
 * (a request with no answer, a notification that never came, a server that
 * did not exit). The bench (`npm run bench`) sets MCP_CONFORMANCE_WAIT_LOG to a
 * file and sums them; without it nothing is recorded.
 */
import { appendFileSync } from 'node:fs';

const LOG = process.env.MCP_CONFORMANCE_WAIT_LOG;

/** A deadline of `ms` passed on `what` with nothing having settled the wait. */
export function waitedOut(what: string, ms: number): void {
  if (!LOG || !Number.isFinite(ms) || ms <= 0) return;
  try {
    appendFileSync(LOG, `${JSON.stringify({ what, ms: Math.round(ms) })}\n`);
  } catch {
    // The account is the bench's; a run never fails for it.
  }
}

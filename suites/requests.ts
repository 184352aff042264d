/**
 * Requests sent with a deliberately wrong or missing piece of the stateless
 * contract, shared by the meta, versioning and statelessness checks.
 */
import { TransportError } from '../harness/errors.js';
import type { Exchange, RequestOptions, Session } from '../harness/session.js';
import type { JsonObject } from '../model/json.js';
import { show, type Probe } from './check.js';

/** Send a request; a transport-level answer without JSON-RPC comes back as text instead of an exchange. */
export async function attempt(session: Session, method: string, params: JsonObject, opts: RequestOptions): Promise<Exchange | string> {
  try {
    return await session.request(method, params, opts);
  } catch (err) {
    if (err instanceof TransportError) return err.message;
    throw err;
  }
}

/** Methods every probe here is sent with: server/discover, and tools/list when tools are declared. */
export function probeMethods(t: Probe): string[] {
  return ['server/discover', ...(t.ctx.discovery().capabilities?.tools !== undefined ? ['tools/list'] : [])];
}

/** On HTTP, a rejected request must come back with 400 Bad Request. */
export function expectBadRequest(t: Probe, ex: Exchange, part?: string): void {
  if (t.ctx.transport !== 'http') return;
  t.expect(ex.http?.status === 400, {
    expected: 'HTTP status 400 Bad Request',
    actual: `HTTP status ${show(ex.http?.status)}`,
    wire: ex,
    ...(part ? { part } : {}),
  });
}

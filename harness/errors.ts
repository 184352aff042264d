import type { WireFrame } from '../model/wire.js';
/**
 * Errors the harness raises while talking to a server. Checks and the engine
 * turn them into verdicts; every message says what happened on the wire.
 */

export class HarnessError extends Error {
  override name = 'HarnessError';
  /** The frames of the request that went unanswered (its wire evidence), when known. */
  frames?: WireFrame[];
}

/** The server did not answer a request within the per-request timeout. */
export class RequestTimeoutError extends HarnessError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`no answer within ${formatSeconds(timeoutMs)} to ${method}`);
  }
}

/** The connection ended (process exited, stream closed) while a request was in flight. */
export class ConnectionClosedError extends HarnessError {
  override name = 'ConnectionClosedError';
  constructor(
    readonly method: string,
    readonly reason: string,
  ) {
    super(`connection closed before ${method} was answered: ${reason}`);
  }
}

/** The transport answered, but not with a JSON-RPC response (HTTP error page, refused connection). */
export class TransportError extends HarnessError {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

/** The request was abandoned by the suite (cancellation, run deadline, interrupt). */
export class AbortedError extends HarnessError {
  override name = 'AbortedError';
}

export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

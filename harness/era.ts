/**
 * Protocol eras (basic/versioning "Terminology"): modern revisions carry the
 * protocol version, client identity and capabilities on every request
 * (2026-07-28 and later); legacy revisions open a session with an
 * `initialize` handshake (2025-11-25 and earlier).
 *
 * An `EraProfile` is what the one `Session` consults for everything that
 * differs between the eras: the `_meta` a request carries, the schema every
 * inbound message is validated against, the HTTP version header, and whether
 * a server-initiated request is answered (legacy) or is a violation (modern).
 *
 * The era itself is detected the way basic/versioning "Backward Compatibility
 * with Initialization-Based Versions" tells a dual-era client to (see
 * `probeEra`).
 */
import { RequestTimeoutError, TransportError } from './errors.js';
import { buildMeta, wireVersion, type MetaOptions } from './protocol.js';
import type { ProtocolSchema } from './schema.js';
import type { Exchange, RpcError, Session } from './session.js';
import type { JsonObject } from '../model/json.js';
import type { Era } from '../model/wire.js';

export type { Era };

/** The legacy revision this suite speaks (and bundles the schema of). */
export const LEGACY_REVISION = '2025-11-25';
/** The newest released modern revision. */
export const MODERN_REVISION = '2026-07-28';

/** The era a revision belongs to. */
export function eraOf(revision: string): Era {
  return revision === LEGACY_REVISION ? 'legacy' : 'modern';
}

/** A client's answer to a server-initiated request (legacy era only). */
export type ServerRequestAnswer = { result: JsonObject } | { error: { code: number; message: string } };

export interface EraProfile {
  readonly era: Era;
  /** The protocol version on the wire: declared per request (modern) or negotiated (legacy). */
  readonly version: string;
  /** The schema every inbound message is validated against. */
  readonly schema: ProtocolSchema;
  /** The `_meta` protocol fields of one request or notification; undefined: none (legacy). */
  meta(opts?: MetaOptions): Record<string, unknown> | undefined;
  /** `MCP-Protocol-Version` for HTTP requests whose body names no version (legacy: the negotiated one). */
  readonly headerVersion?: string;
  /**
   * Answers a server-initiated request. Absent in the modern era, where a
   * server MUST NOT send requests: the session then records a violation.
   */
  answer?(method: string, params: JsonObject | undefined): ServerRequestAnswer;
}

/** Modern: every request carries `_meta` with the version, clientInfo and clientCapabilities. */
export function modernProfile(revision: string, schema: ProtocolSchema): EraProfile {
  const version = wireVersion(revision);
  return { era: 'modern', version, schema, meta: (opts) => buildMeta(version, opts) };
}

/**
 * Legacy: no per-request protocol fields; `negotiated` is known once the
 * server has answered `initialize` (the header is sent on every request after it).
 */
export function legacyProfile(schema: ProtocolSchema, answer: NonNullable<EraProfile['answer']>, negotiated?: string): EraProfile {
  return {
    era: 'legacy',
    version: negotiated ?? LEGACY_REVISION,
    schema,
    meta: () => undefined,
    ...(negotiated ? { headerVersion: negotiated } : {}),
    answer,
  };
}

/** What the probe saw, and the era it points to. */
export interface EraProbe {
  /** `undefined`: the probe could not reach the server at all (no era can be told). */
  era?: Era;
  /** The server/discover exchange, when a response (result or error) arrived. */
  exchange?: Exchange;
  /** The probe timed out. */
  timedOut?: boolean;
  /** The recognized modern error the probe was answered with. */
  modernError?: string;
  /** One line: what the server did and what it means. */
  evidence: string;
  /** The error that ended the probe without a response. */
  cause?: Error;
}

/**
 * The modern errors a client recognizes (basic/versioning "Backward
 * Compatibility"): a response that is valid against one of these schema
 * definitions identifies a modern server.
 */
const MODERN_ERROR_DEFS = ['UnsupportedProtocolVersionError', 'MissingRequiredClientCapabilityError', 'HeaderMismatchError'];

/** The name of the recognized modern error `response` is, if any (validated against `modern`). */
export function recognizedModernError(response: JsonObject | undefined, modern: ProtocolSchema): string | undefined {
  if (!response || !('error' in response)) return undefined;
  return MODERN_ERROR_DEFS.find((def) => modern.has(def) && modern.validate(def, response).length === 0);
}

/**
 * Probe the server's era with `server/discover` (basic/transports/stdio and
 * streamable-http "Backward Compatibility"):
 * - a result, or a recognized modern error: modern (never fall back);
 * - any other JSON-RPC error, an HTTP 4xx answer without a recognized modern
 *   error body, or no answer within `timeoutMs`: legacy;
 * - the connection failing outright (refused, process exited): no era.
 * The fallback is never keyed to one error code.
 */
export async function probeEra(session: Session, modern: ProtocolSchema, timeoutMs: number): Promise<EraProbe> {
  let exchange: Exchange;
  try {
    exchange = await session.request('server/discover', {}, { timeoutMs });
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      return { era: 'legacy', timedOut: true, cause: err, evidence: `server/discover was not answered within ${seconds(timeoutMs)}` };
    }
    if (err instanceof TransportError && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500) {
      return { era: 'legacy', cause: err, evidence: `server/discover got ${err.message}` };
    }
    const cause = err instanceof Error ? err : new Error(String(err));
    return { cause, evidence: cause.message };
  }
  if (!exchange.error) {
    return { era: 'modern', exchange, evidence: 'server/discover answered with a result' };
  }
  const status = exchange.http ? ` (HTTP ${exchange.http.status})` : '';
  const modernError = recognizedModernError(exchange.response, modern);
  if (modernError) {
    return {
      era: 'modern',
      exchange,
      modernError,
      evidence: `server/discover answered ${describeError(exchange.error)}${status}, a recognized modern error (${modernError})`,
    };
  }
  return {
    era: 'legacy',
    exchange,
    evidence: `server/discover answered ${describeError(exchange.error)}${status}, not a recognized modern error`,
  };
}

export function describeError(error: RpcError | undefined): string {
  if (!error) return 'no error';
  return `JSON-RPC error ${JSON.stringify(error.code)} ${JSON.stringify(error.message)}`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

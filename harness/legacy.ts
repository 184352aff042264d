/**
 * The legacy (2025-11-25) session: the `initialize` → `notifications/initialized`
 * handshake of 2025-11-25/basic/lifecycle, the negotiated version, and the
 * client side of server-initiated requests (ping, roots, sampling,
 * elicitation), which a legacy server may send during a call or on the
 * standalone HTTP GET stream.
 */
import { CLIENT_INFO } from './protocol.js';
import { legacyProfile, LEGACY_REVISION, type EraProfile, type ServerRequestAnswer } from './era.js';
import type { ProtocolSchema } from './schema.js';
import type { Exchange, Session } from './session.js';
import { isObject, type JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { ERROR_CODES } from '../model/error-codes.js';

/** What the suite declares in `initialize`: it can answer every server-initiated request. */
export const LEGACY_CLIENT_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {}, url: {} },
} as const;

/** The roots the suite offers (none: it exposes no filesystem). */
export const CLIENT_ROOTS: JsonObject[] = [];

/** The text of the suite's canned sampling answer. */
export const SAMPLING_TEXT = 'mcp-conformance: canned sampling answer';

/**
 * The client's answers to server-initiated requests: ping, roots/list,
 * sampling/createMessage (a canned assistant message), elicitation/create
 * (declined: no user is present). Anything else is an unknown method.
 */
export function answerServerRequest(method: string, _params: JsonObject | undefined): ServerRequestAnswer {
  switch (method) {
    case 'ping':
      return { result: {} };
    case 'roots/list':
      return { result: { roots: CLIENT_ROOTS } };
    case 'sampling/createMessage':
      return {
        result: {
          role: 'assistant',
          content: { type: 'text', text: SAMPLING_TEXT },
          model: 'mcp-conformance',
          stopReason: 'endTurn',
        },
      };
    case 'elicitation/create':
      return { result: { action: 'decline' } };
    default:
      return { error: { code: ERROR_CODES.METHOD_NOT_FOUND, message: `Method not found: ${method}` } };
  }
}

/** The legacy profile before (no `negotiated`) and after the handshake. */
export function legacyClientProfile(schema: ProtocolSchema, negotiated?: string): EraProfile {
  return legacyProfile(schema, answerServerRequest, negotiated);
}

/** `initialize` params: the suite's client capabilities, unless a probe declares others (`{}`: none). */
export function initializeParams(
  protocolVersion: string = LEGACY_REVISION,
  capabilities: JsonObject = { ...LEGACY_CLIENT_CAPABILITIES },
): JsonObject {
  return { protocolVersion, capabilities, clientInfo: { ...CLIENT_INFO } };
}

/** A server-initiated request seen on the connection. */
export interface SeenServerRequest {
  method: string;
  frame: WireFrame;
  /** It arrived before the suite sent `notifications/initialized`. */
  beforeInitialized: boolean;
}

export interface Handshake {
  initialize: Exchange;
  /** The version the server answered with (when it answered with a result). */
  negotiated?: string;
  /** The `notifications/initialized` frame the suite sent. */
  initialized?: WireFrame;
  /** Server-initiated requests seen while the handshake ran. */
  serverRequests: SeenServerRequest[];
  /** Why the handshake failed (the session is then not usable as a legacy session). */
  problem?: string;
}

export interface HandshakeOptions {
  /** The version to request (default 2025-11-25). */
  protocolVersion?: string;
  /** Stop after the initialize response: send no `notifications/initialized` (for probes). */
  skipInitialized?: boolean;
  /** Per-request timeout of `initialize`. */
  timeoutMs?: number;
  /** The client capabilities to declare (default: all the suite can answer). */
  capabilities?: JsonObject;
}

/**
 * Run the handshake on `session` (whose profile must be legacy): `initialize`,
 * record the negotiated version into the session, `notifications/initialized`,
 * then on HTTP open the standalone GET stream for server-initiated messages.
 * Resolves with what happened; rejects only when no response can come
 * (timeout, connection gone), like `Session.request`.
 */
export async function legacyHandshake(session: Session, schema: ProtocolSchema, opts: HandshakeOptions = {}): Promise<Handshake> {
  const serverRequests: SeenServerRequest[] = [];
  let initializedSent = false;
  const off = session.onMessage((msg, frame) => {
    if (typeof msg.method === 'string' && 'id' in msg) {
      serverRequests.push({ method: msg.method, frame, beforeInitialized: !initializedSent });
    }
  });
  try {
    const params = initializeParams(opts.protocolVersion, opts.capabilities);
    session.declaredCapabilities = params.capabilities as JsonObject;
    const initialize = await session.request('initialize', params, { timeoutMs: opts.timeoutMs });
    const hs: Handshake = { initialize, serverRequests };
    if (initialize.error) {
      hs.problem = `initialize answered with JSON-RPC error ${JSON.stringify(initialize.error.code)} ${JSON.stringify(initialize.error.message)}`;
      return hs;
    }
    const version = initialize.result?.protocolVersion;
    if (typeof version !== 'string' || version === '') {
      hs.problem = `initialize result carries no protocolVersion string (${JSON.stringify(version)})`;
      return hs;
    }
    hs.negotiated = version;
    session.useProfile(legacyClientProfile(schema, version));
    if (opts.skipInitialized) return hs;
    initializedSent = true;
    hs.initialized = await session.notify('notifications/initialized');
    await session.openGetStream();
    return hs;
  } finally {
    off();
  }
}

/** `InitializeResult.capabilities`, when it is an object. */
export function initializeCapabilities(hs: Handshake): JsonObject | undefined {
  const caps = hs.initialize.result?.capabilities;
  return isObject(caps) ? caps : undefined;
}

/**
 * Era negotiation, in one place: how a run settles the protocol era on its
 * first connection (the server/discover probe, the fallback, the legacy
 * handshake), and what it learns there (basic/versioning "Backward
 * Compatibility with Initialization-Based Versions"). The engine makes one
 * call, `openEra`; the pieces it uses are harness/era.ts (the probe and the
 * era profiles) and harness/legacy.ts (the initialize handshake).
 *
 * - `auto` (the default): probe with server/discover. A result or a
 *   recognized modern error: modern. Any other error, an HTTP 4xx without a
 *   recognized modern error body, or no answer within the probe timeout:
 *   fall back to the initialize handshake (legacy).
 * - `modern` (`--spec 2026-07-28` / `draft`): modern only. A server that
 *   turns out to speak only the legacy era ends the run with one line
 *   naming the flag to use, instead of failing every check.
 * - `legacy` (`--spec 2025-11-25`): the initialize handshake straight away;
 *   a modern-only server is named as such.
 */
import { TransportError } from './errors.js';
import { describeError, LEGACY_REVISION, MODERN_REVISION, modernProfile, probeEra, recognizedModernError, type EraProbe } from './era.js';
import { initializeCapabilities, legacyClientProfile, legacyHandshake, type Handshake } from './legacy.js';
import { RequestTimeoutError } from './errors.js';
import type { ProtocolSchema } from './schema.js';
import { listeningUrl, silentServer, urlHint } from './silence.js';
import type { Exchange, Session } from './session.js';
import type { Target } from './target.js';
import { isObject, type JsonObject } from '../model/json.js';
import type { Era, EraInfo } from '../model/wire.js';

export type EraMode = 'auto' | 'modern' | 'legacy';

/**
 * What the server told the run about itself on the first connection: its
 * server/discover answer (modern), or its initialize answer (legacy).
 */
export interface Discovery {
  /** server/discover (modern) or initialize (legacy). */
  exchange?: Exchange;
  capabilities?: JsonObject;
  /** Why discovery gave nothing usable. */
  problem?: string;
  /** Legacy: the primary connection's handshake. */
  handshake?: Handshake;
}

export interface EraOptions {
  mode: EraMode;
  /** The modern revision to speak (`2026-07-28` or `draft`). */
  modernRevision: string;
  modernSchema: ProtocolSchema;
  legacySchema: ProtocolSchema;
  /** auto: how long the server/discover probe may go unanswered before falling back. */
  probeTimeoutMs: number;
}

export interface Opening {
  /** The primary connection, ready for the checks. */
  primary?: Session;
  /** Every connection the opening used (probes included), for the wire-wide checks. */
  sessions: Session[];
  discovery: Discovery;
  /** The revision the run speaks. */
  revision: string;
  era?: EraInfo;
  server?: { name?: string; version?: string };
  /** Set when the run cannot go on: a one-line cause. */
  fatal?: string;
  /** The first request was answered HTTP 401: the server is a protected resource (basic/authorization). */
  unauthorized?: boolean;
}

export async function openEra(t: Target, o: EraOptions): Promise<Opening> {
  const sessions: Session[] = [];
  // Connections of the opening do their handshake themselves (it is what is being found out).
  const connect = async (era: Era): Promise<Session> => {
    t.useEra(era, era === 'legacy' ? o.legacySchema : o.modernSchema);
    const s = await t.connect({ handshake: false });
    sessions.push(s);
    return s;
  };

  if (o.mode === 'legacy') return openForcedLegacy(t, o, connect, sessions);

  const first = await connect('modern');
  const probeTimeout = o.mode === 'auto' ? Math.min(o.probeTimeoutMs, first.requestTimeoutMs) : first.requestTimeoutMs;
  const probe = await probeEra(first, o.modernSchema, probeTimeout);
  if (probe.cause instanceof TransportError && probe.cause.httpStatus === 401)
    return { ...failed(sessions, probe.evidence), unauthorized: true };
  if (probe.era === undefined) return failed(sessions, noAnswer(t, first, probe));
  if (probe.era === 'modern') {
    if (probe.modernError === 'UnsupportedProtocolVersionError') {
      const supported = (probe.exchange?.error?.data as JsonObject | undefined)?.supported;
      return failed(sessions, `the server speaks modern MCP but not ${o.modernRevision}: it supports ${JSON.stringify(supported)}`);
    }
    return modernOpening(
      first,
      probe,
      sessions,
      {
        how: o.mode === 'auto' ? 'detected' : 'forced',
        evidence: o.mode === 'auto' ? probe.evidence : `forced by --spec ${o.modernRevision}; ${probe.evidence}`,
      },
      o.modernRevision,
    );
  }

  // Not modern by the probe: fall back to initialize (after a timeout, on a fresh connection).
  let legacySession: Session;
  // After a timeout, both waits together are one request timeout (each at least the probe's): a silent server costs one wait.
  let fallbackWait: number | undefined;
  if (probe.timedOut) {
    await t.disconnect(first);
    legacySession = await connect('legacy');
    fallbackWait = Math.max(probeTimeout, legacySession.requestTimeoutMs - probeTimeout);
  } else {
    first.useProfile(legacyClientProfile(o.legacySchema));
    t.useEra('legacy', o.legacySchema);
    legacySession = first;
  }
  const hs = await tryHandshake(legacySession, o.legacySchema, o.modernSchema, fallbackWait);
  if (hs.ok) {
    const negotiated = hs.hs.negotiated!;
    if (o.mode === 'modern') {
      return failed(
        sessions,
        `this server speaks ${negotiated} (legacy) only (${probe.evidence}; initialize succeeded); run with --spec ${LEGACY_REVISION}`,
      );
    }
    return legacyOpening(t, legacySession, hs.hs, sessions, {
      how: 'detected',
      evidence: `${probe.evidence}; initialize answered with protocol version ${negotiated}`,
    });
  }
  return neitherEra(t, o, { first, probe, hs, sessions, connect, waitedMs: probeTimeout + (fallbackWait ?? 0) });
}

type Connect = (era: Era) => Promise<Session>;

/** --spec 2025-11-25: the handshake, or one line telling a modern-only server from a broken one. */
async function openForcedLegacy(t: Target, o: EraOptions, connect: Connect, sessions: Session[]): Promise<Opening> {
  const session = await connect('legacy');
  const hs = await tryHandshake(session, o.legacySchema, o.modernSchema);
  if (hs.ok) return legacyOpening(t, session, hs.hs, sessions, { how: 'forced', evidence: 'forced by --spec 2025-11-25' });
  if (hs.unauthorized) return { ...failed(sessions, hs.why), unauthorized: true };
  // Tell a modern-only server from one that is broken: probe it the modern way.
  const probe = await probeEra(await connect('modern'), o.modernSchema, o.probeTimeoutMs);
  t.useEra('legacy', o.legacySchema);
  if (probe.era === 'modern') {
    return failed(
      sessions,
      `this server speaks ${MODERN_REVISION} (modern) only (${hs.why}; ${probe.evidence}); run with --spec ${MODERN_REVISION}`,
    );
  }
  return failed(
    sessions,
    `the server did not complete the initialize handshake (${hs.why})${wroteInstead(session)}${stderrOf(t, session)}`,
  );
}

/** Neither the probe nor the initialize fallback went as a server of either era would: the modern retry, or the cause. */
async function neitherEra(
  t: Target,
  o: EraOptions,
  w: {
    first: Session;
    probe: EraProbe;
    hs: Extract<HandshakeOutcome, { ok: false }>;
    sessions: Session[];
    connect: Connect;
    waitedMs: number;
  },
): Promise<Opening> {
  const { first, probe, hs, sessions, connect } = w;
  // Neither era answered as it should.
  t.useEra('modern', o.modernSchema);
  const how = o.mode === 'auto' ? ('detected' as const) : ('forced' as const);
  if (probe.timedOut) {
    if (!hs.modernError) return failed(sessions, unanswered(t, w));
    // initialize got a modern error: a modern server that was slow to answer the probe. Ask again, with the full timeout.
    const again = await connect('modern');
    const retry = await probeEra(again, o.modernSchema, again.requestTimeoutMs);
    if (retry.era !== 'modern') return failed(sessions, `${noAnswer(t, again, retry)}; initialize answered ${hs.why}`);
    return modernOpening(
      again,
      retry,
      sessions,
      {
        how,
        evidence: `${probe.evidence}; initialize answered ${hs.why}, a recognized modern error (${hs.modernError}); on a fresh connection ${retry.evidence}`,
      },
      o.modernRevision,
    );
  }
  // An error to server/discover and none to initialize: judged as a modern server whose server/discover failed.
  first.useProfile(modernProfile(o.modernRevision, o.modernSchema));
  return modernOpening(
    first,
    probe,
    sessions,
    {
      how,
      evidence: `${probe.evidence}; the initialize fallback failed (${hs.why})${hs.modernError ? `, a recognized modern error (${hs.modernError})` : ''}`,
    },
    o.modernRevision,
  );
}

/**
 * The probe timed out and the initialize fallback failed: a server that
 * answered nothing at all gets what to try (`--url` with the URL its own
 * output names); one that wrote something gets what it wrote.
 */
function unanswered(
  t: Target,
  w: { first: Session; probe: EraProbe; hs: { why: string; timedOut?: boolean }; sessions: Session[]; waitedMs: number },
): string {
  const said = w.sessions.flatMap((s) => [
    ...t.stderrTail(s, 20).split('\n'),
    ...s.violations.filter((v) => v.kind === 'not-json').map((v) => v.detail),
  ]);
  const heard = listeningUrl(said);
  const wrote = w.sessions.map(wroteInstead).find((x) => x !== '');
  if (w.hs.timedOut && !wrote) {
    const stderr = heard ? '' : stderrOf(t, w.first);
    return `${silentServer(t.kind, w.waitedMs, heard)}${stderr}`;
  }
  return `${noAnswer(t, w.first, w.probe)}; the initialize fallback failed too (${w.hs.why})${urlHint(t.kind, heard)}`;
}

type HandshakeOutcome =
  { ok: true; hs: Handshake } | { ok: false; why: string; modernError?: string; timedOut?: boolean; unauthorized?: boolean };

async function tryHandshake(
  session: Session,
  legacySchema: ProtocolSchema,
  modernSchema: ProtocolSchema,
  timeoutMs?: number,
): Promise<HandshakeOutcome> {
  try {
    const hs = await legacyHandshake(session, legacySchema, timeoutMs !== undefined ? { timeoutMs } : {});
    if (!hs.problem) return { ok: true, hs };
    const status = hs.initialize.http ? ` (HTTP ${hs.initialize.http.status})` : '';
    return { ok: false, why: `${hs.problem}${status}`, modernError: recognizedModernError(hs.initialize.response, modernSchema) };
  } catch (err) {
    return {
      ok: false,
      why: err instanceof Error ? err.message : String(err),
      timedOut: err instanceof RequestTimeoutError,
      ...(err instanceof TransportError && err.httpStatus === 401 ? { unauthorized: true } : {}),
    };
  }
}

function modernOpening(session: Session, probe: EraProbe, sessions: Session[], era: Omit<EraInfo, 'era'>, revision: string): Opening {
  const exchange = probe.exchange;
  const discovery: Discovery = exchange ? discoveryOf(exchange) : { problem: probe.evidence };
  const serverInfo = (exchange?.result?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/serverInfo'] as JsonObject | undefined;
  return {
    primary: session,
    sessions,
    discovery,
    revision,
    era: { era: 'modern', ...era },
    ...(serverInfo ? { server: { name: String(serverInfo.name ?? ''), version: String(serverInfo.version ?? '') } } : {}),
  };
}

function discoveryOf(exchange: Exchange): Discovery {
  if (exchange.error) return { exchange, problem: `server/discover answered with ${describeError(exchange.error)}` };
  const caps = exchange.result?.capabilities;
  const capabilities = isObject(caps) ? caps : undefined;
  return { exchange, capabilities, problem: 'server/discover result has no capabilities object' };
}

function legacyOpening(
  t: Target,
  session: Session,
  hs: Handshake,
  sessions: Session[],
  era: Omit<EraInfo, 'era' | 'negotiatedVersion'>,
): Opening {
  t.recordHandshake(session, hs);
  const capabilities = initializeCapabilities(hs);
  const info = hs.initialize.result?.serverInfo as JsonObject | undefined;
  return {
    primary: session,
    sessions,
    discovery: { exchange: hs.initialize, capabilities, handshake: hs, problem: 'the initialize result has no capabilities object' },
    revision: LEGACY_REVISION,
    era: { era: 'legacy', ...era, ...(hs.negotiated ? { negotiatedVersion: hs.negotiated } : {}) },
    ...(info && typeof info === 'object' ? { server: { name: String(info.name ?? ''), version: String(info.version ?? '') } } : {}),
  };
}

function failed(sessions: Session[], fatal: string): Opening {
  return { sessions, discovery: {}, revision: '', fatal };
}

/** The one-line cause when the first request got no answer at all. */
function noAnswer(t: Target, session: Session, probe: EraProbe): string {
  const cause = probe.cause?.message ?? probe.evidence;
  return `the server did not answer server/discover (${cause})${wroteInstead(session)}${stderrOf(t, session, cause)}`;
}

function wroteInstead(session: Session): string {
  const kinds = ['not-json', 'not-jsonrpc', 'oversized-message', 'response-without-result'];
  const garbage = session.violations.find((v) => kinds.includes(v.kind));
  return garbage ? `; it wrote instead: ${garbage.detail}` : '';
}

function stderrOf(t: Target, session: Session, said = ''): string {
  const tail = t.stderrTail(session, 3).trim().split('\n').pop();
  // A connection closed by the process's exit already quotes its stderr.
  return tail && !said.includes(tail) ? `; stderr: ${tail}` : '';
}

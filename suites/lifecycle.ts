/**
 * The legacy (2025-11-25) lifecycle: the initialize handshake, version
 * negotiation, what a server may send before `notifications/initialized`,
 * and the Streamable HTTP session id (2025-11-25/basic/lifecycle,
 * 2025-11-25/basic/transports). These rules do not exist in the modern
 * revisions, which have no handshake; there the checks are skipped.
 */
import { initializeParams } from '../harness/legacy.js';
import { defineCheck, describeAnswer, show } from './check.js';
import { whyNotCallableAsWritten } from './safety.js';
import type { JsonObject } from '../model/json.js';

/** A protocol version no server supports: the negotiation probe asks for it. */
export const UNSUPPORTED_VERSION = '1900-01-01';

export const initializeResult = defineCheck({
  id: 'lifecycle/initialize-result',
  title: 'initialize answers with a valid InitializeResult (protocolVersion, capabilities, serverInfo)',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Initialization' },
  // The answer's shape (protocolVersion, capabilities, serverInfo) is the schema's InitializeResult.
  quote: 'The server MUST respond with its own capabilities and information',
  async run(t) {
    const ex = t.ctx.discovery().handshake?.initialize;
    if (!ex) return t.notObserved('the run has no initialize exchange');
    if (!t.expect(!ex.error, { expected: 'an InitializeResult', actual: describeAnswer(ex), wire: ex })) return;
    t.expectSchemaValid(ex, 'InitializeResult');
    t.note('protocolVersion', ex.result?.protocolVersion);
  },
});

export const versionNegotiation = defineCheck({
  id: 'lifecycle/version-negotiation',
  title: 'initialize with an unsupported version is answered with a version the server supports',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Version Negotiation' },
  quote:
    'If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports.',
  async run(t) {
    const hs = t.ctx.discovery().handshake;
    if (hs) t.note('negotiated for 2025-11-25', hs.negotiated);
    // A fresh connection asks for a version nobody supports (and never sends initialized).
    const s = await t.ctx.openSession({ handshake: false });
    const ex = await s.request('initialize', initializeParams(UNSUPPORTED_VERSION));
    if (ex.error) {
      // 2025-11-25/basic/lifecycle "Error Handling" shows this form: an error naming the supported versions.
      const supported = (ex.error.data as JsonObject | undefined)?.supported;
      const named =
        Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string' && v !== UNSUPPORTED_VERSION);
      t.expect(named, {
        expected: `a result with a protocol version the server supports (or an error whose data.supported names them), not ${UNSUPPORTED_VERSION}`,
        actual: `${describeAnswer(ex)} naming no supported versions (data: ${show(ex.error.data)})`,
        wire: ex,
      });
      return;
    }
    const answered = ex.result?.protocolVersion;
    t.note('answered', answered);
    t.expect(typeof answered === 'string' && answered !== '' && answered !== UNSUPPORTED_VERSION, {
      expected: `protocolVersion: a version the server supports, not the unsupported ${UNSUPPORTED_VERSION} it was asked for`,
      actual: `protocolVersion ${show(answered)}`,
      wire: ex,
    });
  },
});

/** How long a fresh connection waits, between the initialize response and `initialized`, for a premature request. */
const QUIET_WINDOW_MS = 300;

export const initializedOrdering = defineCheck({
  id: 'lifecycle/initialized-ordering',
  title: 'no requests other than ping before the initialized notification',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Initialization' },
  quote: 'The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.',
  async run(t) {
    const hs = t.ctx.discovery().handshake;
    const premature = (hs?.serverRequests ?? []).filter((r) => r.beforeInitialized && r.method !== 'ping');
    // A fresh connection: initialize, then a short window in which initialized is held back.
    const s = await t.ctx.openSession({ handshake: false });
    const isRequest = (m: JsonObject) => typeof m.method === 'string' && 'id' in m && m.method !== 'ping';
    const window = Math.min(QUIET_WINDOW_MS, t.ctx.settings.requestTimeoutMs);
    const off = s.onMessage((m, frame) => {
      if (isRequest(m)) premature.push({ method: String(m.method), frame, beforeInitialized: true });
    });
    try {
      const ex = await s.request('initialize', initializeParams());
      if (ex.error) return t.notObserved(`initialize on a fresh connection failed: ${describeAnswer(ex)}`);
      if (premature.length === 0) await s.waitForMessage(isRequest, window, t.ctx.signal);
      t.note('window (ms)', window);
      for (const r of premature.slice(0, 3)) {
        t.expect(false, {
          expected: 'only ping (or logging notifications) before notifications/initialized',
          actual: `the server sent a ${r.method} request before the client sent notifications/initialized`,
          wire: [...(r.frame.connection === ex.frames[0]?.connection ? ex.frames : (hs?.initialize.frames ?? [])), r.frame].sort(
            (a, b) => a.seq - b.seq,
          ),
        });
      }
    } finally {
      off();
    }
  },
});

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export const sessionIdFormat = defineCheck({
  id: 'lifecycle/session-id',
  title: 'an assigned Mcp-Session-Id holds only visible ASCII',
  level: 'MUST',
  transports: ['http'],
  spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Session Management' },
  quote: 'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
  async run(t) {
    const id = t.session.sessionId;
    if (id === undefined) return t.skip('the server assigned no session id (it serves the legacy era statelessly)');
    t.expect(VISIBLE_ASCII.test(id), {
      expected: 'a session id of characters 0x21-0x7E only',
      actual: `Mcp-Session-Id ${JSON.stringify(id)}`,
      wire: t.ctx.discovery().handshake?.initialize,
    });
  },
});

export const lifecycleChecks = [initializeResult, versionNegotiation, initializedOrdering, sessionIdFormat];

/** The client capability each server-to-client request needs (2025-11-25/client/*). */
const CLIENT_CAPABILITY_OF: Record<string, string> = {
  'roots/list': 'roots',
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
};

/** The server capability each server notification needs (notifications/message: logging/capability-declared). */
const SERVER_CAPABILITY_OF: Record<string, string> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
  'notifications/resources/updated': 'resources',
};

export const negotiatedCapabilities = defineCheck({
  id: 'lifecycle/negotiated-capabilities',
  title:
    'the server uses only negotiated capabilities: requests to the client only for what it declared, notifications only for what the server declared',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Operation' },
  quote: 'Both parties MUST: … Only use capabilities that were successfully negotiated',
  async run(t) {
    const serverCaps = t.ctx.discovery().capabilities ?? {};
    // A fresh connection that declares no client capability: the server may ask it nothing.
    const bare = await t.ctx.openSession({ capabilities: {} });
    const list = await bare.request('tools/list');
    t.note('tools/list on the connection without client capabilities', describeAnswer(list));
    const configured = t.ctx.config.capabilityTool;
    // tools.exclude wins over the configured tool too.
    const tool = configured && whyNotCallableAsWritten(t.ctx, configured.name) === undefined ? configured : undefined;
    if (tool) {
      const call = await bare.request('tools/call', { name: tool.name, arguments: tool.arguments ?? {} });
      t.note(`${tool.name} without client capabilities`, describeAnswer(call));
      // With every capability declared (the primary connection), the same call may ask the client, and is answered.
      const asked: string[] = [];
      const off = t.session.onMessage((m) => {
        if (typeof m.method === 'string' && 'id' in m) asked.push(m.method);
      });
      try {
        const full = await t.request('tools/call', { name: tool.name, arguments: tool.arguments ?? {} });
        t.note(
          `${tool.name} with every client capability`,
          `${describeAnswer(full)}; the server asked the client: ${asked.length ? asked.join(', ') : 'nothing'}`,
        );
      } finally {
        off();
      }
    }
    // Everything before this answer was sent before it: the ordering mark for the bare connection.
    await bare.request('ping').catch(() => undefined);
    for (const s of t.ctx.allSessions()) {
      const declared = s.declaredCapabilities;
      if (!declared) continue;
      for (const [method, seen] of s.inboundMethods) {
        const needs = CLIENT_CAPABILITY_OF[method];
        if (needs && declared[needs] === undefined) {
          t.expect(false, {
            expected: `no ${method} request on a connection whose initialize declared ${show(declared)} (no ${needs})`,
            actual: `${seen.count} ${method} request(s) from the server`,
            wire: [seen.frame],
          });
        }
        const own = SERVER_CAPABILITY_OF[method];
        if (own && serverCaps[own] === undefined) {
          t.expect(false, {
            expected: `no ${method}: the server's initialize capabilities ${show(serverCaps)} have no ${own}`,
            actual: `${seen.count} ${method} notification(s) from the server`,
            wire: [seen.frame],
          });
        }
      }
    }
  },
});

/** Protocol versions are dates (YYYY-MM-DD): later is newer. */
const isVersion = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);

export const latestVersion = defineCheck({
  id: 'lifecycle/latest-version',
  title: 'initialize with an unsupported version is answered with the latest version the server supports',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Version Negotiation' },
  quote:
    'Otherwise, the server MUST respond with another protocol version it supports. This SHOULD be the latest version supported by the server.',
  async run(t) {
    // A version the server is known to support: the one it answered a 2025-11-25 initialize with.
    const known = t.ctx.discovery().handshake?.negotiated;
    if (!isVersion(known)) return t.notObserved('the handshake named no protocol version the server supports');
    const s = await t.ctx.openSession({ handshake: false });
    const ex = await s.request('initialize', initializeParams(UNSUPPORTED_VERSION));
    const answered = ex.result?.protocolVersion;
    // No other version to compare (an error, the echoed version, no version): lifecycle/version-negotiation judges that.
    if (ex.error || !isVersion(answered) || answered === UNSUPPORTED_VERSION) {
      return t.skip(
        `initialize with ${UNSUPPORTED_VERSION} was answered with ${describeAnswer(ex)}, not with another version; lifecycle/version-negotiation judges that answer`,
      );
    }
    t.note('answered', answered);
    t.expect(answered >= known, {
      expected: `protocolVersion ${known} or later: the server supports ${known} (it answered a ${LEGACY_REVISION_ASKED} initialize with it)`,
      actual: `protocolVersion ${show(answered)}, older than ${known}`,
      wire: [...(t.ctx.discovery().handshake?.initialize.frames ?? []), ...ex.frames],
    });
  },
});

const LEGACY_REVISION_ASKED = '2025-11-25';

export const negotiationChecks = [negotiatedCapabilities, latestVersion];

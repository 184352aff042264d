/**
 * Protocol version negotiation on every request (basic/versioning).
 */
import { CLIENT_INFO } from '../harness/protocol.js';
import { AbortedError, HarnessError } from '../harness/errors.js';
import type { Session } from '../harness/session.js';
import { ERROR_CODES } from '../model/error-codes.js';
import { isObject, type JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { defineCheck, describeAnswer, memoKey, show, type Probe, type SuiteContext } from './check.js';
import { attempt, expectBadRequest, probeMethods } from './requests.js';
import { keyProblem } from './result-meta.js';

const { UNSUPPORTED_VERSION } = ERROR_CODES;
const UNSUPPORTED = '1900-01-01';

export const unsupportedVersion = defineCheck({
  id: 'versioning/unsupported-version',
  title: 'an unsupported protocol version gets -32022 with the supported versions',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/versioning', section: 'Protocol Version Negotiation' },
  // The error's shape (code -32022, data.supported, data.requested) is the schema's
  // UnsupportedProtocolVersionError; its HTTP status is Streamable HTTP's rule.
  quote:
    'If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support:',
  parts: {
    'http-status': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Protocol Version Header' },
      quote:
        'If the server does not implement the requested protocol version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with 400 Bad Request and an UnsupportedProtocolVersionError listing its supported versions.',
    },
  },
  async run(t) {
    const advertised = t.ctx.discovery().exchange?.result?.supportedVersions;
    for (const method of probeMethods(t)) {
      const ex = await attempt(t.session, method, {}, { meta: { protocolVersion: UNSUPPORTED } });
      if (typeof ex === 'string') {
        t.expect(false, { expected: `${method} at version ${UNSUPPORTED}: JSON-RPC error -32022`, actual: ex });
        continue;
      }
      if (
        !t.expect(ex.error?.code === UNSUPPORTED_VERSION, {
          expected: `${method} declaring protocol version ${UNSUPPORTED}: JSON-RPC error -32022`,
          actual: describeAnswer(ex),
          wire: ex,
        })
      ) {
        continue;
      }
      const data = (ex.error!.data ?? {}) as JsonObject;
      t.expect(data.requested === UNSUPPORTED, {
        expected: `data.requested ${show(UNSUPPORTED)}`,
        actual: `data.requested ${show(data.requested)}`,
        wire: ex,
      });
      const supported = data.supported;
      const outside = Array.isArray(supported) && Array.isArray(advertised) ? supported.filter((v) => !advertised.includes(v)) : [];
      t.expect(Array.isArray(supported) && supported.length > 0 && outside.length === 0, {
        expected: `data.supported: a non-empty list drawn from supportedVersions ${show(advertised)}`,
        actual: `data.supported ${show(supported)}${outside.length ? ` (not in supportedVersions: ${show(outside)})` : ''}`,
        wire: [ex, ...(t.ctx.discovery().exchange ? [t.ctx.discovery().exchange!] : [])],
      });
      expectBadRequest(t, ex, 'http-status');
    }
  },
});

export const extensionIds = defineCheck({
  id: 'versioning/extension-ids',
  title: 'the extensions the server declares are named by prefixed _meta-style identifiers',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/versioning', section: 'Extension Negotiation' },
  // The schema's ServerCapabilities.extensions says the same of its keys.
  quote: 'Extension identifiers MUST follow the _meta key naming rules, with a mandatory prefix.',
  async run(t) {
    const discovery = t.ctx.discovery();
    const extensions = discovery.capabilities?.extensions;
    if (extensions === undefined) return t.skip('the server declares no extensions (server/discover capabilities.extensions)');
    // The map's shape is the schema's (protocol/messages-schema-valid): only its keys are judged here.
    if (!isObject(extensions)) return t.notObserved(`capabilities.extensions is not an object: ${show(extensions)}`);
    const ids = Object.keys(extensions);
    t.note('extensions', ids);
    for (const id of ids) {
      const slash = id.lastIndexOf('/');
      const why = slash <= 0 ? 'it has no prefix (labels separated by dots, then "/")' : keyProblem(id)?.why;
      t.expect(why === undefined, {
        expected: 'an identifier of the form <prefix>/<name>, e.g. com.example/my-extension',
        actual: `extension ${show(id)}: ${why}`,
        wire: discovery.exchange,
      });
    }
  },
});

/** Modern protocol versions: revision 2026-07-28 and later (basic/versioning "Terminology"). */
const FIRST_MODERN = '2026-07-28';

/** What a 2025-11-25 client opens with. */
function legacyInitialize(id: string): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { ...CLIENT_INFO } },
  };
}

/** A legacy client's initialize on `session`, as that client sends it: the error text it got (or why none), and the wire. */
async function sendInitialize(
  t: Probe,
  session: Session,
): Promise<{ error?: string; result?: boolean; none?: string; frames: WireFrame[] }> {
  try {
    return await initializeOnce(t, session);
  } catch (err) {
    // The run's abort ends the check; anything else the transport says is no error to read.
    if (err instanceof HarnessError && !(err instanceof AbortedError)) return { none: err.message, frames: [] };
    throw err;
  }
}

async function initializeOnce(
  t: Probe,
  session: Session,
): Promise<{ error?: string; result?: boolean; none?: string; frames: WireFrame[] }> {
  const message = legacyInitialize(`mcp-conformance-initialize-${session.nextId()}`);
  if (t.ctx.transport === 'http') {
    // A legacy client sends no MCP-Protocol-Version or Mcp-* header on initialize, and no _meta.
    const answer = await session.rawHttp({ message, omit: ['MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name'] });
    const parsed = answer.messages.map((m) => {
      try {
        return JSON.parse(m) as JsonObject;
      } catch {
        return undefined;
      }
    });
    if (parsed.some((m) => isObject(m?.result))) return { result: true, frames: answer.frames };
    const error = parsed.find((m) => isObject(m?.error))?.error;
    if (error !== undefined) return { error: JSON.stringify(error), frames: answer.frames };
    if (answer.status >= 400) return { error: `HTTP ${answer.status} ${answer.body}`, frames: answer.frames };
    return { none: `HTTP ${answer.status} without a JSON-RPC answer`, frames: answer.frames };
  }
  // A dual-era server answers with a legacy InitializeResult: no message of this era for the schema and result-type rules.
  const ex = await session.request('initialize', message.params as JsonObject, { meta: { none: true }, otherEra: true });
  if (ex.error) return { error: JSON.stringify(ex.error), frames: ex.frames };
  return { result: true, frames: ex.frames };
}

/** Set when a modern run's initialize on a connection of its own was answered with a result: the server speaks the legacy era too. */
const initializeAnswered = memoKey<WireFrame[]>('versioning: initialize answered with a result in a modern run');

/** Did this modern run see the server answer initialize with a result (a dual-era server)? */
export function answeredInitialize(ctx: Pick<SuiteContext, 'run'>): boolean {
  return ctx.run.peek(initializeAnswered) !== undefined;
}

export const initializeErrorVersions = defineCheck({
  id: 'versioning/initialize-error-versions',
  title: 'a modern-only server names its protocol versions when it refuses initialize',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/versioning', section: 'Backward Compatibility with Initialization-Based Versions' },
  quote:
    'A server that supports only modern versions SHOULD name the protocol versions it supports in any error it returns to an initialize request, on any transport: legacy clients have no fall-forward mechanism, and this message may be the only diagnostic they can surface to users.',
  async run(t) {
    const supported = t.ctx.discovery().exchange?.result?.supportedVersions;
    if (!Array.isArray(supported) || supported.length === 0)
      return t.notObserved('server/discover gave no supportedVersions to look for (judged by discover/result)');
    const versions = supported.map(String);
    const legacy = versions.filter((v) => v < FIRST_MODERN);
    if (legacy.length > 0) return t.skip(`the server supports legacy versions too (${legacy.join(', ')}): it is not modern-only`);
    // initialize selects legacy semantics for its connection or process on a dual-era server: a connection of its own.
    const session = await t.ctx.openSession();
    const answer = await sendInitialize(t, session);
    if (answer.result) {
      t.ctx.run.memo(initializeAnswered, () => answer.frames);
      return t.skip('the server answered initialize with a result: it serves legacy clients');
    }
    if (answer.none !== undefined) return t.notObserved(`initialize got no error to read: ${answer.none}`);
    const named = versions.filter((v) => answer.error!.includes(v));
    t.note('versions named', named);
    t.expect(named.length > 0, {
      expected: `the error names the versions the server supports (${versions.join(', ')}), in its message or data`,
      actual: `error ${show(answer.error, 400)}`,
      wire: answer.frames,
    });
  },
});

export const versioningChecks = [unsupportedVersion, extensionIds, initializeErrorVersions];

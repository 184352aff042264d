/**
 * The stateless request contract (basic/index "Statelessness", "_meta",
 * "ResultType"; basic/versioning): every request carries its own protocol
 * version, capabilities and identity, and is answered from them alone.
 */
import { randomUUID } from 'node:crypto';
import picomatch from 'picomatch';
import { TransportError } from '../harness/errors.js';
import { CLIENT_INFO, wireVersion, type MetaOptions } from '../harness/protocol.js';
import type { Exchange, JsonObject, RequestOptions, Session } from '../harness/session.js';
import { walkList, type ListWalk } from '../harness/walk.js';
import { defineCheck, describeAnswer, show, type Probe } from './check.js';
import { describeDiff, toolsDiff } from './compare.js';

const INVALID_PARAMS = -32602;
const HEADER_MISMATCH = -32020;
const MISSING_CAPABILITY = -32021;
const UNSUPPORTED_VERSION = -32022;
const UNSUPPORTED = '1900-01-01';

/** The result types of the core protocol. */
const RESULT_TYPES = ['complete', 'input_required'];

/** Send a request; a transport-level answer without JSON-RPC comes back as text instead of an exchange. */
async function attempt(session: Session, method: string, params: JsonObject, opts: RequestOptions): Promise<Exchange | string> {
  try {
    return await session.request(method, params, opts);
  } catch (err) {
    if (err instanceof TransportError) return err.message;
    throw err;
  }
}

/** Methods every probe here is sent with: server/discover, and tools/list when tools are declared. */
function probeMethods(t: Probe): string[] {
  return ['server/discover', ...(t.ctx.discovery().capabilities?.tools !== undefined ? ['tools/list'] : [])];
}

/** On HTTP, a rejected request must come back with 400 Bad Request. */
function expectBadRequest(t: Probe, ex: Exchange): void {
  if (t.ctx.transport !== 'http') return;
  t.expect(ex.http?.status === 400, {
    expected: 'HTTP status 400 Bad Request',
    actual: `HTTP status ${show(ex.http?.status)}`,
    wire: ex,
  });
}

export const requiredFields = defineCheck({
  id: 'meta/required-fields',
  title: 'a request without a required _meta field is rejected with -32602',
  level: 'MUST',
  spec: { page: 'basic/index', section: '_meta' },
  requirement:
    'A request missing any required field (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities) is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request.',
  async run(t) {
    const version = wireVersion(t.ctx.revision);
    for (const method of probeMethods(t)) {
      for (const field of ['protocolVersion', 'clientCapabilities'] as const) {
        // On HTTP the MCP-Protocol-Version header is still sent: only the body lacks the field.
        const ex = await attempt(t.session, method, {}, { meta: { omit: [field] }, headerVersion: version });
        const what = `${method} without _meta ${field}`;
        if (typeof ex === 'string') {
          t.expect(false, { expected: `${what}: JSON-RPC error -32602`, actual: ex });
          continue;
        }
        // A body without the version next to a header with one is also a header/body disagreement.
        const accepted = field === 'protocolVersion' && t.ctx.transport === 'http' ? [INVALID_PARAMS, HEADER_MISMATCH] : [INVALID_PARAMS];
        if (ex.error?.code === HEADER_MISMATCH) t.note(`${what}`, 'answered -32020 (header and body disagree)');
        if (
          !t.expect(!!ex.error && accepted.includes(ex.error.code as number), {
            expected: `${what}: JSON-RPC error ${accepted.join(' or ')}`,
            actual: describeAnswer(ex),
            wire: ex,
          })
        ) {
          continue;
        }
        expectBadRequest(t, ex);
      }
    }
  },
});

export const clientInfoOptional = defineCheck({
  id: 'meta/client-info-optional',
  title: 'a request without the optional clientInfo is served',
  level: 'MUST',
  spec: { page: 'basic/index', section: '_meta' },
  requirement:
    'io.modelcontextprotocol/clientInfo is not a required per-request field; only a request missing a required field is malformed and rejected.',
  async run(t) {
    for (const method of probeMethods(t)) {
      const ex = await attempt(t.session, method, {}, { meta: { omit: ['clientInfo'] } });
      if (typeof ex === 'string') {
        t.expect(false, { expected: `${method} without clientInfo answered normally`, actual: ex });
        continue;
      }
      t.expect(!ex.error, {
        expected: `${method} without _meta clientInfo answered with a result`,
        actual: describeAnswer(ex),
        wire: ex,
      });
    }
  },
});

export const missingCapability = defineCheck({
  id: 'meta/missing-capability',
  title: 'a request needing an undeclared client capability gets -32021 naming it',
  level: 'MUST',
  spec: { page: 'basic/index', section: '_meta' },
  requirement:
    'If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities. On HTTP, the response status MUST be 400 Bad Request.',
  async run(t) {
    const tool = t.ctx.config.capabilityTool;
    if (!tool) return t.notObserved('no capabilityTool in the configuration file: the suite knows no request that needs a client capability');
    const ex = await attempt(t.session, 'tools/call', { name: tool.name, arguments: tool.arguments ?? {} }, { meta: { capabilities: {} } });
    if (typeof ex === 'string') {
      t.expect(false, { expected: 'JSON-RPC error -32021', actual: ex });
      return;
    }
    if (!t.expect(ex.error?.code === MISSING_CAPABILITY, { expected: `tools/call ${tool.name} with no client capabilities: JSON-RPC error -32021`, actual: describeAnswer(ex), wire: ex })) return;
    const required = (ex.error!.data as JsonObject | undefined)?.requiredCapabilities as JsonObject | undefined;
    t.note('requiredCapabilities', required);
    const missing = tool.requires.filter((c) => !(required && typeof required === 'object' && c in required));
    t.expect(missing.length === 0, {
      expected: `data.requiredCapabilities naming ${tool.requires.join(', ')}`,
      actual: `data ${show(ex.error!.data)}`,
      wire: ex,
    });
    expectBadRequest(t, ex);
  },
});

export const unsupportedVersion = defineCheck({
  id: 'versioning/unsupported-version',
  title: 'an unsupported protocol version gets -32022 with the supported versions',
  level: 'MUST',
  spec: { page: 'basic/versioning', section: 'Protocol Version Negotiation' },
  requirement:
    'If the server does not implement the requested version, it MUST respond with an UnsupportedProtocolVersionError (-32022) listing the versions it does support (data.supported) and echoing data.requested; on HTTP with 400 Bad Request.',
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
      expectBadRequest(t, ex);
    }
  },
});

/**
 * A tool the suite may call with no arguments: none required, read-only (or
 * allowed by the configuration file), not excluded. Undefined when none is.
 */
async function callableTool(t: Probe): Promise<JsonObject | undefined> {
  const walk = await t.ctx.tools();
  if (!walk.exhausted) return undefined;
  const cfg = t.ctx.config.tools ?? {};
  const excluded = cfg.exclude?.length ? picomatch(cfg.exclude) : () => false;
  const included = cfg.include?.length ? picomatch(cfg.include) : () => false;
  return walk.items.find((tool) => {
    const name = String(tool?.name);
    const schema = tool.inputSchema as JsonObject | undefined;
    const required = Array.isArray(schema?.required) ? schema.required : [];
    const readOnly = (tool.annotations as JsonObject | undefined)?.readOnlyHint === true;
    return required.length === 0 && !excluded(name) && (readOnly || cfg.allowSideEffects === true || included(name));
  });
}

/** What kind of answer a request got, leaving out content that may legitimately vary (times, ids). */
function outcome(ex: Exchange): string {
  if (ex.error) return `JSON-RPC error ${show(ex.error.code)}`;
  const r = ex.result ?? {};
  const content = Array.isArray(r.content) ? (r.content as JsonObject[]).map((c) => String(c?.type)) : [];
  return `resultType ${show(r.resultType)}, isError ${r.isError === true}, content [${content.join(', ')}]`;
}

export const freshConnection = defineCheck({
  id: 'statelessness/fresh-connection',
  title: 'a tools/call as the very first request of a fresh connection is answered as on any other',
  level: 'MUST',
  capability: 'tools',
  spec: { page: 'basic/index', section: 'Statelessness' },
  requirement:
    'Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity). Every request supplies this metadata in its _meta field.',
  async run(t) {
    const tool = await callableTool(t);
    if (!tool) return t.notObserved('no listed tool can be called without arguments and without side effects (see tools.include / allowSideEffects in the configuration file)');
    const params = { name: tool.name, arguments: {} };
    const reference = await t.request('tools/call', params);
    // A client the server has never seen, on a connection that has carried nothing before.
    const session = await t.ctx.openSession();
    const clientInfo = { name: `mcp-conformance-fresh-${randomUUID().slice(0, 8)}`, version: CLIENT_INFO.version };
    const first = await session.request('tools/call', params, { meta: { clientInfo } });
    t.note('tool', tool.name);
    t.expect(outcome(first) === outcome(reference), {
      expected: `the same kind of answer as on the primary connection: ${outcome(reference)}`,
      actual: `${outcome(first)} (${describeAnswer(first)})`,
      wire: [reference, first],
    });
  },
});

async function walk(t: Probe, session: Session, meta: MetaOptions | undefined, when: string): Promise<ListWalk> {
  const w = await walkList(session, 'tools/list', 'tools', { maxPages: t.ctx.settings.maxPages, request: { meta } });
  if (!w.exhausted) t.notObserved(`tools/list ${when} could not be walked: ${w.problem?.detail}`);
  return w;
}

export const interleavedClients = defineCheck({
  id: 'statelessness/interleaved-clients',
  title: 'two clients interleaved on one connection are each answered from their own _meta',
  level: 'MUST',
  capability: 'tools',
  spec: { page: 'basic/index', section: 'Statelessness' },
  requirement:
    'Servers MUST NOT rely on prior requests over the same connection to establish context (capabilities, protocol version, client identity); servers MUST NOT infer capabilities from prior requests.',
  async run(t) {
    const session = t.session;
    const tool = t.ctx.config.capabilityTool;
    const capabilities = Object.fromEntries((tool?.requires ?? ['roots']).map((c) => [c, {}]));
    const a: MetaOptions = { clientInfo: { name: 'mcp-conformance-client-a', version: CLIENT_INFO.version }, capabilities };
    const b: MetaOptions = { clientInfo: { name: 'mcp-conformance-client-b', version: CLIENT_INFO.version }, capabilities: {} };
    // Client B first, then client A (declaring capabilities), then B again: B must be answered as before.
    await session.request('server/discover', {}, { meta: b });
    const b1 = await walk(t, session, b, 'for client B');
    const call = tool ? { name: tool.name, arguments: tool.arguments ?? {} } : undefined;
    const bFirst = call && (await session.request('tools/call', call, { meta: b }));
    await session.request('server/discover', {}, { meta: a });
    await walk(t, session, a, 'for client A');
    const aCall = call && (await session.request('tools/call', call, { meta: a }));
    const b2 = await walk(t, session, b, 'for client B again');
    const diff = describeDiff(toolsDiff(b1.items, b2.items));
    t.expect(diff === '', {
      expected: "client B's tools/list unchanged by client A's requests in between",
      actual: diff,
      wire: [b1.pages[0]!, b2.pages[0]!],
    });
    if (!call || !bFirst || !aCall) {
      t.note('capabilities', 'no capabilityTool in the configuration file: only tools/list was interleaved');
      return;
    }
    const bAgain = await session.request('tools/call', call, { meta: b });
    t.note('answers', { 'B before A': outcome(bFirst), A: outcome(aCall), 'B after A': outcome(bAgain) });
    if (outcome(aCall) === outcome(bFirst)) {
      t.note('not exercised', `declaring ${Object.keys(capabilities).join(', ')} made no difference to ${tool!.name}`);
    }
    t.expect(outcome(bAgain) === outcome(bFirst), {
      expected: `client B (no capabilities) answered as before client A declared ${Object.keys(capabilities).join(', ')} on the same connection: ${outcome(bFirst)}`,
      actual: `${outcome(bAgain)} (${describeAnswer(bAgain)})`,
      wire: [bFirst, aCall, bAgain],
    });
  },
});

export const listUnaffected = defineCheck({
  id: 'statelessness/list-unaffected',
  title: 'tools/list does not change as a side effect of other requests on the connection',
  level: 'MUST',
  capability: 'tools',
  spec: { page: 'server/tools', section: 'Capabilities' },
  requirement: 'The set of tools MUST NOT vary per-connection or as a side effect of other requests on the connection.',
  async run(t) {
    const session = await t.ctx.openSession();
    const before = await walk(t, session, undefined, 'first');
    const tool = await callableTool(t);
    const sent: string[] = [];
    // Unrelated requests: a tool call, another client's discovery, and requests that fail.
    if (tool) {
      await session.request('tools/call', { name: tool.name, arguments: {} });
      sent.push(`tools/call ${String(tool.name)}`);
    }
    await session.request('server/discover', {}, { meta: { clientInfo: { name: 'mcp-conformance-other', version: CLIENT_INFO.version } } });
    await attempt(session, 'tools/call', { name: 'mcp-conformance-no-such-tool', arguments: {} }, {});
    await attempt(session, 'mcp-conformance/no-such-method', {}, {});
    sent.push('server/discover (another client)', 'tools/call of an unknown tool', 'an unknown method');
    const after = await walk(t, session, undefined, 'after the other requests');
    t.note('requests in between', sent);
    const diff = describeDiff(toolsDiff(before.items, after.items));
    t.expect(diff === '', {
      expected: 'the same tools (names and definitions) before and after the other requests',
      actual: diff,
      wire: [before.pages[before.pages.length - 1]!, after.pages[after.pages.length - 1]!],
    });
  },
});

export const resultType = defineCheck({
  id: 'protocol/result-type',
  title: 'every result carries a resultType the protocol defines',
  level: 'MUST',
  spec: { page: 'basic/index', section: 'ResultType' },
  requirement:
    'The result MUST include a resultType field; a resultType of any value unrecognized by the client MUST be considered invalid ("complete" and "input_required" are defined by the core protocol).',
  observer: true,
  async run(t) {
    let results = 0;
    for (const session of t.ctx.allSessions()) {
      for (const seen of session.resultTypes.values()) {
        results += seen.count;
        t.expect(RESULT_TYPES.includes(seen.resultType as string), {
          expected: `resultType ${RESULT_TYPES.map((x) => JSON.stringify(x)).join(' or ')}`,
          actual: `${seen.resultType === undefined ? 'no resultType' : `resultType ${show(seen.resultType)}`} in ${seen.count} ${seen.method} result(s)`,
          wire: [seen.frame],
        });
      }
    }
    if (results === 0) t.notObserved('no request was answered with a result');
    t.note('results', results);
  },
});

export const statelessnessChecks = [
  requiredFields,
  clientInfoOptional,
  missingCapability,
  unsupportedVersion,
  freshConnection,
  interleavedClients,
  listUnaffected,
  resultType,
];

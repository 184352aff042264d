/**
 * The per-request _meta contract (basic/index "_meta", "Statelessness"): every
 * request carries its own protocol version, capabilities and identity.
 */
import { wireVersion } from '../harness/protocol.js';
import { ERROR_CODES } from '../model/error-codes.js';
import { capabilityDeclared, capabilityNeeded, declaredCapabilities, isInputRequired } from '../harness/mrtr.js';
import type { Exchange } from '../harness/session.js';
import { isObject, type JsonObject } from '../model/json.js';
import { defineCheck, describeAnswer, frameKey, frameMessage, show, type Probe } from './check.js';
import type { Config } from '../model/config.js';
import type { WireFrame } from '../model/wire.js';
import { attempt, expectBadRequest, probeMethods } from './requests.js';
import { whyNotCallableAsWritten } from './safety.js';

const { INVALID_PARAMS, HEADER_MISMATCH, MISSING_CAPABILITY } = ERROR_CODES;

export const requiredFields = defineCheck({
  id: 'meta/required-fields',
  title: 'a request without a required _meta field is rejected with -32602',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
  quote:
    'A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request.',
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
        const accepted: number[] =
          field === 'protocolVersion' && t.ctx.transport === 'http' ? [INVALID_PARAMS, HEADER_MISMATCH] : [INVALID_PARAMS];
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
  // clientInfo is optional (the _meta table: Required No) and nothing says in so many words that a
  // server must serve a request without it; the keyword is the Note's: a server that refuses a request
  // for lacking it changes its behaviour on clientInfo. So SHOULD.
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
  quote:
    'io.modelcontextprotocol/clientInfo and io.modelcontextprotocol/serverInfo are self-reported by the sender and are not verified by the protocol. They are intended for display, logging, and debugging. Implementations SHOULD NOT use them to change the behavior of the client or server, and SHOULD NOT rely on them for security decisions.',
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
  unlockedBy: ['capabilityTool'],
  title: 'a request needing an undeclared client capability gets -32021 naming it',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
  quote:
    'If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities. On HTTP, the response status MUST be 400 Bad Request.',
  parts: {
    // Asking the client for what it did not declare (an inputRequests entry needing it) is relying on it.
    'not-relied-on': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
      quote: 'A server MUST NOT rely on capabilities the client has not declared.',
    },
  },
  async run(t) {
    const tool = t.ctx.config.capabilityTool;
    const excluded = tool ? whyNotCallableAsWritten(t.ctx, tool.name) : undefined;
    if (tool && !excluded) await ownCapabilityCall(t, tool);
    // Every -32021 the run saw, whichever check's request it answered, is judged too.
    const seen = judgeRunMissingCapability(t);
    t.note('-32021 errors judged (the whole run)', seen);
    if (seen > 0 || (tool && !excluded)) return;
    if (tool) return t.notObserved(`capabilityTool ${JSON.stringify(tool.name)} ${excluded}`);
    t.notObserved(
      'no request of the run was answered with -32021, and there is no capabilityTool in the configuration file: the suite knows no request that needs a client capability',
    );
  },
});

/** Inbound frames the check has already shown in a finding. */
const shownIn = (t: Probe) => new Set(t.findings.flatMap((f) => f.wire.filter((w) => w.dir === 'in').map(frameKey)));

/** Every -32021 error of every connection: data.requiredCapabilities lists what is missing, and on HTTP the status is 400. */
function judgeRunMissingCapability(t: Probe): number {
  const shown = shownIn(t);
  let judged = 0;
  for (const s of t.ctx.allSessions()) {
    const requests = new Map<string, WireFrame>();
    for (const f of s.frames()) {
      const m = frameMessage(f);
      if (!m) continue;
      const key = `${typeof m.id}:${String(m.id)}`;
      if (f.dir === 'out') {
        if (typeof m.method === 'string' && m.id !== undefined) requests.set(key, f);
        continue;
      }
      const error = m.error as JsonObject | undefined;
      if (m.method !== undefined || !isObject(error) || error.code !== MISSING_CAPABILITY) continue;
      if (shown.has(frameKey(f)) || t.ctx.framesJudged.has(frameKey(f))) continue;
      judged++;
      const wire = [...(requests.has(key) ? [requests.get(key)!] : []), f];
      const required = isObject(error.data) ? error.data.requiredCapabilities : undefined;
      t.expect(isObject(required) && Object.keys(required).length > 0, {
        expected: 'a -32021 error whose data.requiredCapabilities lists the missing capabilities',
        actual: `data ${show(error.data)}`,
        wire,
      });
      if (f.http) {
        t.expect(f.http.status === 400, {
          expected: 'HTTP status 400 Bad Request for a -32021 error',
          actual: `HTTP status ${show(f.http.status)}`,
          wire,
        });
      }
    }
  }
  return judged;
}

/** The configured capabilityTool, called with no client capabilities: -32021 naming what it needs, and nothing relied on. */
async function ownCapabilityCall(t: Probe, tool: NonNullable<Config['capabilityTool']>): Promise<void> {
  {
    const ex = await attempt(t.session, 'tools/call', { name: tool.name, arguments: tool.arguments ?? {} }, { meta: { capabilities: {} } });
    if (typeof ex === 'string') {
      t.expect(false, { expected: 'JSON-RPC error -32021', actual: ex });
      return;
    }
    const relied = reliedOn(ex);
    if (relied.length > 0) {
      t.expect(false, {
        expected: `tools/call ${tool.name} with no client capabilities: nothing asked of a capability the client did not declare (JSON-RPC error -32021 naming it)`,
        actual: `input_required asking for ${relied.join(', ')}`,
        wire: ex,
        part: 'not-relied-on',
      });
      return;
    }
    if (
      !t.expect(ex.error?.code === MISSING_CAPABILITY, {
        expected: `tools/call ${tool.name} with no client capabilities: JSON-RPC error -32021`,
        actual: describeAnswer(ex),
        wire: ex,
      })
    )
      return;
    const required = (ex.error!.data as JsonObject | undefined)?.requiredCapabilities as JsonObject | undefined;
    t.note('requiredCapabilities', required);
    const missing = tool.requires.filter((c) => !(required && typeof required === 'object' && c in required));
    t.expect(missing.length === 0, {
      expected: `data.requiredCapabilities naming ${tool.requires.join(', ')}`,
      actual: `data ${show(ex.error!.data)}`,
      wire: ex,
    });
    expectBadRequest(t, ex);
  }
}

/** What an input_required answer asks of the client that a request declaring no capabilities cannot give: `key (method)`. */
function reliedOn(ex: Exchange): string[] {
  const requests = isInputRequired(ex) ? ex.result!.inputRequests : undefined;
  if (!isObject(requests)) return [];
  return Object.entries(requests)
    .filter(([, r]) => {
      const needs = capabilityNeeded(r);
      return needs !== undefined && !capabilityDeclared(declaredCapabilities(ex), needs);
    })
    .map(([key, r]) => `inputRequests.${key} (${show((r as JsonObject).method)})`);
}

export const metaChecks = [requiredFields, clientInfoOptional, missingCapability];

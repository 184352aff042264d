/**
 * The error-code policy of basic/index "Error Codes", watched on every error
 * response the server sent in the run. Error responses to tools/call are
 * tools-call/error-response's (it judges their ids, integer codes, the
 * MCP sub-range and -32002); this check judges every other one.
 */
import { ERROR_CODES, inMcpReservedRange, MCP_DEFINED_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';
import { defineCheck, show } from './check.js';
import { SHOWN } from './violations.js';
import { inboundMessages } from './wire-messages.js';

const SECTION = { revision: 'draft', page: 'basic/index', section: 'Error Codes' } as const;

/** The schema definition of each code the MCP specification defines: what "its specified meaning" looks like on the wire. */
const DEFINITION: Record<number, string> = {
  [ERROR_CODES.HEADER_MISMATCH]: 'HeaderMismatchError',
  [ERROR_CODES.MISSING_CAPABILITY]: 'MissingRequiredClientCapabilityError',
  [ERROR_CODES.UNSUPPORTED_VERSION]: 'UnsupportedProtocolVersionError',
};

/** Codes of earlier protocol versions this one must not emit. */
const RETIRED = new Map<number, string>([
  [ERROR_CODES.RETIRED_RESOURCE_NOT_FOUND, 'resource not found, replaced by -32602'],
  [ERROR_CODES.RETIRED_URL_ELICITATION_REQUIRED, 'URL elicitation required (2025-11-25 only)'],
]);

/** The JSON-RPC 2.0 codes MCP uses for general protocol failures. */
const JSON_RPC = new Set<number>([
  ERROR_CODES.PARSE_ERROR,
  ERROR_CODES.INVALID_REQUEST,
  ERROR_CODES.METHOD_NOT_FOUND,
  ERROR_CODES.INVALID_PARAMS,
  ERROR_CODES.INTERNAL_ERROR,
]);

export const errorCodes = defineCheck({
  id: 'error-codes/reserved-range',
  title: 'every error code is a defined one, used with its meaning, or one outside the reserved range',
  level: 'MUST',
  spec: SECTION,
  quote:
    'Implementations MUST NOT emit any code from this sub-range that is not defined by this specification and MUST use defined codes only with their specified meanings.',
  parts: {
    retired: {
      level: 'MUST',
      spec: SECTION,
      quote:
        'Codes defined by earlier protocol versions remain reserved and will not be reused. Implementations of this protocol version MUST NOT emit these codes: -32002 — resource not found (2025-11-25 and earlier; replaced by -32602). … -32042 — URL elicitation required (2025-11-25 only).',
    },
    custom: {
      level: 'SHOULD',
      spec: SECTION,
      quote:
        'New codes MUST NOT be allocated in this sub-range, and new implementations SHOULD NOT use codes from this sub-range at all. … New error codes for purposes not defined by this specification SHOULD be allocated outside the JSON-RPC reserved range (-32768 to -32000); the remainder of the integer space is available for application-defined errors.',
    },
  },
  observer: true,
  async run(t) {
    const errors = inboundMessages(t).filter((m) => m.kind === 'error' && m.method !== 'tools/call');
    t.note('error responses judged', errors.length);
    if (errors.length === 0)
      return t.notObserved('the server sent no error response (other than to tools/call, judged by tools-call/error-response)');
    // One finding per distinct fault (rule and code), the first response as its evidence, with how often it came.
    const faults = new Map<string, { e: Parameters<typeof t.expect>[1]; count: number }>();
    const report = (key: string, e: Parameters<typeof t.expect>[1]) => {
      const seen = faults.get(key);
      if (seen) seen.count++;
      else faults.set(key, { e, count: 1 });
    };
    for (const { msg, frame, method } of errors) {
      const error = msg.error as JsonObject | undefined;
      const code = error?.code;
      if (typeof code !== 'number' || !Number.isInteger(code)) continue; // not an integer: the schema check's finding
      const answered = method ? `the error to ${method}` : 'an error response';
      const what = `${answered}: code ${code} ${show(error?.message, 120)}`;
      const retired = RETIRED.get(code);
      if (retired) {
        report(`retired ${code}`, {
          expected: `no code of an earlier protocol version (${code}: ${retired})`,
          actual: what,
          wire: [frame],
          part: 'retired',
        });
        continue;
      }
      const def = DEFINITION[code];
      if (def) {
        const problems = t.ctx.protocolSchema.validate(def, msg);
        if (problems.length) {
          report(`meaning ${code}`, {
            expected: `code ${code} used as ${def} of the ${t.ctx.revision} schema`,
            actual: `${what}: ${problems.join('; ')}`,
            wire: [frame],
          });
        }
        continue;
      }
      if (inMcpReservedRange(code)) {
        report(`undefined ${code}`, {
          expected: `no code from -32020..-32099 but those the specification defines (${[...MCP_DEFINED_CODES].join(', ')})`,
          actual: what,
          wire: [frame],
        });
        continue;
      }
      if (code >= -32768 && code <= -32000 && !JSON_RPC.has(code)) {
        report(`custom ${code}`, {
          expected: 'a JSON-RPC 2.0 code, a code MCP defines, or an application code outside -32768..-32000',
          actual: what,
          wire: [frame],
          part: 'custom',
        });
      }
    }
    for (const { e, count } of [...faults.values()].slice(0, SHOWN)) {
      t.expect(false, { ...e, actual: count > 1 ? `${e.actual} (${count} such error responses in the run)` : e.actual });
    }
    if (faults.size > SHOWN) t.note('further faults', faults.size - SHOWN);
  },
});

export const errorCodeChecks = [errorCodes];

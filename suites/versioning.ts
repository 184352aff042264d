/**
 * Protocol version negotiation on every request (basic/versioning).
 */
import { ERROR_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';
import { defineCheck, describeAnswer, show } from './check.js';
import { attempt, expectBadRequest, probeMethods } from './requests.js';

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

export const versioningChecks = [unsupportedVersion];

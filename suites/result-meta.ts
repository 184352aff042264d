/**
 * `_meta` on everything the server sent (basic/index "_meta"): the server's
 * identity in every result (server/discover's is discover/server-info's),
 * and well-formed key names, with W3C trace context where present.
 */
import { META } from '../harness/protocol.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { defineCheck, show } from './check.js';
import { SHOWN } from './violations.js';
import { inboundMessages } from './wire-messages.js';

const SECTION = { revision: 'draft', page: 'basic/index', section: '_meta' } as const;
const LEGACY_SECTION = { revision: '2025-11-25', page: 'basic/index', section: '_meta' } as const;

export const serverInfo = defineCheck({
  id: 'result-meta/server-info',
  title: 'every result names the server in _meta serverInfo',
  level: 'SHOULD',
  spec: SECTION,
  quote:
    "Servers SHOULD include the following io.modelcontextprotocol/* field in every result's _meta, unless specifically configured not to do so, to identify themselves without relying on any prior connection state:",
  observer: true,
  async run(t) {
    // server/discover's is discover/server-info's; an initialize result (a probe of the legacy era) is no result of this era.
    const results = inboundMessages(t).filter((m) => m.kind === 'result' && m.method !== 'server/discover' && m.method !== 'initialize');
    t.note('results judged', results.length);
    if (results.length === 0)
      return t.notObserved('the server sent no result other than to server/discover (judged by discover/server-info)');
    const missing = new Map<string, { count: number; frame: WireFrame }>();
    for (const { msg, frame, method } of results) {
      const meta = (msg.result as JsonObject | undefined)?._meta as JsonObject | undefined;
      if (typeof meta === 'object' && meta !== null && meta[META.serverInfo] !== undefined) continue;
      const key = method ?? '(a request not in the log)';
      const seen = missing.get(key);
      if (seen) seen.count++;
      else missing.set(key, { count: 1, frame });
    }
    for (const [method, { count, frame }] of [...missing].slice(0, SHOWN)) {
      t.expect(false, {
        expected: `_meta["${META.serverInfo}"] in every result`,
        actual: `${count} result(s) to ${method} without it`,
        wire: [frame],
      });
    }
  },
});

/** A prefix label: a letter first, a letter or digit last, letters, digits and hyphens between. */
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const PREFIX = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
/** A name: empty, or alphanumerics at both ends with hyphens, underscores, dots and alphanumerics between. */
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
/** W3C Trace Context `traceparent`: version, trace id, parent id, flags (lower-case hex; the ids not all zero). */
const TRACEPARENT = /^([0-9a-f]{2})-((?!0{32})[0-9a-f]{32})-((?!0{16})[0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** What is wrong with one `_meta` key (undefined when nothing). */
export function keyProblem(key: string): { part?: 'name'; why: string } | undefined {
  const slash = key.lastIndexOf('/');
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (!PREFIX.test(prefix))
      return {
        why: `prefix ${show(`${prefix}/`)} is not dot-separated labels (each starting with a letter, ending with a letter or digit)`,
      };
  }
  const name = key.slice(slash + 1);
  if (!NAME.test(name)) return { part: 'name', why: `name ${show(name)} does not begin and end with an alphanumeric character` };
  return undefined;
}

/** Every `_meta` object in a message, with its JSON pointer. */
function metaObjects(
  value: unknown,
  pointer = '',
  out: Array<{ at: string; meta: JsonObject }> = [],
  depth = 0,
): Array<{ at: string; meta: JsonObject }> {
  if (typeof value !== 'object' || value === null || depth > 64) return out;
  if (Array.isArray(value)) {
    value.forEach((v, i) => metaObjects(v, `${pointer}/${i}`, out, depth + 1));
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (k === '_meta' && typeof v === 'object' && v !== null && !Array.isArray(v)) out.push({ at, meta: v as JsonObject });
    metaObjects(v, at, out, depth + 1);
  }
  return out;
}

export const keyNames = defineCheck({
  id: 'result-meta/key-names',
  title: '_meta key names are well-formed; trace context follows W3C',
  level: 'MUST',
  spec: SECTION,
  quote:
    'If specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (-).',
  legacy: { spec: LEGACY_SECTION },
  parts: {
    name: {
      level: 'MUST',
      spec: SECTION,
      quote: 'Unless empty, MUST begin and end with an alphanumeric character ([a-z0-9A-Z]).',
      legacy: { spec: LEGACY_SECTION },
    },
    trace: {
      level: 'MUST',
      spec: SECTION,
      quote: 'When present, their values MUST follow W3C Trace Context and W3C Baggage formats respectively.',
    },
  },
  observer: true,
  async run(t) {
    let judged = 0;
    // One finding per distinct key (or trace value), the first message as its evidence.
    const faults = new Map<
      string,
      { finding: { part?: 'name' | 'trace'; expected: string; actual: string }; frame: WireFrame; count: number }
    >();
    for (const { msg, frame } of inboundMessages(t)) {
      for (const { at, meta } of metaObjects(msg)) {
        for (const [key, value] of Object.entries(meta)) {
          judged++;
          const problem = keyProblem(key);
          let finding: { part?: 'name' | 'trace'; expected: string; actual: string } | undefined;
          if (problem)
            finding = { part: problem.part, expected: `${at}: well-formed _meta key names`, actual: `key ${show(key)}: ${problem.why}` };
          else if (
            key === 'traceparent' &&
            t.ctx.era === 'modern' &&
            (typeof value !== 'string' || !TRACEPARENT.test(value) || value.startsWith('ff'))
          ) {
            finding = {
              part: 'trace',
              expected: `${at}/traceparent in the W3C Trace Context format (00-<32 hex>-<16 hex>-<2 hex>)`,
              actual: `traceparent ${show(value)}`,
            };
          } else if ((key === 'tracestate' || key === 'baggage') && t.ctx.era === 'modern' && typeof value !== 'string') {
            finding = {
              part: 'trace',
              expected: `${at}/${key}: a ${key === 'baggage' ? 'W3C Baggage' : 'W3C Trace Context'} header string`,
              actual: `${key} ${show(value)}`,
            };
          }
          if (!finding) continue;
          const seen = faults.get(finding.actual);
          if (seen) seen.count++;
          else faults.set(finding.actual, { finding, frame, count: 1 });
        }
      }
    }
    for (const { finding, frame, count } of [...faults.values()].slice(0, SHOWN)) {
      t.expect(false, {
        expected: finding.expected,
        actual: count > 1 ? `${finding.actual} (in ${count} places in the run)` : finding.actual,
        wire: [frame],
        ...(finding.part ? { part: finding.part } : {}),
      });
    }
    // Like every wire-wide rule: nothing the server sent broke it (a server may send no _meta key at all).
    t.note('_meta keys judged', judged);
  },
});

export const resultMetaChecks = [serverInfo, keyNames];

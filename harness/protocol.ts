/**
 * What a modern (2026-07-28 and later) client puts on every request: the
 * per-request `_meta` fields of basic/index "_meta", and the `x-mcp-header`
 * parameter mirroring of basic/transports/streamable-http.
 */
import { isObject } from '../model/json.js';

export const CLIENT_INFO = { name: 'mcp-conformance', version: '0.1.0' } as const;

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** How one request's `_meta` differs from the default. */
export interface MetaOptions {
  /** Client capabilities declared on this request (default: none, `{}`). */
  capabilities?: Record<string, unknown>;
  /** Protocol version to declare (default: the run's revision). */
  protocolVersion?: string;
  /** Client identity to declare (default: this suite's). */
  clientInfo?: { name: string; version: string };
  /** Leave these required or optional fields out (adversarial probes). */
  omit?: Array<'protocolVersion' | 'clientCapabilities' | 'clientInfo'>;
  /** Send no `_meta` at all. */
  none?: boolean;
}

/** The protocol version string a revision puts on the wire. */
export function wireVersion(revision: string): string {
  return revision === 'draft' ? '2026-07-28' : revision;
}

export function buildMeta(version: string, opts: MetaOptions = {}): Record<string, unknown> | undefined {
  if (opts.none) return undefined;
  const meta: Record<string, unknown> = {
    [META.protocolVersion]: opts.protocolVersion ?? version,
    [META.clientInfo]: opts.clientInfo ?? CLIENT_INFO,
    [META.clientCapabilities]: opts.capabilities ?? {},
  };
  for (const key of opts.omit ?? []) delete meta[META[key]];
  return meta;
}

/** One `x-mcp-header` annotation found anywhere in an inputSchema. */
export interface HeaderAnnotation {
  /** The annotation's value (the `{name}` of `Mcp-Param-{name}`). */
  value: unknown;
  /** JSON pointer of the schema object carrying it. */
  pointer: string;
  /** The chain of `properties` keys, when statically reachable from the root. */
  path?: string[];
  /** When not statically reachable: the first keyword other than `properties` on the way to it (e.g. `items`, `anyOf`, `$defs`). */
  via?: string;
  /** The annotated schema (its `type`, `enum`, `const`, bounds). */
  schema: Record<string, unknown>;
  /** The `type` of the annotated schema. */
  type: unknown;
}

/** Keywords whose values are instance data, not subschemas: an `x-mcp-header` key inside them is no annotation. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Every `x-mcp-header` annotation in `schema`, reachable or not. */
export function findHeaderAnnotations(schema: unknown): HeaderAnnotation[] {
  const out: HeaderAnnotation[] = [];
  const seen = new Set<unknown>();
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const walk = (node: unknown, pointer: string, path: string[] | undefined, via: string | undefined, depth: number) => {
    if (typeof node !== 'object' || node === null || seen.has(node) || depth > 64) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${pointer}/${i}`, undefined, via, depth + 1));
      return;
    }
    const obj = node as Record<string, unknown>;
    if ('x-mcp-header' in obj) {
      out.push({ value: obj['x-mcp-header'], pointer: pointer || '/', path, ...(path ? {} : { via }), schema: obj, type: obj.type });
    }
    for (const [key, child] of Object.entries(obj)) {
      if (DATA_KEYWORDS.has(key)) continue;
      const childPointer = `${pointer}/${escape(key)}`;
      if (key === 'properties' && isObject(child)) {
        for (const [prop, sub] of Object.entries(child as Record<string, unknown>)) {
          walk(sub, `${childPointer}/${escape(prop)}`, path ? [...path, prop] : undefined, via, depth + 1);
        }
      } else {
        walk(child, childPointer, undefined, via ?? key, depth + 1);
      }
    }
  };
  walk(schema, '', [], undefined, 0);
  return out;
}

/** RFC 9110 token: 1*tchar. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `Mcp-Param-*` headers for a tools/call, from the tool's valid annotations. */
export function mirrorHeaders(annotations: HeaderAnnotation[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const a of annotations) {
    if (!a.path || typeof a.value !== 'string' || !TOKEN.test(a.value)) continue;
    let v: unknown = args;
    for (const key of a.path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
    if (v === undefined || v === null) continue;
    let text: string;
    if (typeof v === 'string') text = v;
    else if (typeof v === 'number' && Number.isInteger(v)) text = String(v);
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else continue;
    headers[`Mcp-Param-${a.value}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** Values that are not plain visible ASCII are carried in the spec's Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(value);
  const looksEncoded = value.startsWith('=?base64?') && value.endsWith('?=');
  if (plain && !looksEncoded) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * Deterministic example values for a JSON Schema: the one generator behind
 * tool arguments the suite may call with, and elicitation form answers.
 * The value is built from the schema's own hints (const, enum, default,
 * format, bounds), then confirmed valid with ajv in the schema's dialect;
 * a schema the generator cannot satisfy is reported, never guessed at.
 */
import { checkJsonSchema } from './jsonschema.js';

export interface ExampleOptions {
  /** Fill optional properties too (a form the user filled in full), not only the required ones. */
  optional?: boolean;
}

export type Example = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The largest value the generator builds. A schema from a server may ask for
 * `minItems: 1e9` or `minLength: 1e12`; such a value is reported, never built.
 */
export const GENERATION_LIMITS = { maxStringLength: 65_536, maxItems: 1000, maxValues: 10_000 } as const;

class GenerationLimit extends Error {}

/** Values built by the current `validExample` call. */
let produced = 0;

/** A value valid against `schema`, or why none could be produced. */
export function validExample(schema: unknown, opts: ExampleOptions = {}): Example {
  const compiled = checkJsonSchema(schema);
  if (!compiled.ok || !compiled.validate) return { ok: false, problem: `not a usable JSON Schema: ${compiled.errors.join('; ')}` };
  let value: unknown;
  produced = 0;
  try {
    value = exampleValue(schema, opts);
  } catch (err) {
    if (err instanceof GenerationLimit)
      return { ok: false, problem: `the schema asks for a value beyond the generator's bounds: ${err.message}` };
    throw err;
  }
  if (compiled.validate(value)) return { ok: true, value };
  const why = (compiled.validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
  const shown = JSON.stringify(value) ?? String(value);
  return { ok: false, problem: `the generated value ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown} is not valid: ${why}` };
}

type S = Record<string, unknown>;

/** The generated value, unchecked (use `validExample` to have it confirmed). */
export function exampleValue(schema: unknown, opts: ExampleOptions = {}, root: unknown = schema, depth = 0): unknown {
  if (++produced > GENERATION_LIMITS.maxValues) throw new GenerationLimit(`more than ${GENERATION_LIMITS.maxValues} values`);
  if (schema === true || schema === undefined) return null;
  if (typeof schema !== 'object' || schema === null || depth > 32) return null;
  const s = schema as S;
  const again = (sub: unknown) => exampleValue(sub, opts, root, depth + 1);
  if (typeof s.$ref === 'string') {
    const target = resolveLocalRef(root, s.$ref);
    if (target !== undefined) return again(target);
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s) return s.default;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0 && s.type === undefined) return again(branches[0]);
    // A titled single-select enum: `type: "string"` with `oneOf: [{ const, title }]`.
    if (Array.isArray(branches) && branches.length > 0 && typeof (branches[0] as S)?.const !== 'undefined') {
      return (branches[0] as S).const;
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0 && s.type === undefined) {
    return again(Object.assign({}, ...(s.allOf as S[]).filter((x) => typeof x === 'object' && x !== null)));
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object':
      return objectValue(s, opts, again);
    case 'array':
      return arrayValue(s, again);
    case 'string':
      return stringValue(s);
    case 'integer':
      return numberValue(s, true);
    case 'number':
      return numberValue(s, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      if (s.properties !== undefined || s.required !== undefined) return objectValue(s, opts, again);
      return null;
  }
}

function objectValue(s: S, opts: ExampleOptions, again: (sub: unknown) => unknown): Record<string, unknown> {
  const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as S;
  const required = Array.isArray(s.required) ? (s.required as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  const out: Record<string, unknown> = {};
  const keys = opts.optional ? [...new Set([...Object.keys(props), ...required])] : required;
  for (const key of keys) out[key] = again(props[key]);
  return out;
}

function arrayValue(s: S, again: (sub: unknown) => unknown): unknown[] {
  const min = typeof s.minItems === 'number' ? s.minItems : 0;
  if (min > GENERATION_LIMITS.maxItems)
    throw new GenerationLimit(`minItems ${min} (at most ${GENERATION_LIMITS.maxItems} items are built)`);
  const items = s.items as S | undefined;
  // A multi-select enum: distinct choices, as many as asked for (at least one).
  const choices = Array.isArray(items?.enum)
    ? (items!.enum as unknown[])
    : Array.isArray(items?.anyOf)
      ? (items!.anyOf as S[]).map((b) => b?.const)
      : undefined;
  if (choices && choices.length > 0) return choices.slice(0, Math.max(1, min));
  return Array.from({ length: min }, () => again(items));
}

const FORMATS: Record<string, string> = {
  email: 'user@example.com',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  url: 'https://example.com/',
  date: '2024-01-01',
  'date-time': '2024-01-01T00:00:00Z',
  time: '00:00:00Z',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

function stringValue(s: S): string {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  let text = format ?? 'example';
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  if (min > GENERATION_LIMITS.maxStringLength) {
    throw new GenerationLimit(`minLength ${min} (strings of at most ${GENERATION_LIMITS.maxStringLength} characters are built)`);
  }
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  if (text.length < min) text = text + 'x'.repeat(min - text.length);
  if (text.length > max) text = text.slice(0, Math.max(0, max));
  return text;
}

function numberValue(s: S, integer: boolean): number {
  const lo =
    typeof s.minimum === 'number'
      ? s.minimum
      : typeof s.exclusiveMinimum === 'number'
        ? s.exclusiveMinimum + (integer ? 1 : 0.5)
        : undefined;
  const hi =
    typeof s.maximum === 'number'
      ? s.maximum
      : typeof s.exclusiveMaximum === 'number'
        ? s.exclusiveMaximum - (integer ? 1 : 0.5)
        : undefined;
  // Whole numbers where the bounds allow (an elicitation answer carries integers, not fractions).
  let n = lo !== undefined ? Math.ceil(lo) : hi !== undefined ? Math.min(1, Math.floor(hi)) : 1;
  if (!integer && lo !== undefined && hi !== undefined && n > hi) n = lo;
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step) n = Math.ceil(n / step) * step;
  return n;
}

function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as S)[key];
  }
  return node;
}

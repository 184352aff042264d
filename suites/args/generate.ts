/**
 * Valid arguments from a tool's inputSchema.
 *
 * fast-check arbitraries are built for the keywords real tool schemas use:
 * object (properties, required, additionalProperties), string (minLength,
 * maxLength, pattern, format, enum, const), number and integer (bounds,
 * multipleOf), boolean, null, arrays (items, prefixItems, draft-07 tuple
 * `items`, minItems, maxItems, uniqueItems), local `$ref` / `$defs`, anyOf,
 * oneOf, allOf and type unions. Every value is confirmed against the schema
 * with ajv (in the schema's own dialect) before it can be sent. When the
 * arbitraries do not cover a schema, or too few of their values validate,
 * json-schema-faker is tried instead, still confirmed by ajv; when neither
 * gives enough valid candidates, there is no "valid" call to make and the
 * plan says why.
 */
import fc from 'fast-check';
import { generateSync } from 'json-schema-faker';
import { atPointer, compileSchema, localRef, type CompiledSchema, type SchemaNode } from './schema.js';
import { isCatastrophic, REGEX_BUDGET_MS, screenPattern, showPattern } from '../../harness/regex.js';
import { VerdictSignal } from '../check.js';
import { edgeArguments } from './edges.js';
import { canonical, isObject } from '../../model/json.js';

/** Candidates sampled to measure how many values satisfy the schema. */
export const SAMPLE_SIZE = 60;
/** Fewer valid candidates than this share of the sample: the generator is not good enough. */
export const MIN_ACCEPTANCE = 0.1;

export type Source = 'arbitraries' | 'json-schema-faker';

export type ValidPlan =
  | {
      ok: true;
      arb: fc.Arbitrary<unknown>;
      source: Source;
      acceptance: number;
      schema: CompiledSchema;
      /** Edge-value calls, tried before the random ones (edges.ts). */
      edges: unknown[];
    }
  | { ok: false; reason: string; invalidSchema?: true };

/** Why the arbitraries cannot build a schema; the faker fallback is tried instead. */
export class Uncovered extends Error {}

/** Keywords that constrain values in ways the arbitraries do not model; the faker is tried for them. */
const UNCOVERED_KEYWORDS = [
  'not',
  'if',
  'contains',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
];

const MAX_REF_DEPTH = 6;
/** Arrays and optional strings stay small: calls are for real tools. */
const DEFAULT_MAX_ITEMS = 4;
const DEFAULT_MAX_LENGTH = 24;

interface Ctx {
  root: Record<string, unknown>;
  draft07: boolean;
  depth: number;
}

/** A plan for generating valid arguments: confirmed-valid values, or why there are none. */
export function validArguments(inputSchema: unknown, seed: number): ValidPlan {
  const schema = compileSchema(inputSchema);
  if ('problem' in schema) return { ok: false, reason: schema.problem, invalidSchema: true };
  // A pattern the screen refuses is never given to a generator, a mutator or a shrinker.
  for (const pattern of patternsIn(schema.root)) {
    const why = screenPattern(pattern);
    if (why) return { ok: false, reason: `no arguments are generated for this inputSchema: ${why}` };
  }
  const tried: string[] = [];

  let built: fc.Arbitrary<unknown> | undefined;
  try {
    built = arbitraryFor(schema.root, {
      root: schema.root,
      draft07: schema.dialect === 'draft-07' || schema.dialect === 'draft-06',
      depth: 0,
    });
  } catch (err) {
    tried.push(`the arbitraries do not cover it (${(err as Error).message})`);
  }
  if (built) {
    const rate = acceptance(built, schema, seed);
    if (rate >= MIN_ACCEPTANCE) {
      const arb = built.filter(confirmer(schema));
      return { ok: true, arb, source: 'arbitraries', acceptance: rate, schema, edges: edgeArguments(schema, arb, seed) };
    }
    tried.push(`${Math.round(rate * SAMPLE_SIZE)} of ${SAMPLE_SIZE} values from the arbitraries satisfied it`);
  }
  const faked = fakerArbitrary(schema.root);
  const rate = acceptance(faked, schema, seed);
  if (rate >= MIN_ACCEPTANCE) {
    const arb = faked.filter(confirmer(schema));
    return { ok: true, arb, source: 'json-schema-faker', acceptance: rate, schema, edges: edgeArguments(schema, arb, seed) };
  }
  tried.push(`${Math.round(rate * SAMPLE_SIZE)} of ${SAMPLE_SIZE} values from json-schema-faker satisfied it`);
  return {
    ok: false,
    reason: `too few generated candidates satisfy the inputSchema to make valid calls (${tried.join('; ')}); no value that fails the schema is ever sent as valid`,
  };
}

/** Every `pattern` and `patternProperties` key in a schema (walked without recursion; the schema is already bounded in size). */
export function patternsIn(root: unknown): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isObject(node)) continue;
    if (typeof node.pattern === 'string') out.add(node.pattern);
    if (isObject(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) out.add(key);
    for (const v of Object.values(node)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  return [...out];
}

/** Generated values in a row that may fail the schema before drawing gives up. */
export const MAX_MISSES = 2000;

/**
 * The ajv confirmation every drawn value passes, bounded: fast-check's filter
 * draws until a value passes, so a schema that stops admitting generated
 * values mid-run (a pattern that overran its matching budget now fails every
 * long input at once) would spin for ever. Past MAX_MISSES rejections in a
 * row the check ends not-observed, naming the pattern when one overran.
 */
function confirmer(schema: CompiledSchema): (v: unknown) => boolean {
  const patterns = patternsIn(schema.root);
  let misses = 0;
  return (v) => {
    if (schema.valid(v)) {
      misses = 0;
      return true;
    }
    if (++misses >= MAX_MISSES) {
      misses = 0;
      const over = patterns.find((p) => isCatastrophic(p));
      throw new VerdictSignal(
        'not-observed',
        over !== undefined
          ? `no more valid arguments can be confirmed: pattern ${showPattern(over)} overran the ${REGEX_BUDGET_MS} ms matching budget (catastrophic backtracking)`
          : `${MAX_MISSES} generated values in a row failed the inputSchema: the generator stalled`,
      );
    }
    return false;
  };
}

function acceptance(arb: fc.Arbitrary<unknown>, schema: CompiledSchema, seed: number): number {
  let valid = 0;
  try {
    for (const v of fc.sample(arb, { seed, numRuns: SAMPLE_SIZE })) if (v !== undefined && schema.valid(v)) valid++;
  } catch {
    return 0;
  }
  return valid / SAMPLE_SIZE;
}

/** json-schema-faker as an arbitrary: the fast-check integer is the faker's seed. */
function fakerArbitrary(root: Record<string, unknown>): fc.Arbitrary<unknown> {
  const draft07 = typeof root.$schema === 'string' && /draft-0[67]/.test(root.$schema);
  return fc.integer({ min: 1, max: 0x7fffffff }).map((seed) => {
    try {
      return generateSync(root as never, {
        seed,
        maxDepth: MAX_REF_DEPTH,
        maxDefaultItems: DEFAULT_MAX_ITEMS,
        refDepthMax: 3,
        ...(draft07 ? { propAliases: { definitions: '$defs' } } : {}),
      });
    } catch {
      return undefined;
    }
  });
}

// ---- the arbitraries ----

/** An arbitrary for the values of `node`; throws Uncovered for what it cannot model. */
export function arbitraryFor(node: SchemaNode, ctx: Ctx): fc.Arbitrary<unknown> {
  if (node === true) return anyJson();
  if (node === false) throw new Uncovered('a false schema admits no value');
  if (!isObject(node)) throw new Uncovered('a schema that is not an object');
  let s = node;

  if (s.$ref !== undefined) {
    const pointer = localRef(s.$ref);
    if (pointer === undefined) throw new Uncovered(`$ref ${JSON.stringify(s.$ref)} is not a local JSON pointer`);
    if (ctx.depth >= MAX_REF_DEPTH) throw new Uncovered('$ref nests deeper than the arbitraries follow');
    const target = atPointer(ctx.root, pointer);
    if (target === undefined) throw new Uncovered(`$ref ${JSON.stringify(s.$ref)} does not resolve`);
    const { $ref: _ref, ...rest } = s;
    const inner = { ...ctx, depth: ctx.depth + 1 };
    // draft-07 ignores keywords beside $ref; 2019-09 and later apply both.
    if (ctx.draft07 || Object.keys(rest).every((k) => ANNOTATIONS.has(k))) return arbitraryFor(target as SchemaNode, inner);
    return arbitraryFor({ allOf: [target, rest] }, inner);
  }
  for (let i = 0; Array.isArray(s.allOf); i++) {
    if (i >= MAX_REF_DEPTH) throw new Uncovered('allOf nests deeper than the arbitraries follow');
    s = mergeAll([withoutKey(s, 'allOf'), ...s.allOf.map((x) => deref(x, ctx))]);
  }
  for (const k of UNCOVERED_KEYWORDS) if (k in s) throw new Uncovered(`keyword ${k}`);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) {
    if (s.enum.length === 0) throw new Uncovered('an empty enum');
    return fc.constantFrom(...s.enum);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const base = withoutKey(s, key);
      return fc.oneof(...branches.map((b) => arbitraryFor(mergeAll([base, deref(b, ctx)]), ctx)));
    }
  }
  const types = typesOf(s);
  if (types.length === 0) throw new Uncovered('no type admits a value');
  const arbs = types.map((t) => forType(t, s, ctx));
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);

const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

function typesOf(s: Record<string, unknown>): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  if ('properties' in s || 'required' in s || 'additionalProperties' in s || 'patternProperties' in s) return ['object'];
  if ('items' in s || 'prefixItems' in s || 'minItems' in s || 'maxItems' in s) return ['array'];
  if ('minLength' in s || 'maxLength' in s || 'pattern' in s || 'format' in s) return ['string'];
  if ('minimum' in s || 'maximum' in s || 'exclusiveMinimum' in s || 'exclusiveMaximum' in s || 'multipleOf' in s) return ['number'];
  return JSON_TYPES;
}

function forType(type: string, s: Record<string, unknown>, ctx: Ctx): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integers(s);
    case 'number':
      return numbers(s);
    case 'string':
      return strings(s);
    case 'array':
      return arrays(s, ctx);
    case 'object':
      return objects(s, ctx);
    default:
      throw new Uncovered(`type ${JSON.stringify(type)}`);
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function bounds(s: Record<string, unknown>): { min?: number; max?: number; minExcluded: boolean; maxExcluded: boolean } {
  let min = num(s.minimum);
  let max = num(s.maximum);
  let minExcluded = false;
  let maxExcluded = false;
  const emin = num(s.exclusiveMinimum);
  const emax = num(s.exclusiveMaximum);
  if (emin !== undefined && (min === undefined || emin >= min)) [min, minExcluded] = [emin, true];
  if (emax !== undefined && (max === undefined || emax <= max)) [max, maxExcluded] = [emax, true];
  return { min, max, minExcluded, maxExcluded };
}

const INT_LIMIT = 2 ** 31;

function integers(s: Record<string, unknown>): fc.Arbitrary<number> {
  const b = bounds(s);
  let min = b.min === undefined ? -INT_LIMIT : b.minExcluded ? Math.floor(b.min) + 1 : Math.ceil(b.min);
  let max = b.max === undefined ? INT_LIMIT - 1 : b.maxExcluded ? Math.ceil(b.max) - 1 : Math.floor(b.max);
  min = Math.max(min, Number.MIN_SAFE_INTEGER);
  max = Math.min(max, Number.MAX_SAFE_INTEGER);
  if (min > max) throw new Uncovered('integer bounds admit no value');
  const m = num(s.multipleOf);
  if (m !== undefined && m > 0 && Number.isInteger(m)) {
    const kmin = Math.ceil(min / m);
    const kmax = Math.floor(max / m);
    if (kmin > kmax) throw new Uncovered('no multiple of multipleOf lies within the bounds');
    return fc.integer({ min: kmin, max: kmax }).map((k) => k * m);
  }
  return fc.integer({ min, max });
}

function numbers(s: Record<string, unknown>): fc.Arbitrary<number> {
  const b = bounds(s);
  const m = num(s.multipleOf);
  if (m !== undefined && m > 0) {
    const lo = b.min === undefined ? -1e6 : b.min;
    const hi = b.max === undefined ? 1e6 : b.max;
    const kmin = Math.ceil(lo / m);
    const kmax = Math.floor(hi / m);
    if (kmin > kmax) throw new Uncovered('no multiple of multipleOf lies within the bounds');
    return fc.integer({ min: Math.max(kmin, -INT_LIMIT), max: Math.min(kmax, INT_LIMIT) }).map((k) => k * m);
  }
  const doubles = fc.double({
    ...(b.min !== undefined ? { min: b.min, minExcluded: b.minExcluded } : {}),
    ...(b.max !== undefined ? { max: b.max, maxExcluded: b.maxExcluded } : {}),
    noNaN: true,
    noDefaultInfinity: true,
  });
  // Whole numbers are what most callers send; keep them common.
  const lo = b.min === undefined ? -INT_LIMIT : Math.ceil(b.min) + (b.minExcluded && Number.isInteger(b.min) ? 1 : 0);
  const hi = b.max === undefined ? INT_LIMIT : Math.floor(b.max) - (b.maxExcluded && Number.isInteger(b.max) ? 1 : 0);
  if (lo > hi) return doubles;
  return fc.oneof(fc.integer({ min: Math.max(lo, -INT_LIMIT), max: Math.min(hi, INT_LIMIT) }), doubles);
}

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () => isoDates().map((d) => d.toISOString()),
  date: () => isoDates().map((d) => d.toISOString().slice(0, 10)),
  time: () => isoDates().map((d) => `${d.toISOString().slice(11, 19)}Z`),
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  'uri-reference': () => fc.webUrl(),
  iri: () => fc.webUrl(),
  uuid: () => fc.uuid(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  hostname: () => fc.domain(),
  byte: () => fc.base64String({ maxLength: 64 }),
};

function isoDates(): fc.Arbitrary<Date> {
  return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true });
}

/*
 * No arbitrary here filters its own values (a filter nothing passes would
 * never return): values that miss a bound are dropped by the one ajv
 * confirmation, whose acceptance is measured before anything is drawn.
 */

function strings(s: Record<string, unknown>): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = num(s.maxLength) ?? Math.max(minLength + DEFAULT_MAX_LENGTH, DEFAULT_MAX_LENGTH);
  if (minLength > maxLength) throw new Uncovered('minLength exceeds maxLength');
  if (typeof s.format === 'string' && FORMATS[s.format]) return FORMATS[s.format]!();
  if (typeof s.pattern === 'string') {
    let re: RegExp;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      throw new Uncovered(`pattern ${JSON.stringify(s.pattern)} is not a regular expression this engine understands`);
    }
    let matching: fc.Arbitrary<string>;
    try {
      matching = fc.stringMatching(re);
    } catch (err) {
      throw new Uncovered(`pattern ${JSON.stringify(s.pattern)}: ${(err as Error).message}`);
    }
    return matching;
  }
  // Mostly printable ASCII, sometimes any Unicode: both are valid strings.
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
  );
}

function arrays(s: Record<string, unknown>, ctx: Ctx): fc.Arbitrary<unknown[]> {
  const minItems = num(s.minItems) ?? 0;
  const maxItems = num(s.maxItems) ?? minItems + DEFAULT_MAX_ITEMS;
  if (minItems > maxItems) throw new Uncovered('minItems exceeds maxItems');
  // Positional schemas: prefixItems (2020-12), or an items array (draft-07 and 2019-09).
  let prefix: SchemaNode[] = [];
  let rest: SchemaNode | undefined = true;
  if (Array.isArray(s.prefixItems)) {
    prefix = s.prefixItems as SchemaNode[];
    rest = s.items === undefined ? true : (s.items as SchemaNode);
  } else if (Array.isArray(s.items)) {
    prefix = s.items as SchemaNode[];
    rest = s.additionalItems === undefined ? true : (s.additionalItems as SchemaNode);
  } else if (s.items !== undefined) {
    rest = s.items as SchemaNode;
  }
  const unique = s.uniqueItems === true;
  const restArb = rest === false ? undefined : arbitraryFor(rest, ctx);
  if (prefix.length === 0) {
    if (!restArb) return fc.constant([]);
    if (unique) {
      const distinct = finiteChoices(rest);
      if (distinct !== undefined && distinct < minItems) throw new Uncovered('uniqueItems with fewer distinct values than minItems');
      return fc.uniqueArray(restArb, { minLength: minItems, maxLength: maxItems, selector: canonical });
    }
    return fc.array(restArb, { minLength: minItems, maxLength: maxItems });
  }
  const head = prefix.slice(0, maxItems).map((p) => arbitraryFor(p, ctx));
  const more = Math.max(0, maxItems - head.length);
  const tail =
    restArb && more > 0
      ? fc.array(restArb, { minLength: Math.max(0, minItems - head.length), maxLength: Math.min(more, DEFAULT_MAX_ITEMS) })
      : fc.constant([]);
  return fc.tuple(fc.tuple(...head), tail).map(([h, t]) => [...h, ...t]);
}

function objects(s: Record<string, unknown>, ctx: Ctx): fc.Arbitrary<Record<string, unknown>> {
  const props = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(props)) model[key] = arbitraryFor(sub as SchemaNode, ctx);
  for (const key of required) {
    if (key in model) continue;
    // A required name without a property schema: what additionalProperties (or anything) allows.
    const extra = s.additionalProperties;
    if (extra === false) throw new Uncovered(`required property ${JSON.stringify(key)} is forbidden by additionalProperties: false`);
    model[key] = arbitraryFor(extra === undefined ? true : (extra as SchemaNode), ctx);
  }
  const keys = Object.keys(model);
  if (keys.length === 0) return fc.constant({});
  return fc.record(model, { requiredKeys: required.filter((r) => keys.includes(r)) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** How many values a schema admits, when it is a plain enum, const or boolean; undefined otherwise. */
function finiteChoices(node: SchemaNode): number | undefined {
  if (!isObject(node)) return undefined;
  if ('const' in node) return 1;
  if (Array.isArray(node.enum)) return new Set(node.enum.map(canonical)).size;
  if (node.type === 'boolean') return 2;
  if (node.type === 'null') return 1;
  return undefined;
}

function anyJson(): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: 2 });
}

// ---- schema merging (allOf, $ref with siblings, a branch with its parent's keywords) ----

function withoutKey(s: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _drop, ...rest } = s;
  return rest;
}

/** Resolve a top-level local $ref (for merging); anything else is returned as is. */
function deref(node: unknown, ctx: Ctx, depth = 0): Record<string, unknown> {
  if (node === true || node === undefined) return {};
  if (node === false) throw new Uncovered('a false schema admits no value');
  if (!isObject(node)) throw new Uncovered('a schema that is not an object');
  if (node.$ref === undefined) return node;
  const pointer = localRef(node.$ref);
  const target = pointer === undefined ? undefined : atPointer(ctx.root, pointer);
  if (target === undefined || depth >= MAX_REF_DEPTH) throw new Uncovered(`$ref ${JSON.stringify(node.$ref)} cannot be followed`);
  const resolved = deref(target, ctx, depth + 1);
  const { $ref: _ref, ...rest } = node;
  return ctx.draft07 ? resolved : mergeAll([resolved, rest]);
}

/**
 * One schema standing for all of `list` (their conjunction), as far as the
 * arbitraries need it; what cannot be merged keeps the first word, and the
 * ajv confirmation filters whatever that lets through.
 */
export function mergeAll(list: Array<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of list) {
    for (const [k, v] of Object.entries(s)) {
      if (!(k in out)) {
        out[k] = v;
        continue;
      }
      const prev = out[k];
      switch (k) {
        case 'properties':
          if (isObject(prev) && isObject(v)) {
            const merged: Record<string, unknown> = { ...prev };
            for (const [p, sub] of Object.entries(v)) merged[p] = p in merged ? { allOf: [merged[p], sub] } : sub;
            out[k] = merged;
          }
          break;
        case 'required':
          if (Array.isArray(prev) && Array.isArray(v)) out[k] = [...new Set([...prev, ...v])];
          break;
        case 'type': {
          const a = Array.isArray(prev) ? prev : [prev];
          const b = Array.isArray(v) ? v : [v];
          const both = a.filter((t) => b.includes(t) || (t === 'integer' && b.includes('number')));
          for (const t of b) if (t === 'integer' && a.includes('number') && !both.includes('integer')) both.push('integer');
          out[k] = both;
          break;
        }
        case 'enum':
          if (Array.isArray(prev) && Array.isArray(v)) out[k] = prev.filter((x) => v.some((y) => canonical(x) === canonical(y)));
          break;
        case 'minimum':
        case 'exclusiveMinimum':
        case 'minLength':
        case 'minItems':
          if (typeof prev === 'number' && typeof v === 'number') out[k] = Math.max(prev, v);
          break;
        case 'maximum':
        case 'exclusiveMaximum':
        case 'maxLength':
        case 'maxItems':
          if (typeof prev === 'number' && typeof v === 'number') out[k] = Math.min(prev, v);
          break;
        case 'additionalProperties':
          if (prev === false || v === false) out[k] = false;
          break;
        case 'allOf':
          if (Array.isArray(prev) && Array.isArray(v)) out[k] = [...prev, ...v];
          break;
        default:
          break;
      }
    }
  }
  return out;
}

/**
 * JSON Schema handling for schemas a server publishes (inputSchema,
 * outputSchema): pick the validator by dialect (2020-12 when `$schema` is
 * absent, as basic/index "Schema Dialect" says), check the schema against its
 * meta-schema, and compile it without ever fetching a network `$ref`.
 *
 * Such schemas are untrusted input (basic/index "Composition-Keyword Resource
 * Use"), so everything here is bounded: a schema deeper or larger than
 * SCHEMA_LIMITS is refused before any recursive code sees it; every `pattern`
 * is matched with a time budget (regex.ts); and the compiled validator never
 * throws: a budget overrun or a `$ref` cycle that recurses without end comes
 * back as a validation error marked indeterminate.
 */
import { Ajv, MissingRefError, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { boundedFormat, boundedRegExp, RegexBudgetError } from './regex.js';
import { isObject } from '../model/json.js';

export type AnyAjv = Ajv | Ajv2019 | Ajv2020;
export type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';

const addFormats = addFormatsImport as unknown as (ajv: AnyAjv) => AnyAjv;

/** The largest schema the suite evaluates: nesting depth (objects and arrays) and number of JSON values. */
export const SCHEMA_LIMITS = { maxDepth: 128, maxNodes: 100_000 } as const;

const BASE: Options = {
  strict: false,
  allErrors: false,
  validateFormats: true,
  // Never fetch: no loadSchema, and a missing $ref is an error, not a download.
  loadSchema: undefined,
  // Every pattern is matched with a time budget.
  code: { regExp: boundedRegExp },
};

/** Which dialect a `$schema` URI names; undefined when it names none we support. */
export function dialectOf(uri: string | undefined): Dialect | undefined {
  if (uri === undefined) return '2020-12';
  const u = uri.replace(/^https?:\/\//, '').replace(/#$/, '');
  if (u === 'json-schema.org/draft/2020-12/schema') return '2020-12';
  if (u === 'json-schema.org/draft/2019-09/schema') return '2019-09';
  if (u === 'json-schema.org/draft-07/schema') return 'draft-07';
  if (u === 'json-schema.org/draft-06/schema') return 'draft-06';
  return undefined;
}

const shared = new Map<Dialect, AnyAjv>();

const sharedAllErrors = new Map<Dialect, AnyAjv>();

/**
 * An ajv instance for the dialect named by `$schema` (2020-12 by default).
 * `allErrors` reports every violation instead of the first (to see which
 * keyword at which location a value breaks).
 */
export function ajvFor(schemaUri: string | undefined, opts: { fresh?: boolean; allErrors?: boolean } = {}): AnyAjv {
  const dialect = dialectOf(schemaUri) ?? '2020-12';
  const cache = opts.allErrors ? sharedAllErrors : shared;
  if (!opts.fresh) {
    const hit = cache.get(dialect);
    if (hit) return hit;
  }
  const options: Options = { ...BASE, allErrors: !!opts.allErrors };
  let ajv: AnyAjv;
  if (dialect === '2020-12') ajv = new Ajv2020(options);
  else if (dialect === '2019-09') ajv = new Ajv2019(options);
  else {
    ajv = new Ajv(options);
  }
  addBoundedFormats(ajv);
  if (!opts.fresh) cache.set(dialect, ajv);
  return ajv;
}

/**
 * ajv-formats' formats, each checked with a time budget (regex.ts): a format's
 * own regular expression runs on server data, so a long string is checked on
 * the worker and an overrun makes the validation indeterminate.
 */
function addBoundedFormats(ajv: AnyAjv): void {
  addFormats(ajv);
  for (const [name, f] of Object.entries(fullFormats)) {
    if (f instanceof RegExp) ajv.addFormat(name, { type: 'string', validate: boundedFormat(name, (s) => f.test(s)) });
    else if (typeof f === 'function') ajv.addFormat(name, { type: 'string', validate: boundedFormat(name, f as (s: string) => boolean) });
    else if (typeof f === 'object' && !('async' in f && f.async) && (f.type === undefined || f.type === 'string')) {
      const v = f.validate;
      const native = v instanceof RegExp ? (s: string) => v.test(s) : (v as (s: string) => boolean);
      ajv.addFormat(name, { ...f, type: 'string', validate: boundedFormat(name, native) } as never);
    }
  }
}

export interface SchemaSize {
  /** Deepest nesting of objects and arrays (the root object is 1). */
  depth: number;
  /** JSON values in the schema, counted up to the first limit passed. */
  nodes: number;
  /** The schema declares `$id`, `$anchor` or `$dynamicAnchor` somewhere (it needs a validator of its own). */
  declaresIds: boolean;
  /** Why the schema is beyond SCHEMA_LIMITS, when it is. */
  beyond?: string;
}

/** Measure a schema without recursion, stopping at the first limit passed. */
export function measureSchema(schema: unknown, limits = SCHEMA_LIMITS): SchemaSize {
  const size: SchemaSize = { depth: 0, nodes: 0, declaresIds: false };
  const stack: Array<[unknown, number]> = [[schema, 1]];
  const enumSizes: number[] = [];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    size.nodes++;
    if (size.nodes > limits.maxNodes) {
      const biggest = Math.max(0, ...enumSizes);
      size.beyond = `it has more than ${limits.maxNodes.toLocaleString('en-US')} JSON values${biggest > 1000 ? ` (an enum of ${biggest.toLocaleString('en-US')} values)` : ''}`;
      return size;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth > size.depth) size.depth = depth;
    if (depth > limits.maxDepth) {
      size.beyond = `it is nested more than ${limits.maxDepth} levels deep`;
      return size;
    }
    if (Array.isArray(node)) {
      for (const child of node) stack.push([child, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      if (key === '$id' || key === '$anchor' || key === '$dynamicAnchor') size.declaresIds = true;
      if (key === 'enum' && Array.isArray(child)) enumSizes.push(child.length);
      stack.push([child, depth + 1]);
    }
  }
  return size;
}

export interface SchemaCheck {
  ok: boolean;
  dialect?: Dialect;
  errors: string[];
  /**
   * Set when the schema cannot be evaluated within the suite's bounds (too
   * deep, too large, recursing without end): why. `ok` is then false, and the
   * schema's validity is unknown rather than disproved.
   */
  unevaluable?: string;
  /** The compiled validator, when the schema compiled. It never throws (see `isIndeterminate`). */
  validate?: ValidateFunction;
}

/** Checked schemas by their JSON text: the same schema is judged and compiled once (bounded). */
const checked = new Map<string, SchemaCheck>();
const CHECKED_MAX = 1000;
/** Longest schema text kept in the cache. */
const CHECKED_KEY_MAX = 64 * 1024;

/** Is `schema` a valid JSON Schema of its declared (or default) dialect? */
export function checkJsonSchema(schema: unknown): SchemaCheck {
  if (!isObject(schema)) {
    return { ok: false, errors: [`a JSON Schema must be an object, got ${schema === null ? 'null' : typeof schema}`] };
  }
  // Measured before anything recursive (JSON.stringify included) sees it.
  const size = measureSchema(schema);
  if (size.beyond) {
    const why = `the schema is beyond the suite's bounds: ${size.beyond}`;
    return {
      ok: false,
      dialect: dialectOf((schema as { $schema?: unknown }).$schema as string | undefined),
      errors: [why],
      unevaluable: why,
    };
  }
  const key = JSON.stringify(schema);
  const hit = checked.get(key);
  if (hit) return hit;
  const result = checkUncached(schema, size);
  // Large schemas are not kept: the cache stays small whatever the server lists.
  if (key.length > CHECKED_KEY_MAX) return result;
  if (checked.size >= CHECKED_MAX) checked.delete(checked.keys().next().value!);
  checked.set(key, result);
  return result;
}

function checkUncached(schema: object, size: SchemaSize): SchemaCheck {
  const uri = (schema as { $schema?: unknown }).$schema;
  if (uri !== undefined && typeof uri !== 'string') return { ok: false, errors: ['$schema must be a string'] };
  const dialect = dialectOf(uri);
  if (!dialect) return { ok: false, errors: [`unsupported JSON Schema dialect: ${String(uri)}`] };
  // A schema that names its own resources gets a validator of its own, so ids never clash across tools.
  const ajv = ajvFor(uri, { fresh: size.declaresIds });
  try {
    const metaOk = ajv.validateSchema(schema as object);
    if (!metaOk) return { ok: false, dialect, errors: formatErrors(ajv.errors).map((e) => `schema ${e}`) };
  } catch (err) {
    const why = `the schema could not be checked against its meta-schema: ${describeThrown(err)}`;
    return { ok: false, dialect, errors: [why], unevaluable: why };
  }
  let compiled: ValidateFunction;
  try {
    compiled = ajv.compile(schema as object);
  } catch (err) {
    if (err instanceof MissingRefError) {
      const ref = err.missingRef;
      const network = /^[a-z][a-z0-9+.-]*:/i.test(ref) && !/^urn:/i.test(ref);
      const why = network
        ? `unresolved $ref ${JSON.stringify(ref)}: network URIs are never dereferenced`
        : `unresolved $ref ${JSON.stringify(ref)}: nothing in the schema has that URI`;
      return { ok: false, dialect, errors: [why] };
    }
    if (err instanceof RangeError) {
      const why = "the schema could not be compiled: it recurses without end (a $ref cycle) or beyond the validator's stack";
      return { ok: false, dialect, errors: [why], unevaluable: why };
    }
    return { ok: false, dialect, errors: [`schema does not compile: ${(err as Error).message}`] };
  } finally {
    if (!size.declaresIds) ajv.removeSchema(schema as object);
  }
  const validate = neverThrowing(compiled);
  // A $ref cycle that consumes no data recurses without end on any instance.
  validate({});
  if (isIndeterminate(validate.errors) && validate.errors?.[0]?.keyword === '$ref') {
    const why = 'the schema recurses without end (a $ref cycle that consumes no data)';
    return { ok: false, dialect, errors: [why], unevaluable: why };
  }
  return { ok: true, dialect, errors: [], validate };
}

/** The errors of a validation that could not finish (budget overrun, endless recursion). */
export function isIndeterminate(errors: ErrorObject[] | null | undefined): boolean {
  return !!errors?.some((e) => (e.params as { indeterminate?: boolean } | undefined)?.indeterminate === true);
}

/**
 * Wrap a compiled validator so it never throws: a pattern over its time
 * budget, or recursion that exhausts the stack, makes it return false with
 * one error whose `params.indeterminate` is true.
 */
export function neverThrowing(fn: ValidateFunction): ValidateFunction {
  const wrapped = function (this: unknown, data: unknown): boolean {
    try {
      const ok = fn.call(this, data) as boolean;
      wrapped.errors = fn.errors;
      return ok;
    } catch (err) {
      const keyword = err instanceof RegexBudgetError ? 'pattern' : err instanceof RangeError ? '$ref' : 'validate';
      const message =
        err instanceof RangeError
          ? 'could not be evaluated: the schema recurses too deeply (stack exhausted)'
          : `could not be evaluated: ${describeThrown(err)}`;
      wrapped.errors = [{ instancePath: '', schemaPath: '#', keyword, params: { indeterminate: true }, message }];
      return false;
    }
  } as ValidateFunction;
  wrapped.schema = fn.schema;
  wrapped.schemaEnv = fn.schemaEnv;
  return wrapped;
}

function describeThrown(err: unknown): string {
  if (err instanceof RangeError) return "it is nested or recursive beyond the validator's stack";
  return err instanceof Error ? err.message : String(err);
}

/** ajv errors as short readable lines (at most 10). */
export function formatErrors(errors: ErrorObject[] | null | undefined, def?: string): string[] {
  if (!errors) return [];
  const out: string[] = [];
  for (const e of errors.slice(0, 10)) {
    const at = e.instancePath || '(root)';
    const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty?: string }).additionalProperty}'` : '';
    const allowed = e.keyword === 'enum' ? ` ${shortJson((e.params as { allowedValues?: unknown }).allowedValues)}` : '';
    out.push(`${at} ${e.message ?? e.keyword}${extra}${allowed}${def ? ` (${def})` : ''}`);
  }
  return out;
}

/** JSON of a value, cut short (an enum may list thousands of values). */
function shortJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

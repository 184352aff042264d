/**
 * JSON Schema handling for schemas a server publishes (inputSchema,
 * outputSchema): pick the validator by dialect (2020-12 when `$schema` is
 * absent, as basic/index "Schema Dialect" says), check the schema against its
 * meta-schema, and compile it without ever fetching a network `$ref`.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

export type AnyAjv = Ajv | Ajv2019 | Ajv2020;
export type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';

const addFormats = addFormatsImport as unknown as (ajv: AnyAjv) => AnyAjv;

const BASE: Options = {
  strict: false,
  allErrors: false,
  validateFormats: true,
  // Never fetch: no loadSchema, and a missing $ref is an error, not a download.
  loadSchema: undefined,
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
  addFormats(ajv);
  if (!opts.fresh) cache.set(dialect, ajv);
  return ajv;
}

export interface SchemaCheck {
  ok: boolean;
  dialect?: Dialect;
  errors: string[];
  /** The compiled validator, when the schema compiled. */
  validate?: ValidateFunction;
}

/** Checked schemas by their JSON text: the same schema is judged and compiled once (bounded). */
const checked = new Map<string, SchemaCheck>();
const CHECKED_MAX = 1000;

/** Is `schema` a valid JSON Schema of its declared (or default) dialect? */
export function checkJsonSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { ok: false, errors: [`a JSON Schema must be an object, got ${schema === null ? 'null' : typeof schema}`] };
  }
  const key = JSON.stringify(schema);
  const hit = checked.get(key);
  if (hit) return hit;
  const result = checkUncached(schema);
  if (checked.size >= CHECKED_MAX) checked.delete(checked.keys().next().value!);
  checked.set(key, result);
  return result;
}

function checkUncached(schema: object): SchemaCheck {
  const uri = (schema as { $schema?: unknown }).$schema;
  if (uri !== undefined && typeof uri !== 'string') return { ok: false, errors: ['$schema must be a string'] };
  const dialect = dialectOf(uri);
  if (!dialect) return { ok: false, errors: [`unsupported JSON Schema dialect: ${String(uri)}`] };
  const ajv = ajvFor(uri);
  const metaOk = ajv.validateSchema(schema as object);
  if (!metaOk) return { ok: false, dialect, errors: formatErrors(ajv.errors).map((e) => `schema ${e}`) };
  try {
    const validate = ajv.compile(schema as object);
    return { ok: true, dialect, errors: [], validate };
  } catch (err) {
    return { ok: false, dialect, errors: [`schema does not compile: ${(err as Error).message}`] };
  } finally {
    ajv.removeSchema(schema as object);
  }
}

/** ajv errors as short readable lines (at most 10). */
export function formatErrors(errors: ErrorObject[] | null | undefined, def?: string): string[] {
  if (!errors) return [];
  const out: string[] = [];
  for (const e of errors.slice(0, 10)) {
    const at = e.instancePath || '(root)';
    const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty?: string }).additionalProperty}'` : '';
    const allowed = e.keyword === 'enum' ? ` ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}` : '';
    out.push(`${at} ${e.message ?? e.keyword}${extra}${allowed}${def ? ` (${def})` : ''}`);
  }
  return out;
}

/**
 * Small JSON Schema helpers shared by argument generation and mutation:
 * JSON pointers (RFC 6901, as ajv writes `instancePath`), local `$ref`
 * resolution, and the one validator per inputSchema that confirms every
 * generated and mutated value.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvFor, checkJsonSchema, dialectOf, formatErrors, type AnyAjv, type Dialect } from '../../harness/jsonschema.js';
import { canonical, isObject } from '../../model/json.js';

export type SchemaNode = Record<string, unknown> | boolean;

/** One reference token of a JSON pointer. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerJoin(base: string, ...tokens: Array<string | number>): string {
  return base + tokens.map((t) => `/${escapeToken(t)}`).join('');
}

/** The node a JSON pointer names inside `doc`, or undefined. */
export function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** The schema pointer a local `$ref` names (`#/$defs/x` → `/$defs/x`), or undefined for any other reference. */
export function localRef(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  const fragment = ref.slice(1);
  if (fragment !== '' && !fragment.startsWith('/')) return undefined; // an $anchor
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * An inputSchema compiled for argument work: `valid` answers yes/no quickly,
 * `errors` lists every violation (keyword and instance path), and `validAt`
 * validates a value against the subschema at a schema pointer (for choosing
 * the anyOf/oneOf branch a value took).
 */
export interface CompiledSchema {
  root: Record<string, unknown>;
  dialect: Dialect;
  valid: (value: unknown) => boolean;
  errors: (value: unknown) => ErrorObject[];
  validAt: (pointer: string, value: unknown) => boolean;
  /** Readable lines for the first violations of `value`. */
  explain: (value: unknown) => string[];
}

const compiled = new Map<string, CompiledSchema | { problem: string }>();
let keyCounter = 0;

/** Compile an inputSchema in its dialect, or say why it cannot be. Memoized by schema text. */
export function compileSchema(schema: unknown): CompiledSchema | { problem: string } {
  const text = canonical(schema);
  const hit = compiled.get(text);
  if (hit) return hit;
  const out = compileUncached(schema);
  if (compiled.size > 500) compiled.clear();
  compiled.set(text, out);
  return out;
}

function compileUncached(schema: unknown): CompiledSchema | { problem: string } {
  const check = checkJsonSchema(schema);
  if (!check.ok || !check.validate) return { problem: `the inputSchema is not a valid JSON Schema: ${check.errors.join('; ')}` };
  const root = schema as Record<string, unknown>;
  const dialect = check.dialect ?? dialectOf(undefined)!;
  // The all-errors instance of the dialect: the root is registered under its
  // own key (without its $id, so two tools sharing an $id cannot collide), and
  // any subschema is reachable as key#/pointer. Nested $ids that collide with
  // another tool's get a private instance.
  const uri = typeof root.$schema === 'string' ? root.$schema : undefined;
  const key = `mcpc-arguments-${++keyCounter}`;
  const { $id: _ignored, ...withoutId } = root;
  // Already checked against its meta-schema above: not again here.
  let ajv: AnyAjv = ajvFor(uri, { allErrors: true });
  try {
    ajv.addSchema(withoutId, key, undefined, false);
  } catch {
    ajv = ajvFor(uri, { fresh: true, allErrors: true });
    try {
      ajv.addSchema(withoutId, key, undefined, false);
    } catch (err) {
      return { problem: `the inputSchema does not compile: ${(err as Error).message}` };
    }
  }
  const full = ajv.getSchema(key) as ValidateFunction | undefined;
  if (!full) return { problem: 'the inputSchema does not compile' };
  const fast = check.validate;
  const sub = new Map<string, ValidateFunction | null>();
  return {
    root,
    dialect,
    valid: (value) => fast(value) === true,
    // A pattern over its budget (harness/regex.ts) leaves nothing confirmed.
    errors: (value) => {
      try {
        return full(value) ? [] : [...(full.errors ?? [])];
      } catch {
        return [];
      }
    },
    validAt: (pointer, value) => {
      let fn = sub.get(pointer);
      if (fn === undefined) {
        try {
          fn = (ajv.getSchema(`${key}#${pointer.split('/').map(encodeURIComponent).join('/')}`) as ValidateFunction | undefined) ?? null;
        } catch {
          fn = null;
        }
        sub.set(pointer, fn);
      }
      try {
        return fn ? fn(value) === true : false;
      } catch {
        return false;
      }
    },
    explain: (value) => {
      try {
        return full(value) ? [] : formatErrors(full.errors);
      } catch (err) {
        return [`could not be evaluated: ${(err as Error).message}`];
      }
    },
  };
}

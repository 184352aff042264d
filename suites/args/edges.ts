/**
 * Edge values: what every fuzzer tries first. For a tool's inputSchema, a
 * list of whole argument objects, each one valid value with one leaf set to
 * an edge value of its subschema:
 *
 * - strings: the empty string, a single space, leading and trailing
 *   whitespace, a long string at the maximum length, non-ASCII text and
 *   emoji, and a string with a quote, a backslash and a newline;
 * - numbers: each bound (minimum, maximum, just inside the exclusive bounds),
 *   multipleOf, 0, -1, a large and a small float (for integers only the
 *   integral large one);
 * - arrays: empty, a single item, and maxItems items;
 * - null where the schema allows it; every enum member; both booleans.
 *
 * The list is deterministic for a schema and seed (the base value is the
 * seed's first draw), ordered round-robin over the leaves (every leaf's first
 * edge, then every leaf's second, ...), and holds only values the schema
 * accepts (confirmed with ajv, like every generated value). The explorer runs
 * them before the random values, and fast-check shrinks a failing one like
 * any other.
 */
import fc from 'fast-check';
import { atPointer, cloneJson, localRef, type CompiledSchema } from './schema.js';
import { canonical, isObject } from '../../model/json.js';
import { GENERATION_LIMITS } from '../../harness/values.js';

/** Longest "long string" edge when the schema sets no maxLength. */
const LONG_DEFAULT = 1024;
/** Most leaves visited, and most edge values kept. */
const MAX_LEAVES = 64;
const MAX_EDGES = 200;

type S = Record<string, unknown>;

/** Edge values for one subschema, in the order they are tried. */
export function edgeValuesFor(s: S, base: unknown): unknown[] {
  const out: unknown[] = [];
  if (Array.isArray(s.enum)) out.push(...s.enum);
  const types = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
  if (types.includes('string') || (types.length === 0 && typeof base === 'string')) {
    const maxLength = typeof s.maxLength === 'number' ? Math.min(s.maxLength, GENERATION_LIMITS.maxStringLength) : LONG_DEFAULT;
    out.push(
      '',
      ' ',
      '  edge value  ',
      'x'.repeat(Math.max(0, maxLength)),
      'héllo wörld 日本語 🙂👍🏽',
      'quote " backslash \\ newline \n end',
    );
  }
  const integer = types.includes('integer') && !types.includes('number');
  if (types.includes('number') || types.includes('integer') || (types.length === 0 && typeof base === 'number')) {
    for (const key of ['minimum', 'maximum'] as const) if (typeof s[key] === 'number') out.push(s[key]);
    const step = (v: number) => (integer ? 1 : Math.max(Math.abs(v) * Number.EPSILON, Number.MIN_VALUE));
    if (typeof s.exclusiveMinimum === 'number')
      out.push(integer ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + step(s.exclusiveMinimum));
    if (typeof s.exclusiveMaximum === 'number')
      out.push(integer ? Math.ceil(s.exclusiveMaximum) - 1 : s.exclusiveMaximum - step(s.exclusiveMaximum));
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) out.push(s.multipleOf, -s.multipleOf);
    out.push(0, -1, integer ? 1e20 : 1.7976931348623157e308);
    if (!integer) out.push(5e-324, 0.5);
  }
  if (types.includes('boolean')) out.push(false, true);
  if (types.includes('array') || (types.length === 0 && Array.isArray(base))) {
    const item = Array.isArray(base) && base.length > 0 ? base[0] : undefined;
    out.push([]);
    if (item !== undefined) {
      out.push([cloneJson(item)]);
      if (typeof s.maxItems === 'number' && s.maxItems > 1 && s.maxItems <= GENERATION_LIMITS.maxItems) {
        out.push(Array.from({ length: s.maxItems }, () => cloneJson(item)));
      }
    }
  }
  if (types.includes('null')) out.push(null);
  return out;
}

interface Leaf {
  /** Property path from the arguments root. */
  path: Array<string | number>;
  schema: S;
  value: unknown;
}

/** The subschema `node` stands for, through local `$ref`s. */
function resolve(root: S, node: unknown): S | undefined {
  let s = node;
  for (let i = 0; i < 8 && isObject(s) && typeof s.$ref === 'string'; i++) {
    const pointer = localRef(s.$ref);
    if (pointer === undefined) return undefined;
    s = atPointer(root, pointer);
  }
  return isObject(s) ? s : undefined;
}

/** The leaves of `value` that have a subschema of their own (object properties and array items, depth-first). */
function leaves(root: S, value: unknown): Leaf[] {
  const out: Leaf[] = [];
  const stack: Leaf[] = [];
  const top = resolve(root, root);
  if (!top || !isObject(value)) return out;
  const push = (path: Array<string | number>, schema: unknown, v: unknown) => {
    const s = resolve(root, schema);
    if (s) stack.push({ path, schema: s, value: v });
  };
  const props = isObject(top.properties) ? top.properties : {};
  for (const key of Object.keys(props).reverse()) push([key], props[key], value[key]);
  while (stack.length && out.length < MAX_LEAVES) {
    const leaf = stack.pop()!;
    out.push(leaf);
    if (isObject(leaf.value) && isObject(leaf.schema.properties)) {
      const inner = leaf.schema.properties;
      for (const key of Object.keys(inner).reverse()) push([...leaf.path, key], inner[key], leaf.value[key]);
    } else if (Array.isArray(leaf.value) && leaf.value.length > 0 && isObject(leaf.schema.items)) {
      push([...leaf.path, 0], leaf.schema.items, leaf.value[0]);
    }
  }
  return out;
}

function setPath(root: S, path: Array<string | number>, v: unknown): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = v;
}

/**
 * The edge-value calls for a tool: valid argument objects, each one leaf of
 * the seed's first valid value set to one edge value.
 */
export function edgeArguments(schema: CompiledSchema, arb: fc.Arbitrary<unknown>, seed: number): unknown[] {
  let base: unknown;
  try {
    base = fc.sample(arb, { seed, numRuns: 1 })[0];
  } catch {
    return [];
  }
  if (!isObject(base)) return [];
  const perLeaf = leaves(schema.root, base).map((leaf) => edgeValuesFor(leaf.schema, leaf.value).map((v) => ({ leaf, v })));
  const out: unknown[] = [];
  const seen = new Set<string>([canonical(base)]);
  for (let i = 0; out.length < MAX_EDGES && perLeaf.some((list) => i < list.length); i++) {
    for (const list of perLeaf) {
      const item = list[i];
      if (!item) continue;
      const candidate = cloneJson(base) as S;
      setPath(candidate, item.leaf.path, cloneJson(item.v));
      const key = canonical(candidate);
      if (seen.has(key) || !schema.valid(candidate)) continue;
      seen.add(key);
      out.push(candidate);
      if (out.length >= MAX_EDGES) break;
    }
  }
  return out;
}

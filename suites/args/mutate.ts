/**
 * Invalid arguments: mutations of a valid value, each breaking one keyword
 * at one location (a JSON pointer into the arguments): drop a required
 * property, a wrong type, null, a number out of range or off its multipleOf,
 * a string too short, too long or failing its pattern, an array too short,
 * too long or with a repeated item, a value outside enum / const, an extra
 * property under `additionalProperties: false`.
 *
 * A mutant is kept only when ajv, reporting every error, finds the targeted
 * keyword at the targeted instance location among them; its keyword and pointer
 * are what the report names. The root object itself is never replaced by a
 * non-object: `arguments` that is not an object breaks the CallToolRequest
 * schema and is a protocol-level probe of its own.
 */
import { cloneJson, localRef, atPointer, pointerJoin, type CompiledSchema } from './schema.js';
import { boundedTest } from '../../harness/regex.js';
import { canonical, isObject, type JsonObject } from '../../model/json.js';

export interface Mutant {
  /** The JSON Schema keyword the value breaks. */
  keyword: string;
  /** Where, as ajv reports it: the instance path (for required / additionalProperties: the object). */
  pointer: string;
  /** One line: what was changed. */
  description: string;
  /** The schema location of the keyword broken, as ajv reports it (e.g. `#/properties/origin/prefixItems/0/type`). */
  schemaPath?: string;
  /** The whole arguments object with the one change. */
  value: Record<string, unknown>;
}

interface Located {
  schema: Record<string, unknown>;
  /** Schema pointer of this subschema inside the root. */
  at: string;
}

const MAX_DEPTH = 12;

/** Every confirmed single-keyword mutant of the valid arguments `value`. */
export function mutantsOf(schema: CompiledSchema, value: unknown): Mutant[] {
  if (!isObject(value)) return [];
  const out: Mutant[] = [];
  const seen = new Set<string>();
  const add = (keyword: string, pointer: string, description: string, replace: (root: Record<string, unknown>) => void) => {
    const key = `${keyword}\u0000${pointer}\u0000${description}`;
    if (seen.has(key)) return;
    seen.add(key);
    const next = cloneJson(value);
    replace(next);
    const errors = schema.errors(next);
    const broken = errors.find((e) => e.keyword === keyword && e.instancePath === pointer);
    if (!broken) return;
    out.push({ keyword, pointer, description, ...(broken.schemaPath ? { schemaPath: broken.schemaPath } : {}), value: next });
  };
  visit(schema, [{ schema: schema.root, at: '' }], value, '', add, 0);
  return out;
}

type Add = (keyword: string, pointer: string, description: string, replace: (root: Record<string, unknown>) => void) => void;

/** The subschemas that apply to `value` at schema location `node`: through $ref, allOf, and the anyOf/oneOf branches it satisfies. */
function applicable(schema: CompiledSchema, node: unknown, at: string, value: unknown, acc: Located[], depth: number): void {
  if (!isObject(node) || depth > MAX_DEPTH || acc.some((l) => l.at === at)) return;
  const draft07 = schema.dialect === 'draft-07' || schema.dialect === 'draft-06';
  if (node.$ref !== undefined) {
    const target = localRef(node.$ref);
    if (target !== undefined) applicable(schema, atPointer(schema.root, target), target, value, acc, depth + 1);
    if (draft07) return;
  }
  acc.push({ schema: node, at });
  if (Array.isArray(node.allOf)) node.allOf.forEach((s, i) => applicable(schema, s, pointerJoin(at, 'allOf', i), value, acc, depth + 1));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    branches.forEach((s, i) => {
      const p = pointerJoin(at, key, i);
      if (schema.validAt(p, value)) applicable(schema, s, p, value, acc, depth + 1);
    });
  }
}

function visit(schema: CompiledSchema, nodes: Located[], value: unknown, path: string, add: Add, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const located: Located[] = [];
  for (const n of nodes) applicable(schema, n.schema, n.at, value, located, 0);
  for (const l of located) mutateHere(schema, l.schema, value, path, add);

  const draft07 = schema.dialect === 'draft-07' || schema.dialect === 'draft-06';
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const children: Located[] = [];
      for (const l of located) {
        const props = isObject(l.schema.properties) ? l.schema.properties : undefined;
        if (props && Object.hasOwn(props, key))
          children.push({ schema: props[key] as Record<string, unknown>, at: pointerJoin(l.at, 'properties', key) });
        else if (isObject(l.schema.additionalProperties)) {
          children.push({ schema: l.schema.additionalProperties, at: pointerJoin(l.at, 'additionalProperties') });
        }
      }
      if (children.length) visit(schema, children, value[key], pointerJoin(path, key), add, depth + 1);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const children: Located[] = [];
      for (const l of located) {
        const s = l.schema;
        if (!draft07 && Array.isArray(s.prefixItems)) {
          if (i < s.prefixItems.length) children.push({ schema: s.prefixItems[i], at: pointerJoin(l.at, 'prefixItems', i) });
          else if (isObject(s.items)) children.push({ schema: s.items, at: pointerJoin(l.at, 'items') });
        } else if (Array.isArray(s.items)) {
          if (i < s.items.length) children.push({ schema: s.items[i], at: pointerJoin(l.at, 'items', i) });
          else if (isObject(s.additionalItems)) children.push({ schema: s.additionalItems, at: pointerJoin(l.at, 'additionalItems') });
        } else if (isObject(s.items)) {
          children.push({ schema: s.items, at: pointerJoin(l.at, 'items') });
        }
      }
      if (children.length) visit(schema, children, item, pointerJoin(path, i), add, depth + 1);
    });
  }
}

/** Set the value at `path` (a pointer into the arguments) inside `root`. */
function setAt(root: Record<string, unknown>, path: string, next: unknown): void {
  const tokens = path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = root;
  for (const t of tokens.slice(0, -1)) node = Array.isArray(node) ? node[Number(t)] : (node as Record<string, unknown>)[t];
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(node)) node[Number(last)] = next;
  else (node as Record<string, unknown>)[last] = next;
}

function getAt(root: unknown, path: string): unknown {
  return path === '' ? root : atPointer(root, path);
}

const show = (v: unknown) => {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 60 ? `${t.slice(0, 60)}…` : t;
};

/** Wrong-type replacements, in order of preference; the first the schema's type does not allow is used. */
const WRONG_TYPES: Array<{ value: unknown; is: (types: string[]) => boolean }> = [
  { value: 'mcpc', is: (t) => t.includes('string') },
  { value: 7, is: (t) => t.includes('integer') || t.includes('number') },
  { value: true, is: (t) => t.includes('boolean') },
  { value: {}, is: (t) => t.includes('object') },
  { value: [], is: (t) => t.includes('array') },
  { value: 1.5, is: (t) => t.includes('number') },
];

/** Where one subschema's mutations apply: its keywords, its pointer, how a case names it, and how a case replaces the value there. */
interface Here {
  s: Record<string, unknown>;
  path: string;
  where: string;
  add: Add;
  replace: (next: unknown) => (root: Record<string, unknown>) => void;
}

function mutateHere(schema: CompiledSchema, s: Record<string, unknown>, value: unknown, path: string, add: Add): void {
  const where = path === '' ? 'the arguments' : path;
  const replace = (next: unknown) => (root: Record<string, unknown>) => setAt(root, path, next);
  const here: Here = { s, path, where, add, replace };
  mutateTypeConstEnum(here);
  if (typeof value === 'number') mutateNumber(here, value);
  if (typeof value === 'string') mutateString(here, value);
  if (Array.isArray(value)) mutateArray(here, value);
  if (isObject(value)) mutateObject(here, value);
}

/** Wrong type, null, outside const or enum: any value but the arguments themselves. */
function mutateTypeConstEnum({ s, path, where, add, replace }: Here): void {
  // type and null (never at the root: arguments that are not an object are a protocol probe).
  if (path !== '' && s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string => typeof t === 'string');
    const wrong = WRONG_TYPES.find((w) => !w.is(types));
    if (wrong)
      add('type', path, `${where} set to ${show(wrong.value)} (schema type: ${types.join(' or ')})`, replace(cloneJson(wrong.value)));
    if (!types.includes('null')) add('type', path, `${where} set to null (schema type: ${types.join(' or ')})`, replace(null));
  }
  if (path !== '' && 'const' in s) {
    const other = otherThan([s.const]);
    if (other !== undefined) add('const', path, `${where} set to ${show(other)} (const: ${show(s.const)})`, replace(other));
  }
  if (path !== '' && Array.isArray(s.enum)) {
    const other = otherThan(s.enum);
    if (other !== undefined) add('enum', path, `${where} set to ${show(other)} (outside the enum)`, replace(other));
  }
}

/** Out of the numeric bounds: minimum, maximum, their exclusive forms, multipleOf. */
function mutateNumber({ s, path, where, add, replace }: Here, value: number): void {
  const integer = s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer') && !s.type.includes('number'));
  const lo = typeof s.minimum === 'number' ? s.minimum : undefined;
  const hi = typeof s.maximum === 'number' ? s.maximum : undefined;
  if (lo !== undefined)
    add(
      'minimum',
      path,
      `${where} set to ${integer ? Math.ceil(lo) - 1 : lo - 1} (minimum: ${lo})`,
      replace(integer ? Math.ceil(lo) - 1 : lo - 1),
    );
  if (hi !== undefined)
    add(
      'maximum',
      path,
      `${where} set to ${integer ? Math.floor(hi) + 1 : hi + 1} (maximum: ${hi})`,
      replace(integer ? Math.floor(hi) + 1 : hi + 1),
    );
  if (typeof s.exclusiveMinimum === 'number') {
    add(
      'exclusiveMinimum',
      path,
      `${where} set to ${s.exclusiveMinimum} (exclusiveMinimum: ${s.exclusiveMinimum})`,
      replace(s.exclusiveMinimum),
    );
  }
  if (typeof s.exclusiveMaximum === 'number') {
    add(
      'exclusiveMaximum',
      path,
      `${where} set to ${s.exclusiveMaximum} (exclusiveMaximum: ${s.exclusiveMaximum})`,
      replace(s.exclusiveMaximum),
    );
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const m = s.multipleOf;
    const off = integer ? (Number.isInteger(m) && m >= 2 ? value + 1 : undefined) : value + m / 2;
    if (off !== undefined) add('multipleOf', path, `${where} set to ${off} (multipleOf: ${m})`, replace(off));
  }
}

/** Out of the string bounds: minLength, maxLength, pattern. */
function mutateString({ s, path, where, add, replace }: Here, value: string): void {
  const chars = [...value];
  const minLength = typeof s.minLength === 'number' ? s.minLength : undefined;
  const maxLength = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  if (minLength !== undefined && minLength > 0) {
    add(
      'minLength',
      path,
      `${where} cut to ${minLength - 1} character(s) (minLength: ${minLength})`,
      replace(chars.slice(0, minLength - 1).join('')),
    );
  }
  if (maxLength !== undefined) {
    const pad = chars.length ? chars[chars.length - 1]! : 'x';
    const longer = chars.concat(Array(maxLength + 1 - chars.length).fill(pad)).join('');
    add('maxLength', path, `${where} padded to ${maxLength + 1} characters (maxLength: ${maxLength})`, replace(longer));
  }
  if (typeof s.pattern === 'string') {
    const failing = patternFailure(s.pattern, minLength, maxLength, value);
    if (failing !== undefined) add('pattern', path, `${where} set to ${show(failing)} (pattern: ${s.pattern})`, replace(failing));
  }
}

/** Out of the array bounds: minItems, maxItems, uniqueItems. */
function mutateArray({ s, path, where, add, replace }: Here, value: unknown[]): void {
  const minItems = typeof s.minItems === 'number' ? s.minItems : undefined;
  const maxItems = typeof s.maxItems === 'number' ? s.maxItems : undefined;
  if (minItems !== undefined && minItems > 0) {
    add(
      'minItems',
      path,
      `${where} cut to ${minItems - 1} item(s) (minItems: ${minItems})`,
      replace(cloneJson(value.slice(0, minItems - 1))),
    );
  }
  if (maxItems !== undefined && value.length > 0) {
    const longer = cloneJson(value);
    while (longer.length <= maxItems) longer.push(cloneJson(value[longer.length % value.length]));
    add('maxItems', path, `${where} grown to ${maxItems + 1} items (maxItems: ${maxItems})`, replace(longer));
  }
  if (s.uniqueItems === true && value.length > 0) {
    add('uniqueItems', path, `${where} repeats its first item (uniqueItems)`, replace([...cloneJson(value), cloneJson(value[0])]));
  }
}

/** A required property removed; an undeclared one added where additionalProperties is false. */
function mutateObject({ s, path, where, add }: Here, value: JsonObject): void {
  const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
  for (const name of required) {
    if (!Object.hasOwn(value, name)) continue;
    add('required', path, `required property ${JSON.stringify(name)} removed from ${where}`, (root) => {
      const target = getAt(root, path) as Record<string, unknown>;
      delete target[name];
    });
  }
  if (s.additionalProperties === false) {
    const props = isObject(s.properties) ? s.properties : {};
    let extra = 'mcpc_unexpected';
    while (Object.hasOwn(props, extra) || Object.hasOwn(value, extra)) extra += '_';
    add(
      'additionalProperties',
      path,
      `undeclared property ${JSON.stringify(extra)} added to ${where} (additionalProperties: false)`,
      (root) => {
        (getAt(root, path) as Record<string, unknown>)[extra] = 'mcpc';
      },
    );
  }
}

/** A value of a type the list uses, equal to none of its members. */
function otherThan(list: unknown[]): unknown {
  const has = (v: unknown) => list.some((x) => canonical(x) === canonical(v));
  const candidates: unknown[] = [];
  if (list.some((x) => typeof x === 'string')) candidates.push('mcpc-not-allowed', 'mcpc-not-allowed-2');
  const numbers = list.filter((x): x is number => typeof x === 'number');
  if (numbers.length) candidates.push(Math.max(...numbers) + 1, Math.min(...numbers) - 1);
  if (list.some((x) => typeof x === 'boolean')) candidates.push(true, false);
  if (list.some((x) => isObject(x))) candidates.push({ mcpc: 1 });
  if (list.some((x) => Array.isArray(x))) candidates.push(['mcpc']);
  candidates.push('mcpc-not-allowed', 0, false);
  return candidates.find((c) => !has(c));
}

const PATTERN_PROBES = ['', ' ', '!', '~', '-', '0', 'a', 'Z', '_', '\t', 'mcpc not matching!', '日本', '0000000000', 'zzzzzzzzzz'];

/** A string failing `pattern`, preferably one whose length still fits the bounds. */
function patternFailure(
  pattern: string,
  minLength: number | undefined,
  maxLength: number | undefined,
  current: string,
): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  const probes = [...PATTERN_PROBES, `${current}!`, `!${current}`, ` ${current} `];
  if (minLength !== undefined) probes.push('!'.repeat(minLength), ' '.repeat(minLength), '0'.repeat(minLength));
  // Matched with the time budget (harness/regex.ts); a probe that overruns is no mutant.
  const fails = probes.filter((p) => {
    try {
      return !boundedTest(pattern, 'u', p);
    } catch {
      return false;
    }
  });
  const fits = (p: string) =>
    (minLength === undefined || [...p].length >= minLength) && (maxLength === undefined || [...p].length <= maxLength);
  return fails.find(fits) ?? fails[0];
}

/**
 * tools/list: shape, stability, ordering, names and schemas (server/tools.mdx).
 */
import { checkJsonSchema } from '../harness/jsonschema.js';
import { findHeaderAnnotations, TOKEN, type HeaderAnnotation } from '../harness/protocol.js';
import type { ListWalk } from '../harness/walk.js';
import { defineCheck, schedule, show, type Probe, type Rule } from './check.js';
import type { SpecRef } from '../model/spec.js';
import { judgeOrder, walkAgain, walked } from './lists.js';
import { JsonObject, canonical } from '../model/json.js';

const names = (walk: ListWalk): string[] => walk.items.map((t) => String(t?.name));

/** The walk, or not-observed when it could not be completed. */
function fullWalk(t: Probe, which: 'primary' | 'fresh' = 'primary'): Promise<ListWalk> {
  return walked(t, 'tools/list', which);
}

export const resultSchema = defineCheck({
  id: 'tools-list/result-schema',
  title: 'every tools/list page is a valid ListToolsResult (modern: with resultType "complete")',
  level: 'MUST',
  capability: 'tools',
  /*
   * Modern: server/tools#Capabilities requires the answer. Its resultType is
   * protocol/result-type's (an input_required answer, mrtr/placement's).
   * Legacy: server/tools 2025-11-25 states no such MUST (its Capabilities
   * section has only the declaration rule), so an error page is a note there
   * and the legacy rule is the schema's ListToolsResult.
   */
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  quote:
    'Servers that declare the tools capability MUST respond to tools/list requests with the set of tools currently available to the requesting client.',
  legacy: { spec: { revision: '2025-11-25', page: 'schema', section: 'ListToolsResult' }, quote: 'tools: Tool[];' },
  async run(t) {
    const walk = await t.ctx.tools();
    let results = 0;
    for (const page of walk.pages) {
      if (page.error && t.ctx.era === 'legacy') {
        t.note('error page', `JSON-RPC error ${show(page.error)}`);
        continue;
      }
      if (!t.expect(!page.error, { expected: 'a ListToolsResult', actual: `JSON-RPC error ${show(page.error)}`, wire: page })) continue;
      results++;
      t.expectSchemaValid(page, 'ListToolsResult');
    }
    if (results === 0 && t.ctx.era === 'legacy') t.notObserved('tools/list gave no result to validate');
    t.note('pages', walk.pages.length);
    t.note('tools', walk.items.length);
  },
});

export const deterministicOrder = defineCheck({
  id: 'tools-list/deterministic-order',
  title: 'tools/list returns the tools in the same order every time',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  // Modern only: the 2025-11-25 page has no ordering rule.
  quote:
    'Servers SHOULD return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed).',
  async run(t) {
    const first = await fullWalk(t);
    const second = await walkAgain(t, 'tools/list');
    const fresh = await fullWalk(t, 'fresh');
    judgeOrder(t, (tool) => String(tool?.name), first, [
      ['a second walk on the same connection', second],
      ['a walk on a fresh connection', fresh],
    ]);
  },
});

export const stableAcrossConnections = defineCheck({
  id: 'tools-list/stable-across-connections',
  title: 'a fresh connection sees the same set of tools',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  // Modern only: the 2025-11-25 page has no such rule (legacy state is per session).
  quote:
    'This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.',
  async run(t) {
    const first = await fullWalk(t);
    const fresh = await fullWalk(t, 'fresh');
    const a = new Set(names(first));
    const b = new Set(names(fresh));
    const missing = [...a].filter((n) => !b.has(n));
    const extra = [...b].filter((n) => !a.has(n));
    t.expect(missing.length === 0 && extra.length === 0, {
      expected: `the same ${a.size} tool name(s) on connection ${fresh.pages[0]!.frames[0]?.connection ?? 2}`,
      actual: `missing there: ${show(missing)}; only there: ${show(extra)}`,
      wire: [first.pages[0]!, fresh.pages[0]!],
    });
  },
});

export const uniqueNames = defineCheck({
  id: 'tools-list/unique-names',
  title: 'tool names are unique within the server',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Tool Names' },
  quote: 'Tool names SHOULD be unique within a server.',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Tool Names' } },
  async run(t) {
    const walk = await fullWalk(t);
    // Two different tools under one name clash; the same tool delivered twice is
    // pagination question the spec leaves open (caching#Interaction with
    // Pagination: "clients may observe duplicates or gaps"), not a clash.
    const definitions = new Map<string, Set<string>>();
    for (const tool of walk.items) {
      const name = String(tool?.name);
      const defs = definitions.get(name) ?? new Set<string>();
      defs.add(canonical(tool));
      definitions.set(name, defs);
    }
    const clashes = [...definitions].filter(([, defs]) => defs.size > 1).map(([name, defs]) => `${name} (${defs.size} different tools)`);
    t.expect(clashes.length === 0, {
      expected: 'each tool name used by one tool',
      actual: `names shared by different tools: ${show(clashes)}`,
      wire: walk.pages,
    });
  },
});

/** Spaces, commas and the other ASCII punctuation and symbols outside _ - . (letters beyond ASCII are the allowed-characters rule's alone). */
const SPECIAL = /[\s!-,/:-@[-^`{-~]/;

export const nameFormat = defineCheck({
  id: 'tools-list/name-format',
  title: 'tool names are 1-128 characters of A-Z a-z 0-9 _ - .',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Tool Names' },
  quote:
    'Tool names SHOULD be between 1 and 128 characters in length (inclusive). … The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (\\_), hyphen (-), and dot (.)',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Tool Names' } },
  parts: {
    // A name with a space, a comma or another ASCII special character is judged here alone, not by the allowed-characters rule too.
    special: {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'server/tools', section: 'Tool Names' },
      quote: 'Tool names SHOULD NOT contain spaces, commas, or other special characters.',
      legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Tool Names' } },
    },
  },
  perTool: {
    async run(t, tool) {
      const name = tool.name;
      const special = typeof name === 'string' ? [...new Set(name.match(new RegExp(SPECIAL.source, 'g')) ?? [])] : [];
      t.expect(special.length === 0, {
        part: 'special',
        expected: 'a name without spaces, commas or other special characters',
        actual: `name ${show(name)} contains ${special.map((c) => show(c)).join(', ')}`,
      });
      // The rest of the name against length and the allowed characters (the special characters are judged above).
      const rest = typeof name === 'string' ? name.replace(new RegExp(SPECIAL.source, 'g'), '') : name;
      const length = typeof name === 'string' ? name.length : 0;
      t.expect(typeof rest === 'string' && length >= 1 && length <= 128 && /^[A-Za-z0-9_.-]*$/.test(rest), {
        expected: 'a name matching ^[A-Za-z0-9_.-]{1,128}$',
        actual: `name ${show(name)}${typeof name === 'string' ? ` (${name.length} characters)` : ''}`,
      });
    },
  },
});

export const inputSchemaValid = defineCheck({
  id: 'tools-list/input-schema-valid',
  title: 'every inputSchema is a valid JSON Schema object schema of its dialect',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Tool' },
  quote: 'Defaults to 2020-12 if no $schema field is present MUST be a valid JSON Schema object (not null)',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Tool' } },
  parts: {
    // type "object" at the root is the schema's (Tool.inputSchema), not the page's words.
    'object-root': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'schema', section: 'Tool' },
      quote: 'inputSchema: { $schema?: string; type: "object"; [key: string]: unknown };',
      legacy: {
        spec: { revision: '2025-11-25', page: 'schema', section: 'Tool' },
        quote: 'inputSchema: { $schema?: string; type: "object";',
      },
    },
  },
  perTool: {
    async run(t, tool) {
      const schema = tool.inputSchema as JsonObject | undefined;
      const result = checkJsonSchema(schema);
      t.note('dialect', result.dialect);
      if (result.unevaluable) t.notObserved(result.unevaluable);
      if (!t.expect(result.ok, { expected: 'a valid JSON Schema', actual: result.errors.join('; ') })) return;
      t.expect(schema?.type === 'object', {
        expected: 'type "object" at the root',
        actual: `type ${show(schema?.type)}`,
        part: 'object-root',
      });
    },
  },
});

export const outputSchemaValid = defineCheck({
  id: 'tools-list/output-schema-valid',
  title: 'every outputSchema is a valid JSON Schema of its dialect',
  level: 'MUST',
  capability: 'tools',
  // server/tools#Output Schema is about the results; the schema's own validity is basic/index's.
  spec: { revision: 'draft', page: 'basic/index', section: 'Schema Validation' },
  quote: 'Schemas MUST be valid according to their declared or default dialect',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Schema Validation' } },
  perTool: {
    appliesTo: (tool) => tool.outputSchema !== undefined,
    noneReason: 'no listed tool has an outputSchema',
    async run(t, tool) {
      const result = checkJsonSchema(tool.outputSchema);
      t.note('dialect', result.dialect);
      if (result.unevaluable) t.notObserved(result.unevaluable);
      t.expect(result.ok, { expected: 'a valid JSON Schema', actual: result.errors.join('; ') });
    },
  },
});

/** A `$schema` naming one of the official dialects before 2020-12 (draft-03 to draft-07, 2019-09); other URIs may be 2020-12 meta-schemas. */
const OLDER_DIALECT = /^(?:https?:\/\/)?json-schema\.org\/(?:draft-0[3-7]|draft\/2019-09)\/schema#?$/;

export const schemaDialect = defineCheck({
  id: 'tools-list/schema-dialect',
  title: 'tool schemas use JSON Schema 2020-12 (no $schema, or the 2020-12 one)',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/index', section: 'Schema Dialect' },
  quote: 'Recommendation: Implementors are RECOMMENDED to use JSON Schema 2020-12.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Schema Dialect' } },
  perTool: {
    async run(t, tool) {
      for (const key of ['inputSchema', 'outputSchema'] as const) {
        const schema = tool[key];
        if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) continue;
        const uri = (schema as JsonObject).$schema;
        if (uri === undefined) continue;
        t.note(`${key} $schema`, uri);
        // A URI this suite does not know may name a 2020-12 meta-schema of the server's own: no finding.
        t.expect(!(typeof uri === 'string' && OLDER_DIALECT.test(uri)), {
          expected: `${key} in JSON Schema 2020-12 (no $schema, or https://json-schema.org/draft/2020-12/schema)`,
          actual: `${key} declares $schema ${show(uri)}`,
        });
      }
    },
  },
});

const X_MCP_HEADER = { revision: 'draft', page: 'server/tools', section: 'x-mcp-header' } as const;
const mustHeader = (quote: string, spec: SpecRef = X_MCP_HEADER): Rule => ({ level: 'MUST', spec, quote });

/** The primitive types an x-mcp-header parameter may have (number is not one). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords the chain to an annotated property must not pass through (streamable-http#Schema Extension); `$defs` is reached only by `$ref`. */
const CHAIN_KEYWORDS = new Set([
  ...['items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems'],
  ...['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'],
  ...['$ref', '$defs', 'definitions'],
]);
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Is the annotated schema's parameter of a primitive type? A `null` beside one is allowed (a null value omits the header). */
function primitiveParameter(schema: JsonObject): boolean {
  const primitiveValue = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isInteger(v);
  if (schema.type === undefined) {
    // No type: only a const or an enum of primitive values pins it to one.
    const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
    return values !== undefined && values.length > 0 && values.every(primitiveValue) && values.some((v) => v !== null);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.some((ty) => HEADER_TYPES.has(ty as string)) && types.every((ty) => HEADER_TYPES.has(ty as string) || ty === 'null');
}

/**
 * Integers the declaration of an integer x-mcp-header parameter admits outside
 * the IEEE 754 safe range: a const, enum member or default that is one, or
 * bounds that leave no safe integer. Bounds that merely allow unsafe values
 * beside safe ones are no finding (an integer schema without bounds is one).
 */
function unsafeDeclaration(schema: JsonObject): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (!types.includes('integer')) return undefined;
  const unsafe = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v);
  if (unsafe(schema.const)) return `const ${show(schema.const)}`;
  const members = Array.isArray(schema.enum) ? schema.enum.filter(unsafe) : [];
  if (members.length) return `enum member(s) ${show(members)}`;
  if (unsafe(schema.default)) return `default ${show(schema.default)}`;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const lo = Math.max(num(schema.minimum) ?? -Infinity, (num(schema.exclusiveMinimum) ?? -Infinity) + 1);
  const hi = Math.min(num(schema.maximum) ?? Infinity, (num(schema.exclusiveMaximum) ?? Infinity) - 1);
  if (lo > Number.MAX_SAFE_INTEGER || hi < Number.MIN_SAFE_INTEGER)
    return `bounds admitting no safe integer (from ${String(lo)} to ${String(hi)})`;
  return undefined;
}

export const xMcpHeader = defineCheck({
  id: 'tools-list/x-mcp-header',
  title: 'x-mcp-header annotations meet their constraints',
  level: 'MUST',
  capability: 'tools',
  // Modern only: x-mcp-header does not exist in 2025-11-25. The same list on streamable-http#Schema Extension restates it (coverage/exclusions.yaml).
  spec: X_MCP_HEADER,
  quote: 'Constraints on x-mcp-header values: MUST NOT be empty',
  parts: {
    token: mustHeader('MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1)'),
    'control-chars': mustHeader('MUST NOT contain control characters, including carriage return (CR, \\r) or line feed (LF, \\n)'),
    unique: mustHeader('MUST be case-insensitively unique among all x-mcp-header values in the inputSchema'),
    primitive: mustHeader('MUST only be applied to parameters with primitive types (integer, string, boolean).'),
    // Judged on the declaration: the values it pins or bounds it sets, never on the values a client may send.
    'integer-range': mustHeader(
      'Integer values MUST be within the safe range for integers represented using IEEE754 double-precision floating point numbers',
    ),
    reachable: mustHeader('MUST only be applied to properties that are statically reachable from the schema root'),
    chain: mustHeader(
      'The chain MUST NOT pass through items (or any other array keyword), composition keywords (oneOf, anyOf, allOf, not), conditional keywords (if/then/else), or $ref.',
      { revision: 'draft', page: 'basic/transports/streamable-http', section: 'Schema Extension' },
    ),
  },
  perTool: {
    appliesTo: (tool) => findHeaderAnnotations(tool.inputSchema).length > 0,
    noneReason: 'no listed tool carries an x-mcp-header annotation',
    async run(t, tool) {
      const lower = new Map<string, string>();
      for (const a of findHeaderAnnotations(tool.inputSchema)) judgeAnnotation(t, a, lower);
    },
  },
});

/** One annotation against each constraint; `lower` holds the lower-cased values seen so far in this inputSchema. */
function judgeAnnotation(t: Probe, a: HeaderAnnotation, lower: Map<string, string>): void {
  const where = `at ${a.pointer}`;
  const v = a.value;
  if (!t.expect(v !== '', { expected: 'a non-empty x-mcp-header value', actual: `"" ${where}` })) return;
  if (typeof v === 'string' && CONTROL.test(v)) {
    t.expect(false, { part: 'control-chars', expected: 'a value without control characters', actual: `${show(v)} ${where}` });
  } else {
    t.expect(typeof v === 'string' && TOKEN.test(v), {
      part: 'token',
      expected: 'an RFC 9110 token (1*tchar)',
      actual: `${show(v)} ${where}`,
    });
  }
  if (typeof v === 'string') {
    const prior = lower.get(v.toLowerCase());
    t.expect(prior === undefined, {
      part: 'unique',
      expected: 'x-mcp-header values unique in the inputSchema, compared case-insensitively',
      actual: `${show(v)} ${where} repeats ${show(prior)}`,
    });
    lower.set(v.toLowerCase(), v);
  }
  if (a.path === undefined) {
    const chain = a.via !== undefined && CHAIN_KEYWORDS.has(a.via);
    t.expect(false, {
      part: chain ? 'chain' : 'reachable',
      expected: 'a property reached from the root through properties keys only',
      actual: `the annotation ${where} is reached through ${show(a.via ?? '(unknown)')}${a.via === '$defs' || a.via === 'definitions' ? ' (a definition, reached by $ref)' : ''}`,
    });
    return;
  }
  const primitive = t.expect(a.path.length > 0 && primitiveParameter(a.schema), {
    part: 'primitive',
    expected: 'a parameter of type integer, string or boolean (number is not permitted)',
    actual: a.path.length === 0 ? `the annotation is on the inputSchema root ${where}` : `type ${show(a.type)} ${where}`,
  });
  const unsafe = primitive ? unsafeDeclaration(a.schema) : undefined;
  t.expect(unsafe === undefined, {
    part: 'integer-range',
    expected: `an integer parameter whose declared values lie within ±(2^53 − 1)`,
    actual: `${unsafe} ${where}`,
  });
}

// Walks and re-walks tools/list: on the first connection, one at a time, so no other walk of the list interleaves.
export const toolsListChecks = [
  resultSchema,
  deterministicOrder,
  stableAcrossConnections,
  uniqueNames,
  nameFormat,
  inputSchemaValid,
  outputSchemaValid,
  schemaDialect,
  xMcpHeader,
];
for (const c of toolsListChecks) schedule(c, { primary: 'walks tools/list on the first connection' });

/**
 * tools/list: shape, stability, ordering, names and schemas (server/tools.mdx).
 */
import { checkJsonSchema } from '../harness/jsonschema.js';
import { findHeaderAnnotations, TOKEN } from '../harness/protocol.js';
import type { ListWalk } from '../harness/walk.js';
import { defineCheck, schedule, show, type Probe } from './check.js';
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

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export const nameFormat = defineCheck({
  id: 'tools-list/name-format',
  title: 'tool names are 1-128 characters of A-Z a-z 0-9 _ - .',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Tool Names' },
  quote:
    'Tool names SHOULD be between 1 and 128 characters in length (inclusive). … The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (\\_), hyphen (-), and dot (.)',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Tool Names' } },
  perTool: {
    async run(t, tool) {
      const name = tool.name;
      t.expect(typeof name === 'string' && NAME.test(name), {
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

export const xMcpHeader = defineCheck({
  id: 'tools-list/x-mcp-header',
  title: 'x-mcp-header annotations meet their constraints',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'x-mcp-header' },
  // Modern only: x-mcp-header does not exist in 2025-11-25. The integer safe range is about call values, not judged here.
  quote:
    'Constraints on x-mcp-header values: MUST NOT be empty MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1) MUST NOT contain control characters, including carriage return (CR, \\r) or line feed (LF, \\n) MUST be case-insensitively unique among all x-mcp-header values in the inputSchema MUST only be applied to parameters with primitive types (integer, string, boolean). … MUST only be applied to properties that are statically reachable from the schema root',
  perTool: {
    appliesTo: (tool) => findHeaderAnnotations(tool.inputSchema).length > 0,
    noneReason: 'no listed tool carries an x-mcp-header annotation',
    async run(t, tool) {
      const found = findHeaderAnnotations(tool.inputSchema);
      const lower = new Map<string, string>();
      for (const a of found) {
        const where = `at ${a.pointer}`;
        const v = a.value;
        if (!t.expect(typeof v === 'string' && v.length > 0, { expected: 'a non-empty string', actual: `${show(v)} ${where}` })) continue;
        const name = v as string;
        t.expect(TOKEN.test(name), { expected: 'an RFC 9110 token (1*tchar), no control characters', actual: `${show(name)} ${where}` });
        const prior = lower.get(name.toLowerCase());
        t.expect(prior === undefined, {
          expected: 'case-insensitively unique values',
          actual: `${show(name)} ${where} repeats ${show(prior)}`,
        });
        lower.set(name.toLowerCase(), name);
        const types = Array.isArray(a.type) ? a.type : [a.type];
        const primitive = types.every((ty) => ty === 'string' || ty === 'integer' || ty === 'boolean');
        t.expect(a.type !== undefined && primitive, {
          expected: 'a parameter of type integer, string or boolean (number is not permitted)',
          actual: `type ${show(a.type)} ${where}`,
        });
        t.expect(a.path !== undefined, {
          expected: 'a property reachable from the root through properties keys only',
          actual: `annotation ${where} is reached through another keyword`,
        });
      }
    },
  },
});

// Walks and re-walks tools/list: on the first connection, one at a time, so no other walk of the list interleaves.
export const toolsListChecks = [
  resultSchema,
  deterministicOrder,
  stableAcrossConnections,
  uniqueNames,
  nameFormat,
  inputSchemaValid,
  outputSchemaValid,
  xMcpHeader,
];
for (const c of toolsListChecks) schedule(c, { primary: 'walks tools/list on the first connection' });

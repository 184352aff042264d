/**
 * tools/call with generated arguments (server/tools.mdx "Calling Tools",
 * "Tool Result", "Output Schema", "Error Handling", "Security
 * Considerations"; basic/index "Error Responses", "Error Codes").
 *
 * Calls are derived from each tool's own inputSchema (./args): valid
 * arguments to see what a tool answers, and invalid ones (one broken keyword
 * each) to see that it rejects them, in the right category, and keeps
 * serving. A failure is shrunk to the smallest call that shows it and
 * carries the seed and path that replay it.
 */
import fc from 'fast-check';
import { checkJsonSchema, dialectOf, formatErrors, isIndeterminate } from '../harness/jsonschema.js';
import type { Exchange } from '../harness/session.js';
import { argumentRun, type ArgumentRun, type CallRecord } from './args/calls.js';
import { explore, type Exploration, type Problem } from './args/explore.js';
import type { ValidPlan } from './args/generate.js';
import { mutantsOf, type Mutant } from './args/mutate.js';
import { defineCheck, idOf, schedule, show, type Probe, type Rule } from './check.js';
import { attempt } from './requests.js';
import { capability } from './resources.js';
import { inboundMessages } from './wire-messages.js';
import type { WireFrame } from '../model/wire.js';
import type { SpecRef } from '../model/spec.js';
import { whyTaskOnly } from './tasks.js';
import { inputSchemaValid, outputSchemaValid } from './tools-list.js';
import { notCalled } from './safety.js';
import { canonical, isObject, type JsonObject } from '../model/json.js';
import { ERROR_CODES, inMcpReservedRange, MCP_DEFINED_CODES } from '../model/error-codes.js';

type Judge<T> = (record: CallRecord, value: T) => Problem[] | undefined;

/*
 * The citations these checks share. Every one of them is stated on the
 * 2025-11-25 pages too (server/tools "Output Schema", "Structured Content",
 * "Security Considerations"; basic/index "Messages"; the schema), so the
 * checks run in both eras, each quoting its era's page.
 */

/** basic/index: JSON-RPC 2.0 requires a response to every request; MCP messages MUST follow it. */
const ANSWERED_QUOTE =
  'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. … Responses are sent in reply to requests, containing either the result or error of the operation.';
const ANSWERED = {
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'Messages' },
  quote: ANSWERED_QUOTE,
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Messages' } },
} as const satisfies Rule;

/** server/tools "Security Considerations" (both eras). */
const VALIDATE_QUOTE = 'Servers MUST: Validate all tool inputs';

/**
 * The error-category rule. server/tools "Error Handling" sorts errors into
 * protocol errors and tool execution errors without a keyword; the keyword
 * sentence is the schema's (CallToolResult.isError, both eras): SHOULD.
 */
const CATEGORY = {
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'schema', section: 'CallToolResult' },
  quote:
    'Any errors that originate from the tool SHOULD be reported inside the result object, with isError set to true, not as an MCP protocol-level error response.',
  legacy: { spec: { revision: '2025-11-25', page: 'schema', section: 'CallToolResult' } },
} as const satisfies Rule;

/** server/tools "Error Handling" (both eras) sorts errors into protocol and tool execution errors, without a keyword. */
const ERROR_HANDLING: SpecRef[] = [
  { revision: 'draft', page: 'server/tools', section: 'Error Handling' },
  { revision: '2025-11-25', page: 'server/tools', section: 'Error Handling' },
];

/** server/tools "Output Schema" (both eras). */
const OUTPUT_SCHEMA_QUOTE = 'If an output schema is provided: Servers MUST provide structured results that conform to this schema.';

const isSuccess = (ex: Exchange | undefined): ex is Exchange & { result: JsonObject } =>
  !!ex?.result && !ex.error && ex.result.resultType !== 'input_required' && ex.result.isError !== true;

function answerText(record: CallRecord): string {
  if (record.noAnswer !== undefined) return `no answer: ${record.noAnswer}`;
  const ex = record.exchange!;
  if (ex.error) return `JSON-RPC error ${show(ex.error.code)} ${show(ex.error.message)}`;
  return `result ${show(ex.result, 240)}`;
}

function callText(record: CallRecord): string {
  const { name, ...rest } = record.params;
  return `tools/call ${name === undefined ? '(no name)' : show(name)} with ${Object.keys(rest).length ? show(rest, 400) : 'no other params'}`;
}

/** The run's plan for a tool, or the end of the check for this subject. */
function planFor(t: Probe, run: ArgumentRun, tool: JsonObject): Extract<ValidPlan, { ok: true }> {
  const plan = run.validPlan(tool);
  if (plan.ok) return plan;
  if (plan.invalidSchema) t.skip(`${plan.reason} (judged by ${idOf(inputSchemaValid)})`);
  return t.notObserved(plan.reason);
}

/** With --replay, only the named tool is explored (at the named path). */
function replayPath(t: Probe, run: ArgumentRun, tool: JsonObject): string | undefined {
  const replay = run.settings.replay;
  if (!replay) return undefined;
  if (replay.tool !== tool.name) t.skip(`--replay replays one case of tool ${JSON.stringify(replay.tool)}`);
  return replay.path;
}

/** Turn an exploration into findings, a note, or not-observed. */
function conclude<T>(
  t: Probe,
  tool: JsonObject,
  result: Exploration<T>,
  opts: { nothingJudged: string; describe?: (value: T) => string | undefined; replayed?: string },
): void {
  const f = result.failure;
  if (f) {
    const extra = opts.describe?.(f.value);
    const how = opts.replayed
      ? `replayed with seed ${f.seed}, path ${f.path}`
      : `found after ${f.runsToFailure} generated call(s), shrunk ${f.shrinks} time(s); seed ${f.seed}, path ${f.path}`;
    for (const p of f.problems) {
      t.expect(false, {
        expected: p.expected,
        actual: [p.actual, `Call: ${callText(f.record)}`, ...(extra ? [`Breaks: ${extra}`] : []), `Case: ${how}`].join('\n'),
        wire: [...f.record.frames, ...(p.moreWire ?? [])],
        ...(p.part ? { part: p.part } : {}),
        replay: { check: t.check.id, tool: String(tool.name), seed: f.seed, path: f.path },
      });
    }
    return;
  }
  if (result.judged === 0) {
    t.notObserved(`${opts.nothingJudged} (${result.runs} generated call(s)${result.unjudged ? `; last: ${result.unjudged}` : ''})`);
  }
  t.note('calls judged', result.judged);
  if (opts.replayed) t.note('replayed', `path ${opts.replayed} did not fail this time`);
}

/** Explore a tool with valid arguments (only tools the safety rules allow). */
async function exploreValid(t: Probe, tool: JsonObject, judge: Judge<unknown>, nothingJudged: string): Promise<void> {
  const run = argumentRun(t.ctx);
  const path = replayPath(t, run, tool);
  const held = run.whyNotCallable(tool);
  if (held) notCalled(t, String(tool.name), held);
  const why = whyTaskOnly(t, tool);
  if (why) t.notObserved(why);
  const plan = planFor(t, run, tool);
  t.note('generator', plan.source);
  const params = (v: unknown): JsonObject => ({ name: tool.name, arguments: v });
  const result = await explore({
    arb: plan.arb,
    seed: run.settings.seed,
    runs: run.settings.runs,
    examples: plan.edges,
    ...(path !== undefined ? { path } : {}),
    call: (v) => run.call('valid', params(v)),
    cached: (v) => run.has('valid', params(v)),
    // A valid call may legitimately outlast the request timeout (a tool told to run long): after one, no more are sent.
    maySend: () => run.validTimeouts(String(tool.name)) === 0,
    judge,
  });
  conclude(t, tool, result, { nothingJudged, ...(path !== undefined ? { replayed: path } : {}) });
}

const mutantArbs = new WeakMap<object, fc.Arbitrary<Mutant | null>>();

/**
 * Mutants of generated valid values (null when a value has none). A drawn
 * pair (valid value, mutant index) picks one mutant; when fast-check shrinks
 * the valid value, the same index keeps naming the same kind of mutant, so
 * the failing keyword survives shrinking.
 */
function mutantArbitrary(plan: Extract<ValidPlan, { ok: true }>): fc.Arbitrary<Mutant | null> {
  let arb = mutantArbs.get(plan);
  if (!arb) {
    const memo = new Map<string, Mutant[]>();
    const mutants = (v: unknown): Mutant[] => {
      const key = canonical(v);
      let ms = memo.get(key);
      if (!ms) {
        ms = mutantsOf(plan.schema, v);
        if (memo.size > 2000) memo.clear();
        memo.set(key, ms);
      }
      return ms;
    };
    arb = fc.tuple(plan.arb, fc.nat({ max: 0xffff })).map(([v, k]) => {
      const ms = mutants(v);
      return ms.length ? ms[k % ms.length]! : null;
    });
    mutantArbs.set(plan, arb);
  }
  return arb;
}

/**
 * After this many lost connections on one tool, checks that do not judge
 * lost connections send it no new invalid calls once they have judged a few
 * (each lost connection may cost a server restart).
 */
const MAX_LOSSES_PER_TOOL = 2;
const MIN_JUDGED = 3;

/** Explore a tool with invalid arguments (every tool: the server must reject them before running anything). */
async function exploreInvalid(
  t: Probe,
  tool: JsonObject,
  judge: Judge<Mutant>,
  opts: { judgesLostConnections?: boolean } = {},
): Promise<void> {
  const run = argumentRun(t.ctx);
  const path = replayPath(t, run, tool);
  // A server that does not validate executes an invalid call: the same consent as a valid one.
  const held = run.whyNotCallable(tool, 'invalid arguments');
  if (held) notCalled(t, String(tool.name), held);
  const plan = planFor(t, run, tool);
  const arb = mutantArbitrary(plan);
  const sample = fc.sample(arb, { seed: run.settings.seed, numRuns: 20 });
  if (sample.every((m) => m === null)) t.skip('the inputSchema admits every object: no argument value is invalid');
  const params = (m: Mutant): JsonObject => ({ name: tool.name, arguments: m.value });
  const result = await explore<Mutant | null>({
    arb,
    seed: run.settings.seed,
    runs: run.settings.runs,
    ...(path !== undefined ? { path } : {}),
    call: (m) => (m ? run.call('invalid', params(m), { mutant: mutantInfo(m) }) : Promise.resolve(NO_CALL)),
    cached: (m) => !m || run.has('invalid', params(m)),
    ...(opts.judgesLostConnections
      ? {}
      : { maySend: (_m, judged) => judged < MIN_JUDGED || run.connectionLosses(String(tool.name)) < MAX_LOSSES_PER_TOOL }),
    judge: (rec, m) => (m ? judge(rec, m) : undefined),
  });
  conclude(t, tool, result, {
    nothingJudged: 'no invalid call got an answer this check can judge',
    describe: (m) => (m ? `${m.keyword} at ${m.pointer || '(root)'}: ${m.description}` : undefined),
    ...(path !== undefined ? { replayed: path } : {}),
  });
}

const NO_CALL: CallRecord = { purpose: 'invalid', params: {}, frames: [] };

function mutantInfo(m: Mutant): Omit<Mutant, 'value'> {
  return { keyword: m.keyword, pointer: m.pointer, description: m.description, ...(m.schemaPath ? { schemaPath: m.schemaPath } : {}) };
}

// ---- valid calls ----

/** Schema errors of a tools/call result outside its content blocks (those are tools-call/content-blocks'). */
function resultSchemaErrors(t: Probe, ex: Exchange): { def: string; errors: string[] } {
  if (ex.schemaDef === 'JSONRPCResultResponse' && ex.schemaErrors.length) return { def: ex.schemaDef, errors: ex.schemaErrors };
  const result = ex.result!;
  const def = t.ctx.protocolSchema.resultDefFor('tools/call', result);
  const value = Array.isArray(result.content) ? { ...result, content: [] } : result;
  return { def, errors: t.ctx.protocolSchema.validate(def, value) };
}

/**
 * A valid call is answered (JSON-RPC: every request gets a response) with a
 * result valid against the schema. A JSON-RPC error is no finding: server/tools
 * "Error Handling" has no keyword and itself lists server errors among the
 * protocol errors, and a tool that needs a capability the suite did not
 * declare answers -32021, which basic/index requires. Such answers are noted.
 */
export const validResult = defineCheck({
  id: 'tools-call/valid-result',
  title: 'a call with valid arguments is answered, and a result is valid against CallToolResult',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'schema', section: 'CallToolResult' },
  quote: 'A list of content objects that represent the unstructured result of the tool call. content: ContentBlock[];',
  legacy: { spec: { revision: '2025-11-25', page: 'schema', section: 'CallToolResult' } },
  parts: { answered: ANSWERED },
  context: ERROR_HANDLING,
  perTool: {
    async run(t, tool) {
      const errors = new Map<string, number>();
      await exploreValid(
        t,
        tool,
        (rec) => {
          // No answer within the suite's timeout shows no missing response (a tool may run long): not judged.
          if (rec.timedOut) {
            t.note('not judged: no answer within the request timeout (--timeout)', callText(rec));
            t.inform(
              `tools/call ${String(tool.name)} took longer than the request timeout (${t.ctx.settings.requestTimeoutMs / 1000} s): no sentence bounds a tool's time, so it is not judged (--timeout waits longer)`,
            );
            return undefined;
          }
          if (rec.noAnswer !== undefined) return [{ expected: 'an answer to the valid call', actual: answerText(rec), part: 'answered' }];
          // A round trip cut short is the mrtr/* checks' to judge.
          if (rec.cutShort !== undefined) return [];
          const ex = rec.exchange!;
          if (ex.error) {
            const code = String(ex.error.code);
            errors.set(code, (errors.get(code) ?? 0) + 1);
            t.note('JSON-RPC errors to valid calls (by code)', Object.fromEntries(errors));
            return [];
          }
          // resultType itself is protocol/result-type's.
          const problems: Problem[] = [];
          const { def, errors: schemaErrors } = resultSchemaErrors(t, ex);
          t.markSchemaJudged(ex);
          if (schemaErrors.length) {
            problems.push({
              expected: `a result valid against ${def} (content blocks are judged by ${idOf(contentBlocks)})`,
              actual: schemaErrors.join('; '),
            });
          }
          return problems;
        },
        'no valid call got an answer',
      );
    },
  },
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BLOCK_DEFS: Record<string, string> = {
  text: 'TextContent',
  image: 'ImageContent',
  audio: 'AudioContent',
  resource_link: 'ResourceLink',
  resource: 'EmbeddedResource',
};

const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** What is wrong with one content block (empty when nothing is). */
export function blockProblems(t: Probe, block: unknown, at: string): Problem[] {
  if (!isObject(block)) {
    return [{ expected: `a content block object at ${at}`, actual: show(block) }];
  }
  const b = block as JsonObject;
  const def = typeof b.type === 'string' ? BLOCK_DEFS[b.type] : undefined;
  if (!def)
    return [
      { expected: `a content block of a known type (${Object.keys(BLOCK_DEFS).join(', ')}) at ${at}`, actual: `type ${show(b.type)}` },
    ];
  const problems: Problem[] = [];
  if (b.type === 'image' || b.type === 'audio') {
    if (typeof b.data !== 'string' || !BASE64.test(b.data)) {
      problems.push({ expected: `${at}/data: base64-encoded ${b.type} data`, actual: `data ${show(b.data, 120)} is not base64` });
    }
    if (!nonEmptyString(b.mimeType))
      problems.push({ expected: `${at}/mimeType: the MIME type of the ${b.type}`, actual: `mimeType ${show(b.mimeType)}` });
  }
  if (b.type === 'resource_link') {
    if (!nonEmptyString(b.uri)) problems.push({ expected: `${at}/uri: the linked resource's URI`, actual: `uri ${show(b.uri)}` });
    if (!nonEmptyString(b.name)) problems.push({ expected: `${at}/name: the linked resource's name`, actual: `name ${show(b.name)}` });
  }
  if (b.type === 'resource') {
    const r = b.resource as JsonObject | undefined;
    if (typeof r?.blob === 'string' && !BASE64.test(r.blob)) {
      problems.push({ expected: `${at}/resource/blob: base64-encoded data`, actual: `blob ${show(r.blob, 120)} is not base64` });
    }
  }
  if (problems.length) return problems;
  const errors = t.ctx.protocolSchema.validate(def, b);
  return errors.length ? [{ expected: `${at}: a valid ${def}`, actual: errors.join('; ') }] : [];
}

export const contentBlocks = defineCheck({
  id: 'tools-call/content-blocks',
  title: 'content blocks of tool results are well-formed',
  level: 'MUST',
  capability: 'tools',
  // The page's Tool Result section shows the blocks without a keyword; the rule is the schema's (each block's definition; base64 is ImageContent/AudioContent data "@format byte").
  spec: { revision: 'draft', page: 'schema', section: 'ContentBlock' },
  quote: 'TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;',
  legacy: { spec: { revision: '2025-11-25', page: 'schema', section: 'ContentBlock' } },
  perTool: {
    async run(t, tool) {
      await exploreValid(
        t,
        tool,
        (rec) => {
          const ex = rec.exchange;
          if (!ex?.result || ex.error || ex.result.resultType === 'input_required' || !Array.isArray(ex.result.content)) return undefined;
          t.markSchemaJudged(ex);
          return ex.result.content.flatMap((block, i) => blockProblems(t, block, `/content/${i}`));
        },
        'no valid call was answered with a result carrying content',
      );
    },
  },
});

const hasOutputSchema = (tool: JsonObject) => tool.outputSchema !== undefined;

export const structuredContentPresent = defineCheck({
  id: 'tools-call/structured-content-present',
  title: 'a tool with an outputSchema returns structuredContent',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Output Schema' },
  quote: OUTPUT_SCHEMA_QUOTE,
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Output Schema' } },
  perTool: {
    appliesTo: hasOutputSchema,
    noneReason: 'no listed tool has an outputSchema',
    async run(t, tool) {
      await exploreValid(
        t,
        tool,
        (rec) => {
          if (!isSuccess(rec.exchange)) return undefined;
          const result = rec.exchange.result;
          return 'structuredContent' in result
            ? []
            : [
                {
                  expected: 'structuredContent in every successful result (the tool declares an outputSchema)',
                  actual: `no structuredContent: ${show(result, 240)}`,
                },
              ];
        },
        'no valid call succeeded (every answer was an error, isError: true or input_required)',
      );
    },
  },
});

export const structuredContentValid = defineCheck({
  id: 'tools-call/structured-content-valid',
  title: 'structuredContent conforms to the outputSchema',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Output Schema' },
  quote: OUTPUT_SCHEMA_QUOTE,
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Output Schema' } },
  perTool: {
    appliesTo: hasOutputSchema,
    noneReason: 'no listed tool has an outputSchema',
    async run(t, tool) {
      const compiled = checkJsonSchema(tool.outputSchema);
      const validate = compiled.validate;
      if (!validate)
        return t.skip(`the outputSchema is not a valid JSON Schema (judged by ${idOf(outputSchemaValid)}): ${compiled.errors.join('; ')}`);
      await exploreValid(
        t,
        tool,
        (rec) => {
          if (!isSuccess(rec.exchange) || !('structuredContent' in rec.exchange.result)) return undefined;
          const value = rec.exchange.result.structuredContent;
          if (validate(value)) return [];
          if (isIndeterminate(validate.errors))
            t.notObserved(`structuredContent could not be judged: ${formatErrors(validate.errors).join('; ')}`);
          return [
            {
              expected: `structuredContent valid against the outputSchema (${compiled.dialect})`,
              actual: `${formatErrors(validate.errors).join('; ')} in ${show(value, 240)}`,
            },
          ];
        },
        'no valid call succeeded with structuredContent',
      );
    },
  },
});

/** A text block holding the JSON serialization of `value`? */
function hasSerializedText(content: unknown, value: unknown): boolean {
  if (!Array.isArray(content)) return false;
  const want = canonical(value);
  return content.some((b) => {
    if (typeof b !== 'object' || b === null || (b as JsonObject).type !== 'text' || typeof (b as JsonObject).text !== 'string')
      return false;
    try {
      return canonical(JSON.parse((b as JsonObject).text as string)) === want;
    } catch {
      return false;
    }
  });
}

export const structuredContentText = defineCheck({
  id: 'tools-call/structured-content-text',
  title: 'structuredContent is also returned as serialized JSON in a text block',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Structured Content' },
  quote:
    'For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Structured Content' } },
  perTool: {
    appliesTo: hasOutputSchema,
    noneReason: 'no listed tool has an outputSchema',
    async run(t, tool) {
      await exploreValid(
        t,
        tool,
        (rec) => {
          const result = rec.exchange?.result;
          if (!result || rec.exchange!.error || !('structuredContent' in result)) return undefined;
          if (hasSerializedText(result.content, result.structuredContent)) return [];
          return [
            {
              expected: 'a text block whose text is the serialized JSON of structuredContent',
              actual: `structuredContent ${show(result.structuredContent, 160)}; content ${show(result.content, 200)}`,
            },
          ];
        },
        'no valid call was answered with structuredContent',
      );
    },
  },
});

// ---- invalid calls ----

/** basic/index "Implementation Requirements" (both eras): the dialect rules, as the server's argument validation shows them. */
const DIALECT_SECTION = { revision: 'draft', page: 'basic/index', section: 'Implementation Requirements' } as const;
const LEGACY_DIALECT_SECTION = { revision: '2025-11-25', page: 'basic/index', section: 'Implementation Requirements' } as const;

/** Keywords JSON Schema 2020-12 has and earlier dialects do not (an earlier validator ignores them). */
const ONLY_2020_12 =
  /^#(?:\/.*)?\/(?:prefixItems|dependentRequired|dependentSchemas|unevaluatedProperties|unevaluatedItems|minContains|maxContains)(?:\/|$)/;

/**
 * The dialect part an accepted invalid call breaks, when the keyword it breaks
 * lies under one only 2020-12 has: the server applied its schema as an earlier
 * dialect would. Without $schema the schema is 2020-12 by default; with the
 * 2020-12 $schema, by declaration. Otherwise the main rule (validate inputs).
 */
function dialectPart(tool: JsonObject, m: Mutant): 'default-dialect' | 'declared-dialect' | undefined {
  if (!m.schemaPath || !ONLY_2020_12.test(m.schemaPath)) return undefined;
  const uri = isObject(tool.inputSchema) ? tool.inputSchema.$schema : undefined;
  if (uri === undefined) return 'default-dialect';
  return typeof uri === 'string' && dialectOf(uri) === '2020-12' ? 'declared-dialect' : undefined;
}

export const invalidRejected = defineCheck({
  id: 'tools-call/invalid-rejected',
  title: 'a call with invalid arguments is rejected, never answered as a success',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Security Considerations' },
  // An invalid call answered as a success was not validated; either rejection (isError or a JSON-RPC error) did validate.
  quote: VALIDATE_QUOTE,
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Security Considerations' } },
  parts: {
    // An accepted call whose only fault is a 2020-12 keyword (prefixItems, dependentRequired, …) in a schema without $schema.
    'default-dialect': {
      level: 'MUST',
      spec: DIALECT_SECTION,
      quote: 'Clients and servers MUST support JSON Schema 2020-12 for schemas without an explicit $schema field',
      legacy: { spec: LEGACY_DIALECT_SECTION },
    },
    // The same, in a schema that declares 2020-12 with $schema.
    'declared-dialect': {
      level: 'MUST',
      spec: DIALECT_SECTION,
      quote: 'Clients and servers MUST validate schemas according to their declared or default dialect.',
      legacy: { spec: LEGACY_DIALECT_SECTION },
    },
  },
  perTool: {
    async run(t, tool) {
      await exploreInvalid(t, tool, (rec, m) => {
        const ex = rec.exchange;
        if (!ex) return undefined;
        if (ex.error) return [];
        if (ex.result?.resultType === 'input_required') return undefined;
        if (ex.result?.isError === true) return [];
        const part = dialectPart(tool, m);
        return [
          {
            expected: part
              ? `the invalid arguments rejected: they break ${m.schemaPath}, a keyword of JSON Schema 2020-12 (the inputSchema's ${part === 'default-dialect' ? 'default' : 'declared'} dialect)`
              : 'the invalid arguments rejected: a result with isError: true, or a JSON-RPC error',
            actual: `a success: ${answerText(rec)}`,
            ...(part ? { part } : {}),
          },
        ];
      });
    },
  },
});

export const invalidNoInternalError = defineCheck({
  id: 'tools-call/invalid-no-internal-error',
  title: 'invalid arguments are reported in the result, not as -32603 Internal error',
  /*
   * Not the MUST "Validate all tool inputs": a -32603 rejection did validate
   * (it rejected the call). What it breaks is the error-category rule, a
   * SHOULD: an input error belongs in the result with isError. This check
   * judges -32603 only; tools-call/validation-error-category the other codes.
   */
  ...CATEGORY,
  context: ERROR_HANDLING,
  perTool: {
    async run(t, tool) {
      await exploreInvalid(t, tool, (rec) => {
        const ex = rec.exchange;
        if (!ex) return undefined;
        if (ex.error?.code !== ERROR_CODES.INTERNAL_ERROR) return [];
        return [
          {
            expected: 'the input error reported inside the result, with isError: true',
            actual: `${answerText(rec)}: an input error answered as an internal protocol-level error`,
          },
        ];
      });
    },
  },
});

export const keepsServing = defineCheck({
  id: 'tools-call/keeps-serving',
  title: 'every invalid call is answered and the server keeps serving',
  level: 'MUST',
  capability: 'tools',
  // An invalid call is a request like any other: it gets a response, and so does the tools/list after it.
  spec: ANSWERED.spec,
  quote: ANSWERED_QUOTE,
  legacy: ANSWERED.legacy,
  perTool: {
    async run(t, tool) {
      const judge = (rec: CallRecord): Problem[] => {
        if (rec.noAnswer !== undefined) return [{ expected: 'an answer to the invalid call', actual: `no answer: ${rec.noAnswer}` }];
        if (rec.followUp && !rec.followUp.ok) {
          return [
            { expected: 'tools/list answered right after the invalid call', actual: rec.followUp.detail, moreWire: rec.followUp.frames },
          ];
        }
        return [];
      };
      // The protocol probes for this tool (arguments that are not an object) first: they are fixed calls.
      const run = argumentRun(t.ctx);
      if (!run.settings.replay) {
        for (const rec of await toolProbes(run, tool)) {
          for (const p of judge(rec)) {
            t.expect(false, {
              expected: p.expected,
              actual: `${p.actual}\nCall: ${callText(rec)}`,
              wire: [...rec.frames, ...(p.moreWire ?? [])],
            });
          }
        }
      }
      await exploreInvalid(t, tool, judge, { judgesLostConnections: true });
    },
  },
});

export const validationErrorCategory = defineCheck({
  id: 'tools-call/validation-error-category',
  title: 'invalid arguments are reported as a tool execution error (isError), not a protocol error',
  // server/tools "Error Handling" lists input validation errors among tool execution errors (no keyword); the SHOULD is the schema's.
  ...CATEGORY,
  context: ERROR_HANDLING,
  perTool: {
    async run(t, tool) {
      await exploreInvalid(t, tool, (rec) => {
        const ex = rec.exchange;
        if (!ex) return undefined;
        const code = ex.error?.code;
        // -32603 is judged by tools-call/invalid-no-internal-error; -32020..-32022 are transport and version conditions.
        if (!ex.error || code === ERROR_CODES.INTERNAL_ERROR || MCP_DEFINED_CODES.has(code as number)) return [];
        return [
          {
            expected:
              'a tool execution error: a result with isError: true (server/tools "Error Handling" lists input validation errors there)',
            actual: `an input-validation failure answered as a protocol error: ${answerText(rec)}`,
          },
        ];
      });
    },
  },
});

// ---- protocol probes ----

const NOT_OBJECTS: Array<{ label: string; value: unknown }> = [
  { label: 'a string', value: 'mcpc-not-an-object' },
  { label: 'an array', value: ['mcpc'] },
];

/** The probes for one tool: `arguments` that is not an object (memoized by the run). */
function toolProbes(run: ArgumentRun, tool: JsonObject): Promise<CallRecord[]> {
  // A probe reaches the tool as any call does: the same consent (and tools.exclude wins).
  if (run.whyNotCallable(tool, 'a protocol probe')) return Promise.resolve([]);
  return Promise.all(
    NOT_OBJECTS.map((n) => run.call('probe', { name: tool.name, arguments: n.value }, { probe: `arguments that is ${n.label}` })),
  );
}

/** The server-wide probes: an unknown tool, and tools/call without a name. */
async function serverProbes(run: ArgumentRun, tools: JsonObject[]): Promise<CallRecord[]> {
  const names = new Set(tools.map((x) => String(x.name)));
  let unknown = 'mcpc_no_such_tool';
  while (names.has(unknown)) unknown += '_';
  return [
    // An unknown name runs nothing, unless tools.exclude covers it: then it is not sent either.
    ...(run.whyExcluded(unknown) ? [] : [await run.call('probe', { name: unknown, arguments: {} }, { probe: 'an unknown tool name' })]),
    await run.call('probe', { arguments: {} }, { probe: 'tools/call without a name' }),
  ];
}

async function allProbes(t: Probe): Promise<CallRecord[]> {
  const walk = await t.ctx.tools();
  if (!walk.exhausted) t.notObserved(`tools/list could not be walked to the end: ${walk.problem?.detail}`);
  const run = argumentRun(t.ctx);
  const out = await serverProbes(run, walk.items);
  for (const tool of walk.items) out.push(...(await toolProbes(run, tool)));
  return out;
}

/*
 * No check judges the other direction (an unknown tool or a malformed call
 * answered with an isError result): server/tools "Error Handling" lists
 * those among protocol errors without a keyword, and the schema's sentence on
 * them ("should be reported as an MCP error response") is lower-case. The
 * probes still feed tools-call/error-response and tools-call/keeps-serving.
 */

export const errorResponseShape = defineCheck({
  id: 'tools-call/error-response',
  title: 'JSON-RPC errors to tools/call carry the request id and a permitted integer code',
  level: 'MUST',
  capability: 'tools',
  /*
   * Legacy: 2025-11-25 has the id and integer rules, not the reserved
   * sub-range (there -32002 is resource not found, a legal code): the range
   * judgements are modern only.
   */
  spec: { revision: 'draft', page: 'basic/index', section: 'Responses' },
  quote:
    'Error responses MUST include the same ID as the request they correspond to (except in error cases where the ID could not be read due a malformed request). Error responses MUST include an error field with a code and message. Error codes MUST be integers. … Implementations MUST NOT emit any code from this sub-range that is not defined by this specification … Implementations of this protocol version MUST NOT emit these codes: -32002 — resource not found (2025-11-25 and earlier; replaced by -32602).',
  legacy: {
    spec: { revision: '2025-11-25', page: 'basic/index', section: 'Error Responses' },
    quote:
      'Error responses MUST include the same ID as the request they correspond to (except in error cases where the ID could not be read due a malformed request). Error responses MUST include an error field with a code and message. Error codes MUST be integers.',
  },
  parts: { answered: ANSWERED },
  async run(t) {
    const probes = await allProbes(t);
    const records = argumentRun(t.ctx).records;
    let seen = 0;
    for (const rec of [...probes, ...records.filter((r) => !probes.includes(r))]) {
      if (rec.noAnswer !== undefined && rec.probe && rec.tool === undefined) {
        t.expect(false, {
          expected: 'a response to the request',
          actual: `no answer: ${rec.noAnswer}\nCall: ${callText(rec)}`,
          wire: rec.frames,
          part: 'answered',
        });
        continue;
      }
      const ex = rec.exchange;
      if (!ex || !ex.response || !('error' in ex.response)) continue;
      seen++;
      for (const p of errorProblems(ex, t.ctx.era === 'modern'))
        t.expect(false, { expected: p.expected, actual: `${p.actual}\nCall: ${callText(rec)}`, wire: rec.frames });
      t.markSchemaJudged(ex);
    }
    if (seen === 0) t.notObserved('no tools/call was answered with a JSON-RPC error');
    t.note('error responses', seen);
    // What the whole argument suite sent in this run (the benchmark reads it).
    t.note('tools/call requests', records.length);
    t.note('follow-up tools/list requests', records.filter((r) => r.followUp).length);
  },
});

function errorProblems(ex: Exchange, modern: boolean): Problem[] {
  const out: Problem[] = [];
  const id = ex.response!.id;
  if (ex.idTypeMismatch) {
    out.push({
      expected: `the error's id equal to the request's id ${show(ex.id)} (a ${typeof ex.id})`,
      actual: `id ${show(id)} (a ${typeof id}): the same value with another JSON type`,
    });
  } else if (id === undefined || id === null) {
    out.push({ expected: `the error's id equal to the request's id ${show(ex.id)} (the id could be read)`, actual: `id ${show(id)}` });
  }
  const err = ex.response!.error as JsonObject | undefined;
  const code = err?.code;
  if (typeof code !== 'number' || !Number.isInteger(code)) out.push({ expected: 'an integer error code', actual: `code ${show(code)}` });
  else if (!modern) {
    // 2025-11-25 reserves no MCP sub-range.
  } else if (code === ERROR_CODES.RETIRED_RESOURCE_NOT_FOUND)
    out.push({ expected: 'no retired code (-32002 was replaced by -32602)', actual: `code -32002 ${show(err?.message)}` });
  else if (inMcpReservedRange(code) && !MCP_DEFINED_CODES.has(code)) {
    out.push({
      expected: 'no code from -32020..-32099 other than the defined -32020, -32021, -32022',
      actual: `code ${code} ${show(err?.message)}`,
    });
  }
  const codeReported = typeof code !== 'number' || !Number.isInteger(code);
  const schemaProblems = ex.schemaErrors.filter((e) => !(codeReported && e.startsWith('/error/code')));
  if (schemaProblems.length) out.push({ expected: `an error response valid against ${ex.schemaDef}`, actual: schemaProblems.join('; ') });
  return out;
}

// ---- what the run's results used ----

/** The first embedded resource (a `resource` content block) in a tools/call result, with the frame showing it. */
function embeddedResourceSeen(t: Probe): { tool: string; frames: WireFrame[] } | undefined {
  const embeds = (result: unknown) =>
    isObject(result) && Array.isArray(result.content) && result.content.some((b) => isObject(b) && b.type === 'resource');
  // The suite's own calls (every one of the run), then anything else the wire logs still hold.
  for (const rec of argumentRun(t.ctx).records) {
    if (rec.exchange && !rec.exchange.error && embeds(rec.exchange.result))
      return { tool: String(rec.tool ?? rec.params.name), frames: rec.frames };
  }
  const seen = inboundMessages(t).find((m) => m.kind === 'result' && m.method === 'tools/call' && embeds(m.msg.result));
  return seen ? { tool: '(a tools/call)', frames: [seen.frame] } : undefined;
}

export const embeddedResourcesCapability = defineCheck({
  id: 'tools-call/embedded-resources-capability',
  title: 'a server whose tool results embed resources implements the resources capability',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Embedded Resources' },
  quote: 'Servers that use embedded resources SHOULD implement the resources capability:',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Embedded Resources' } },
  observer: true,
  async run(t) {
    const seen = embeddedResourceSeen(t);
    if (!seen)
      return t.notObserved(
        'no tools/call result the run saw embedded a resource (the tools-call/* checks make the calls, so select them too; a tool that is not read-only is called only when named with --tools or tools.include in the config file)',
      );
    t.note('embedded resource from', seen.tool);
    const discovery = t.ctx.discovery();
    if (discovery.capabilities?.resources !== undefined) return;
    // Resources listed without the capability declared is resources/capability's finding, not a second one here.
    const ex = await attempt(t.session, 'resources/list', {}, {});
    const listed = typeof ex !== 'string' && Array.isArray(ex.result?.resources) ? ex.result.resources.length : 0;
    if (listed > 0) return t.note('resources/list lists resources without the capability', `judged by ${idOf(capability)}`);
    t.expect(false, {
      expected: `the resources capability ${t.ctx.era === 'legacy' ? 'in the initialize result' : 'in server/discover'}, as tool ${seen.tool} embeds a resource`,
      actual: `capabilities ${show(discovery.capabilities)}; resources/list: ${typeof ex === 'string' ? ex : ex.error ? `JSON-RPC error ${show(ex.error.code)}` : 'no resources'}`,
      wire: [...seen.frames, ...(discovery.exchange?.frames ?? []), ...(typeof ex === 'string' ? [] : ex.frames)],
    });
  },
});

// Every tools-call check calls the tools the first connection listed, sharing one set of calls
// (suites/args/calls.ts): they run on that connection, one at a time, as a client that listed them would.
const PRIMARY = 'calls the tools the first connection listed';
export const toolsCallChecks = [
  validResult,
  contentBlocks,
  structuredContentPresent,
  structuredContentValid,
  structuredContentText,
  invalidRejected,
  invalidNoInternalError,
  keepsServing,
  validationErrorCategory,
  errorResponseShape,
];
for (const c of toolsCallChecks) schedule(c, { primary: PRIMARY });
// An observer: it judges the calls the checks above made, after them.
toolsCallChecks.push(embeddedResourcesCapability);

/**
 * Completion (server/utilities/completion; the draft page and the 2025-11-25
 * page state the same rules): a server that answers completion/complete with
 * suggestions declares the completions capability, and one that does not
 * declare it answers -32601; a server that declares it answers an unknown
 * prompt and a request without its required `argument` (CompleteRequestParams
 * requires `ref` and `argument`) with -32602, and refuses a reference of a
 * type the schema does not define. The result's shape (CompleteResult) is
 * protocol/messages-schema-valid's, like every message no check here judges;
 * the page's "Maximum 100 items per response" and the schema's "Must not
 * exceed 100 items" carry no RFC 2119 keyword, so no check holds a count
 * against a server.
 */
import { RequestTimeoutError } from '../harness/errors.js';
import type { Exchange } from '../harness/session.js';
import { ERROR_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';
import { defineCheck, describeAnswer, memoKey, show, type Probe } from './check.js';
import { attempt } from './requests.js';

const { METHOD_NOT_FOUND, INVALID_PARAMS } = ERROR_CODES;

const SPEC = { revision: 'draft', page: 'server/utilities/completion' } as const;
const LEGACY_SPEC = { revision: '2025-11-25', page: 'server/utilities/completion' } as const;
const ERRORS_LEAD = 'Servers SHOULD return standard JSON-RPC errors for common failure cases:';

/** A prompt name no server is expected to have (lengthened until the listed prompts do not have it). */
const NO_SUCH_PROMPT = 'mcp-conformance-no-such-prompt';
/** A reference type neither revision defines. */
const UNKNOWN_REF_TYPE = 'ref/mcp-conformance-unknown';

/** Something the server can be asked to complete: a listed prompt's argument, or a listed template's variable. */
interface Target {
  ref: JsonObject;
  argument: string;
  what: string;
}

interface Targets {
  /** The first completable thing listed, if any. */
  target?: Target;
  /** The names of the listed prompts. */
  prompts: Set<string>;
}

const targetsKey = memoKey<Promise<Targets>>('completion: what the server lists to complete against');

/** What the server lists to complete against: its prompts (when declared), else its resource templates (when declared). */
function targets(t: Probe): Promise<Targets> {
  return t.ctx.run.memo(targetsKey, async () => {
    const caps = t.ctx.discovery().capabilities ?? {};
    const out: Targets = { prompts: new Set() };
    if (caps.prompts !== undefined) {
      const prompts = (await t.ctx.walk('prompts/list')).items.filter((p) => typeof p?.name === 'string');
      for (const p of prompts) out.prompts.add(String(p.name));
      for (const p of prompts) {
        const arg = Array.isArray(p.arguments) ? (p.arguments as JsonObject[]).find((a) => typeof a?.name === 'string') : undefined;
        if (arg) {
          out.target = { ref: { type: 'ref/prompt', name: p.name! }, argument: String(arg.name), what: `prompt ${show(p.name)}` };
          return out;
        }
      }
    }
    if (caps.resources !== undefined) {
      for (const tpl of (await t.ctx.walk('resources/templates/list')).items) {
        const variable = typeof tpl?.uriTemplate === 'string' ? /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(tpl.uriTemplate)?.[1] : undefined;
        if (variable) {
          out.target = {
            ref: { type: 'ref/resource', uri: tpl.uriTemplate! },
            argument: variable,
            what: `template ${show(tpl.uriTemplate)}`,
          };
          return out;
        }
      }
    }
    return out;
  });
}

function unknownPrompt(listed: Set<string>): string {
  let name = NO_SUCH_PROMPT;
  while (listed.has(name)) name += '-x';
  return name;
}

/** Send completion/complete; no answer (a transport refusal, a timeout) leaves the check not-observed. */
async function complete(t: Probe, params: JsonObject): Promise<Exchange> {
  let ex: Exchange | string;
  try {
    ex = await attempt(t.session, 'completion/complete', params, {});
  } catch (err) {
    if (err instanceof RequestTimeoutError) t.notObserved(`completion/complete got no answer: ${err.message}`);
    throw err;
  }
  if (typeof ex === 'string') t.notObserved(`completion/complete got no JSON-RPC answer: ${ex}`);
  return ex;
}

function capabilitiesOrNotObserved(t: Probe): JsonObject {
  const caps = t.ctx.discovery().capabilities;
  if (!caps) t.notObserved(`${where(t)} gave no capabilities to judge against`);
  return caps;
}

const where = (t: Probe) => (t.ctx.era === 'legacy' ? 'the initialize result' : 'server/discover');

/** The checks of a declared capability: skipped without it. */
function requireDeclared(t: Probe): void {
  if (capabilitiesOrNotObserved(t).completions === undefined)
    t.skip(`the server does not declare the completions capability in ${where(t)} (completion/capability judges what it answers)`);
}

export const capability = defineCheck({
  id: 'completion/capability',
  title: 'a server that answers completion/complete declares completions; one that does not declare it answers -32601',
  level: 'MUST',
  spec: { ...SPEC, section: 'Capabilities' },
  quote: 'Servers that support completions MUST declare the completions capability:',
  legacy: { spec: { ...LEGACY_SPEC, section: 'Capabilities' } },
  parts: {
    'not-supported': {
      level: 'SHOULD',
      spec: { ...SPEC, section: 'Error Handling' },
      quote: `${ERRORS_LEAD} Method not found: -32601 (Capability not supported)`,
      legacy: { spec: { ...LEGACY_SPEC, section: 'Error Handling' } },
    },
  },
  async run(t) {
    const caps = capabilitiesOrNotObserved(t);
    if (caps.completions !== undefined) return t.note('completions capability', caps.completions);
    // Not declared: ask for something the server lists, so a server that completes it shows its support.
    const { target, prompts } = await targets(t);
    const ref = target?.ref ?? { type: 'ref/prompt', name: unknownPrompt(prompts) };
    const ex = await complete(t, { ref, argument: { name: target?.argument ?? 'name', value: '' } });
    const discovered = t.ctx.discovery().exchange;
    const wire = [...(discovered ? [discovered] : []), ex];
    t.note('asked', target?.what ?? 'an unknown prompt (nothing listed to complete against)');
    t.note('answer', describeAnswer(ex));
    if (ex.result) {
      t.expect(false, {
        expected: `the completions capability in ${where(t)}, as completion/complete answers with a result`,
        actual: `capabilities ${show(caps)}; completion/complete answered ${describeAnswer(ex)}`,
        wire,
      });
      return;
    }
    t.expect(ex.error?.code === METHOD_NOT_FOUND, {
      part: 'not-supported',
      expected: 'completion/complete without the completions capability: JSON-RPC error -32601 (Method not found)',
      actual: `capabilities ${show(caps)}; completion/complete answered ${describeAnswer(ex)}`,
      wire,
    });
  },
});

export const errorCodes = defineCheck({
  id: 'completion/error-codes',
  title: 'completion/complete for an unknown prompt, or without its argument, is answered with -32602',
  level: 'SHOULD',
  spec: { ...SPEC, section: 'Error Handling' },
  quote: `${ERRORS_LEAD} … Invalid prompt name: -32602 (Invalid params)`,
  legacy: { spec: { ...LEGACY_SPEC, section: 'Error Handling' } },
  parts: {
    'missing-arguments': {
      level: 'SHOULD',
      spec: { ...SPEC, section: 'Error Handling' },
      quote: `${ERRORS_LEAD} … Missing required arguments: -32602 (Invalid params)`,
      legacy: { spec: { ...LEGACY_SPEC, section: 'Error Handling' } },
    },
  },
  async run(t) {
    requireDeclared(t);
    const { target, prompts } = await targets(t);
    const name = unknownPrompt(prompts);
    const unknown = await complete(t, { ref: { type: 'ref/prompt', name }, argument: { name: 'name', value: '' } });
    t.expect(unknown.error?.code === INVALID_PARAMS, {
      expected: `completion/complete for an unknown prompt ${show(name)}: JSON-RPC error -32602 (Invalid params)`,
      actual: describeAnswer(unknown),
      wire: unknown,
    });
    // CompleteRequestParams requires ref and argument: a request naming something listed, without its argument.
    if (!target) return t.note('missing argument', 'not sent: the server lists no prompt argument or template variable to complete');
    const missing = await complete(t, { ref: target.ref });
    t.expect(missing.error?.code === INVALID_PARAMS, {
      part: 'missing-arguments',
      expected: `completion/complete for ${target.what} without the required argument: JSON-RPC error -32602 (Invalid params)`,
      actual: describeAnswer(missing),
      wire: missing,
    });
  },
});

export const validatesInputs = defineCheck({
  id: 'completion/validates-inputs',
  title: 'completion/complete with a reference of an unknown type is refused',
  level: 'MUST',
  spec: { ...SPEC, section: 'Security' },
  quote: 'Implementations MUST: Validate all completion inputs',
  legacy: { spec: { ...LEGACY_SPEC, section: 'Security' } },
  async run(t) {
    requireDeclared(t);
    // The schema's ref is a PromptReference or a resource template reference; no other type is a valid input.
    const { target } = await targets(t);
    const ref = { ...(target?.ref ?? { name: NO_SUCH_PROMPT }), type: UNKNOWN_REF_TYPE };
    const ex = await complete(t, { ref, argument: { name: target?.argument ?? 'name', value: '' } });
    t.expect(ex.error !== undefined, {
      expected: `completion/complete with ref type ${show(UNKNOWN_REF_TYPE)} (neither ref/prompt nor ref/resource): a JSON-RPC error`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

export const completionChecks = [capability, errorCodes, validatesInputs];

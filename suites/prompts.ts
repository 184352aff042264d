/**
 * Prompts (server/prompts): prompts/get for the listed prompts, the content
 * of their messages, the errors for an unknown prompt and a missing required
 * argument, the capability, and the set's stability per connection.
 */
import { attempt } from './requests.js';
import { defineCheck, describeAnswer, memoKey, schedule, show, type Probe } from './check.js';
import { judgeListChange } from './list-changed.js';
import { walked } from './lists.js';
import { judgeStability } from './list-stability.js';
import { blockProblems } from './tools-call.js';
import type { Exchange } from '../harness/session.js';
import { ERROR_CODES } from '../model/error-codes.js';
import { canonical, type JsonObject } from '../model/json.js';

const { INVALID_PARAMS } = ERROR_CODES;

/**
 * Most prompts one check gets with prompts/get (the first ones listed): a
 * bound on a run's length for a server listing thousands of prompts.
 */
export const MAX_PROMPT_GETS = 50;

/** Arguments for a prompt: a short text for each declared argument (prompt arguments are strings). */
export function promptArguments(prompt: JsonObject, leaveOut?: string): JsonObject {
  const args: JsonObject = {};
  for (const a of declaredArguments(prompt)) {
    if (typeof a.name === 'string' && a.name !== leaveOut) args[a.name] = 'mcp-conformance';
  }
  return args;
}

function declaredArguments(prompt: JsonObject): JsonObject[] {
  return Array.isArray(prompt.arguments) ? (prompt.arguments as JsonObject[]).filter((a) => typeof a === 'object' && a !== null) : [];
}

const nameOf = (p: JsonObject) => String(p?.name);

/** The generated values a prompt argument gets when completion/complete offers none: a text, then a small number (prompt arguments are strings). */
export const GENERATED_PROMPT_VALUES = ['mcp-conformance', '1'] as const;

const offered = memoKey<Map<string, Promise<Record<string, string | undefined>>>>('prompts: argument values completion/complete offered');

/**
 * What completion/complete offers for each of a prompt's arguments (the first non-empty value, asked
 * with the arguments chosen so far as context), when the server declares completions; memoized per prompt.
 */
function completedArguments(t: Probe, prompt: JsonObject): Promise<Record<string, string | undefined>> {
  const caps = t.ctx.discovery().capabilities;
  if (!caps || caps.completions === undefined) return Promise.resolve({});
  const map = t.ctx.run.memo(offered, () => new Map<string, Promise<Record<string, string | undefined>>>());
  let p = map.get(nameOf(prompt));
  if (!p) {
    p = askCompletions(t, prompt);
    map.set(nameOf(prompt), p);
  }
  return p;
}

async function askCompletions(t: Probe, prompt: JsonObject): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  const context: Record<string, string> = {};
  for (const a of declaredArguments(prompt)) {
    if (typeof a.name !== 'string') continue;
    const params: JsonObject = { ref: { type: 'ref/prompt', name: nameOf(prompt) }, argument: { name: a.name, value: '' } };
    if (Object.keys(context).length) params.context = { arguments: { ...context } };
    const ex = await attempt(t.session, 'completion/complete', params, {});
    const values = typeof ex === 'string' ? undefined : (ex.result?.completion as JsonObject | undefined)?.values;
    const first = Array.isArray(values) ? values.find((v): v is string => typeof v === 'string' && v !== '') : undefined;
    out[a.name] = first;
    if (first !== undefined) context[a.name] = first;
  }
  return out;
}

/**
 * The argument sets to try for a prompt, in order: each argument's completion (when offered), else a
 * generated value; a second set with the next generated value when some argument had no completion.
 */
export async function promptArgumentSets(t: Probe, prompt: JsonObject): Promise<JsonObject[]> {
  const completed = await completedArguments(t, prompt);
  const sets = GENERATED_PROMPT_VALUES.map((generated) => {
    const args: JsonObject = {};
    for (const a of declaredArguments(prompt)) if (typeof a.name === 'string') args[a.name] = completed[a.name] ?? generated;
    return args;
  });
  return canonical(sets[0]) === canonical(sets[1]) ? [sets[0]!] : sets;
}

/** The listed prompts with a string name, at most MAX_PROMPT_GETS of them. */
async function listedPrompts(t: Probe): Promise<JsonObject[]> {
  const walk = await walked(t, 'prompts/list');
  const prompts = walk.items.filter((p) => typeof p?.name === 'string');
  if (prompts.length === 0) t.notObserved('prompts/list lists no prompt');
  if (prompts.length > MAX_PROMPT_GETS) t.note('prompts got', `the first ${MAX_PROMPT_GETS} of ${prompts.length}`);
  return prompts.slice(0, MAX_PROMPT_GETS);
}

/** prompts/get; a transport-level failure becomes a finding-free note. */
async function getPrompt(t: Probe, name: string, args: JsonObject): Promise<Exchange | string> {
  return attempt(t.session, 'prompts/get', { name, arguments: args }, {});
}

const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A URI: a scheme, then anything but whitespace and control characters (RFC 3986 section 3). */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]*$/;

export const content = defineCheck({
  id: 'prompts/content',
  title: 'image and audio in prompt messages are base64 with a MIME type; embedded resources carry a URI, a MIME type and their content',
  level: 'MUST',
  capability: 'prompts',
  spec: { revision: 'draft', page: 'server/prompts', section: 'Image Content' },
  quote: 'The image data MUST be base64-encoded and include a valid MIME type.',
  legacy: { spec: { revision: '2025-11-25', page: 'server/prompts', section: 'Image Content' } },
  parts: {
    audio: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/prompts', section: 'Audio Content' },
      quote: 'The audio data MUST be base64-encoded and include a valid MIME type.',
      legacy: { spec: { revision: '2025-11-25', page: 'server/prompts', section: 'Audio Content' } },
    },
    embedded: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/prompts', section: 'Embedded Resources' },
      quote:
        'Resources can contain either text or binary (blob) data and MUST include: A valid resource URI The appropriate MIME type Either text content or base64-encoded blob data',
      legacy: { spec: { revision: '2025-11-25', page: 'server/prompts', section: 'Embedded Resources' } },
    },
  },
  async run(t) {
    let judged = 0;
    let results = 0;
    const unanswered: string[] = [];
    for (const prompt of await listedPrompts(t)) {
      let ex: Exchange | string = 'not sent';
      for (const args of await promptArgumentSets(t, prompt)) {
        ex = await getPrompt(t, nameOf(prompt), args);
        if (typeof ex !== 'string' && ex.result) break;
      }
      if (typeof ex === 'string' || !ex.result || ex.result.resultType === 'input_required') {
        unanswered.push(`${nameOf(prompt)}: ${typeof ex === 'string' ? ex : describeAnswer(ex)}`);
        continue;
      }
      results++;
      const messages = Array.isArray(ex.result.messages) ? (ex.result.messages as JsonObject[]) : [];
      messages.forEach((m, i) => {
        const block = m?.content as JsonObject | undefined;
        const type = block?.type;
        if (type !== 'image' && type !== 'audio' && type !== 'resource') return;
        judged++;
        const at = `/messages/${i}/content`;
        const part = type === 'image' ? undefined : type === 'audio' ? 'audio' : 'embedded';
        const problems = blockProblems(t, block, at);
        if (type === 'resource') {
          const r = block!.resource as JsonObject | undefined;
          if (!nonEmptyString(r?.uri) || !URI.test(r.uri))
            problems.push({ expected: `${at}/resource/uri: a valid resource URI`, actual: `uri ${show(r?.uri)}` });
          if (!nonEmptyString(r?.mimeType))
            problems.push({ expected: `${at}/resource/mimeType: the MIME type`, actual: `mimeType ${show(r?.mimeType)}` });
          if (typeof r?.text !== 'string' && typeof r?.blob !== 'string') {
            problems.push({ expected: `${at}/resource: text or blob`, actual: `neither: ${show(r, 160)}` });
          }
        }
        // This check reports the block's defect; the wire-wide schema check leaves the exchange to it.
        if (problems.length) t.markSchemaJudged(ex);
        for (const p of problems) {
          t.expect(false, {
            expected: `prompts/get ${nameOf(prompt)}: ${p.expected}`,
            actual: p.actual,
            wire: ex,
            ...(part ? { part } : {}),
          });
        }
      });
    }
    t.note('prompts answered', results);
    t.note('media and embedded blocks judged', judged);
    if (unanswered.length) t.note('not answered with a result', unanswered.slice(0, 5));
    if (t.findings.length === 0 && judged === 0) {
      t.notObserved(
        results === 0
          ? `no prompt was answered with a result to generated arguments (${unanswered[0]})`
          : `no prompt message carried image, audio or embedded resource content (${results} prompt(s) answered)`,
      );
    }
  },
});

export const getErrors = defineCheck({
  id: 'prompts/get-errors',
  title: 'an unknown prompt and a missing required argument get -32602',
  level: 'SHOULD',
  capability: 'prompts',
  spec: { revision: 'draft', page: 'server/prompts', section: 'Error Handling' },
  quote:
    'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params) Missing required arguments: -32602 (Invalid params)',
  legacy: { spec: { revision: '2025-11-25', page: 'server/prompts', section: 'Error Handling' } },
  async run(t) {
    const prompts = await listedPrompts(t);
    const names = new Set(prompts.map(nameOf));
    let unknown = 'mcp-conformance-no-such-prompt';
    while (names.has(unknown)) unknown += '-x';
    const cases: Array<{ what: string; name: string; args: JsonObject }> = [
      { what: `an unknown prompt ${show(unknown)}`, name: unknown, args: {} },
    ];
    const required = prompts.find((p) => declaredArguments(p).some((a) => a.required === true && typeof a.name === 'string'));
    if (required) {
      const missing = String(declaredArguments(required).find((a) => a.required === true && typeof a.name === 'string')!.name);
      cases.push({
        what: `prompt ${nameOf(required)} without its required argument ${show(missing)}`,
        name: nameOf(required),
        args: promptArguments(required, missing),
      });
    } else t.note('missing required argument', 'not sent: no listed prompt declares a required argument');
    for (const c of cases) {
      const ex = await getPrompt(t, c.name, c.args);
      t.expect(typeof ex !== 'string' && ex.error?.code === INVALID_PARAMS, {
        expected: `prompts/get for ${c.what}: JSON-RPC error -32602 (Invalid params)`,
        actual: typeof ex === 'string' ? ex : describeAnswer(ex),
        ...(typeof ex === 'string' ? {} : { wire: ex }),
      });
    }
  },
});

export const capability = defineCheck({
  id: 'prompts/capability',
  title: 'a server that lists prompts declares the prompts capability',
  level: 'MUST',
  spec: { revision: 'draft', page: 'server/prompts', section: 'Capabilities' },
  quote: 'Servers that support prompts MUST declare the prompts capability in their DiscoverResult:',
  legacy: {
    spec: { revision: '2025-11-25', page: 'server/prompts', section: 'Capabilities' },
    quote: 'Servers that support prompts MUST declare the prompts capability during initialization:',
  },
  async run(t) {
    const discovery = t.ctx.discovery();
    if (discovery.capabilities?.prompts !== undefined) {
      t.note('prompts capability', discovery.capabilities.prompts);
      return;
    }
    // Not declared: a prompts/list that lists prompts all the same is support undeclared.
    const ex = await attempt(t.session, 'prompts/list', {}, {});
    const listed = typeof ex === 'string' ? [] : Array.isArray(ex.result?.prompts) ? (ex.result.prompts as unknown[]) : [];
    t.note('prompts/list without the capability', typeof ex === 'string' ? ex : describeAnswer(ex));
    t.expect(listed.length === 0, {
      expected: `the prompts capability in ${t.ctx.era === 'legacy' ? 'the initialize result' : 'server/discover'}, as prompts/list lists prompts`,
      actual: `capabilities ${show(discovery.capabilities)}; prompts/list listed ${listed.length} prompt(s)`,
      wire: [...(discovery.exchange ? [discovery.exchange] : []), ...(typeof ex === 'string' ? [] : [ex])],
    });
  },
});

export const stableAcrossConnections = defineCheck({
  id: 'prompts/stable-across-connections',
  title: 'the set of prompts is the same on a fresh connection and after other requests',
  level: 'MUST',
  capability: 'prompts',
  spec: { revision: 'draft', page: 'server/prompts', section: 'Capabilities' },
  quote:
    'This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.',
  parts: {
    // A refusal of prompts/list (a JSON-RPC error for its first page) is no set at all: this sentence's finding.
    answers: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/prompts', section: 'Capabilities' },
      quote:
        'Servers that declare the prompts capability MUST respond to prompts/list requests with the set of prompts currently available to the requesting client.',
    },
  },
  async run(t) {
    await judgeStability(t, 'prompts/list', 'prompt name', nameOf, async (send) => {
      const prompt = (await t.ctx.walk('prompts/list')).items.find((p) => typeof p?.name === 'string');
      if (prompt) await send('prompts/get', { name: nameOf(prompt), arguments: promptArguments(prompt) });
      await send('prompts/get', { name: 'mcp-conformance-no-such-prompt', arguments: {} });
    });
  },
});

export const listChanged = defineCheck({
  id: 'prompts/list-changed',
  unlockedBy: ['listChanged.prompts'],
  title: 'a real change of the prompt list is notified (modern era: to a subscription that asked for it; legacy: on the session)',
  level: 'SHOULD',
  capability: 'prompts',
  spec: { revision: 'draft', page: 'server/prompts', section: 'List Changed Notification' },
  quote:
    'When the list of available prompts changes, servers that declared the listChanged capability SHOULD send a notification to clients that have opened a subscriptions/listen stream with promptsListChanged: true',
  legacy: {
    spec: { revision: '2025-11-25', page: 'server/prompts', section: 'List Changed Notification' },
    quote: 'When the list of available prompts changes, servers that declared the listChanged capability SHOULD send a notification',
  },
  run: (t) => judgeListChange(t, 'prompts'),
});
schedule(listChanged, { exclusive: 'changes the prompt list (the listChanged.prompts trigger)' });

export const promptChecks = [content, getErrors, capability, stableAcrossConnections, listChanged];

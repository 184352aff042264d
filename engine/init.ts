/**
 * `mcp-conformance init`: connect to a server as a run does (the era
 * negotiated the usual way, through the harness's session layer), list its
 * tools, prompts, resources and capabilities, and write an annotated
 * configuration file for it.
 *
 * The file lists every tool with its annotations and whether the suite may
 * call it (the safety policy of suites/safety.ts, for a run without flags).
 * For every key that unlocks checks it gives the candidates found and the
 * checks the key would unlock (from the catalogue: `unlockedBy` on each
 * check). A key is written live only when it makes the suite call a tool
 * the default run may call anyway (annotated readOnlyHint: true); every key
 * whose side effect a person must confirm, or whose meaning a person must
 * check (which capability a tool needs, what ends a subscription), is
 * written commented out. So a run with the file, unedited, calls no tool a
 * run without it would not. init itself calls no tool: its connections
 * refuse every tools/call (the same gate a run has).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { Document, isMap, isScalar, stringify, type Pair, type Scalar, type YAMLMap } from 'yaml';
import { LEGACY_REVISION, MODERN_REVISION } from '../harness/era.js';
import { openEra, type EraMode } from '../harness/negotiate.js';
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Target } from '../harness/target.js';
import { validExample } from '../harness/values.js';
import { LIST_METHODS, walkList, type ListMethod } from '../harness/walk.js';
import { unlockingKeys, type Check } from '../suites/check.js';
import { catalogue, whyNotCallable } from '../suites/index.js';
import type { ConfigKey, InputCapability } from '../model/config.js';
import { isObject, type JsonObject } from '../model/json.js';
import type { Era, TransportKind } from '../model/wire.js';
import { DEFAULTS } from './run.js';

export interface InitOptions {
  /** The server command (as the user wrote it: it goes into the file). */
  command?: string;
  /** The command to launch, when it differs from what goes into the file (`reference` expanded). */
  launch?: string;
  url?: string;
  headers?: Record<string, string>;
  env?: Record<string, string>;
  cwd?: string;
  spec?: string;
  requestTimeoutMs?: number;
  probeTimeoutMs?: number;
  startupTimeoutMs?: number;
  shutdownGraceMs?: number;
  maxPages?: number;
}

/** What init learnt of the server. */
export interface ServerSurvey {
  transport: TransportKind;
  era: Era;
  revision: string;
  server?: { name?: string; version?: string };
  capabilities: JsonObject;
  tools: JsonObject[];
  prompts: JsonObject[];
  resources: JsonObject[];
  templates: JsonObject[];
  /** Lists that could not be walked, and why. */
  problems: string[];
}

/** Connect, settle the era, walk every list the server declares; nothing is called. */
export async function surveyServer(o: InitOptions): Promise<ServerSurvey> {
  const spec = o.spec ?? 'auto';
  const mode: EraMode = spec === 'auto' ? 'auto' : spec === LEGACY_REVISION ? 'legacy' : 'modern';
  const modernRevision = mode === 'modern' ? spec : MODERN_REVISION;
  const schema = ProtocolSchema.load(modernRevision);
  const legacySchema = ProtocolSchema.load(LEGACY_REVISION);
  const redactor = new Redactor();
  for (const v of [...Object.values(o.headers ?? {}), ...Object.values(o.env ?? {})]) redactor.add(v);
  const requestTimeoutMs = o.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const target = await Target.open({
    command: o.launch ?? o.command,
    url: o.url,
    headers: o.headers ?? {},
    env: o.env ?? {},
    cwd: o.cwd,
    revision: modernRevision,
    schema,
    redactor,
    requestTimeoutMs,
    maxMessageBytes: DEFAULTS.maxMessageBytes,
    startupTimeoutMs: o.startupTimeoutMs ?? DEFAULTS.startupTimeoutMs,
    shutdownGraceMs: o.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs,
    clock: () => 0,
    // init lists, it never calls: every tools/call is refused.
    callGuard: () => 'mcp-conformance init calls no tool',
  });
  try {
    const opening = await openEra(target, {
      mode,
      modernRevision,
      modernSchema: schema,
      legacySchema,
      probeTimeoutMs: o.probeTimeoutMs ?? DEFAULTS.probeTimeoutMs,
    });
    if (opening.fatal || !opening.primary) throw new Error(opening.fatal ?? 'no connection to the server');
    const capabilities = opening.discovery.capabilities ?? {};
    const survey: ServerSurvey = {
      transport: o.url ? 'http' : 'stdio',
      era: opening.era?.era ?? 'modern',
      revision: opening.revision,
      ...(opening.server ? { server: opening.server } : {}),
      capabilities,
      tools: [],
      prompts: [],
      resources: [],
      templates: [],
      problems: [],
    };
    const lists: Array<[ListMethod, string, keyof ServerSurvey]> = [
      ['tools/list', 'tools', 'tools'],
      ['prompts/list', 'prompts', 'prompts'],
      ['resources/list', 'resources', 'resources'],
      ['resources/templates/list', 'resources', 'templates'],
    ];
    for (const [method, capability, key] of lists) {
      if (capabilities[capability] === undefined) continue;
      const walk = await walkList(opening.primary, method, LIST_METHODS[method], { maxPages: o.maxPages ?? DEFAULTS.maxPages }).catch(
        (err: Error) => err,
      );
      if (walk instanceof Error) survey.problems.push(`${method}: ${walk.message}`);
      else {
        (survey[key] as JsonObject[]).push(...walk.items);
        if (!walk.exhausted) survey.problems.push(`${method} could not be walked to the end: ${walk.problem?.detail ?? ''}`);
      }
    }
    return survey;
  } finally {
    await target.close();
  }
}

// ---- candidates ----

const text = (x: JsonObject): string => `${String(x.name ?? '')} ${String(x.title ?? '')} ${String(x.description ?? '')}`;
const readOnly = (tool: JsonObject): boolean => isObject(tool.annotations) && tool.annotations.readOnlyHint === true;
const properties = (tool: JsonObject): Record<string, JsonObject> =>
  isObject(tool.inputSchema) && isObject(tool.inputSchema.properties) ? (tool.inputSchema.properties as Record<string, JsonObject>) : {};
const taskSupport = (tool: JsonObject): unknown => (isObject(tool.execution) ? tool.execution.taskSupport : undefined);

const SLOW_NAME = /long.?running|slow|progress|sleep|wait|delay|countdown/i;
const SLOW_INPUT = /progress|duration|delay|seconds|sleep|wait|steps/i;
const LIST_CHANGE = /(add|remove|create|delete|register|unregister|enable|disable|toggle|install|list.?chang)/i;
const SUBSCRIPTION_END = /shutdown|restart|end.?subscri|close.?subscri|disconnect|terminate/i;
const CAPABILITY: Array<[RegExp, InputCapability]> = [
  [/elicit|ask.?user|confirm.?with|form/i, 'elicitation'],
  [/sampl|llm|complet.?with.?model|create.?message/i, 'sampling'],
  [/\broots?\b|list.?roots|roots/i, 'roots'],
];

/** A tool the suite could name for a key: why it is a candidate, and the call it would make. */
export interface Candidate {
  tool: JsonObject;
  why: string;
  arguments?: JsonObject;
  requires?: InputCapability[];
}

/** Small argument values for a call that should take a moment, not minutes; undefined when a required one cannot be made. */
export function slowArguments(tool: JsonObject): JsonObject | undefined {
  const props = properties(tool);
  const required = isObject(tool.inputSchema) && Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.map(String) : [];
  const args: JsonObject = {};
  for (const [name, schema] of Object.entries(props)) {
    const numeric = schema.type === 'number' || schema.type === 'integer';
    if (numeric && SLOW_INPUT.test(name)) {
      const wanted = /ms|milli/i.test(`${name} ${String(schema.description ?? '')}`) ? 1000 : 1;
      const min = typeof schema.minimum === 'number' ? schema.minimum : wanted;
      const max = typeof schema.maximum === 'number' ? schema.maximum : wanted;
      args[name] = Math.min(Math.max(wanted, min), max);
    } else if (required.includes(name)) {
      const example = validExample(schema);
      if (!example.ok) return undefined;
      args[name] = example.value as JsonObject[string];
    }
  }
  return args;
}

/** Generated valid arguments for a call; undefined when none can be made. */
function exampleArguments(tool: JsonObject): JsonObject | undefined {
  const example = validExample(tool.inputSchema ?? { type: 'object' });
  return example.ok && isObject(example.value) ? example.value : undefined;
}

/** The candidates for each key, best first. */
export function candidatesOf(s: ServerSurvey): Record<ConfigKey, Candidate[]> {
  const tools = s.tools;
  const slow = tools
    .filter((t) => SLOW_NAME.test(text(t)) || Object.keys(properties(t)).some((p) => SLOW_INPUT.test(p)))
    .map((t) => ({ tool: t, why: 'its name, description or inputs suggest it runs for a while', arguments: slowArguments(t) }));
  const tasks = tools
    .filter((t) => taskSupport(t) === 'optional' || taskSupport(t) === 'required')
    .map((t) => ({ tool: t, why: `execution.taskSupport ${JSON.stringify(taskSupport(t))}`, arguments: exampleArguments(t) }));
  const capability = tools.flatMap((t) => {
    const requires = CAPABILITY.filter(([re]) => re.test(text(t))).map(([, c]) => c);
    return requires.length ? [{ tool: t, why: `its name or description mentions ${requires.join(', ')}`, requires }] : [];
  });
  const changes = (noun: RegExp) =>
    tools
      .filter((t) => LIST_CHANGE.test(text(t)) && noun.test(text(t)))
      .map((t) => ({ tool: t, why: 'its name or description suggests it changes the list' }));
  return {
    slowTool: rank(slow),
    taskTool: rank(tasks),
    capabilityTool: rank(capability),
    subscriptionEnd: tools
      .filter((t) => SUBSCRIPTION_END.test(text(t)))
      .map((t) => ({ tool: t, why: 'its name or description suggests it ends sessions or subscriptions' })),
    'listChanged.trigger': changes(/tool/i),
    'listChanged.prompts': changes(/prompt/i),
    'listChanged.resources': changes(/resource/i),
    resources: [],
    fixtures: [],
  };
}

/** Read-only candidates first (the suite may call those without consent). */
function rank(list: Candidate[]): Candidate[] {
  return [...list.filter((c) => readOnly(c.tool)), ...list.filter((c) => !readOnly(c.tool))];
}

/** The checks a key unlocks on this server (its era, its transport, its capabilities), from the catalogue. */
export function checksUnlockedBy(
  key: ConfigKey,
  s: Pick<ServerSurvey, 'era' | 'transport' | 'capabilities'>,
  all: Check[] = catalogue,
): string[] {
  return all
    .filter((c) => unlockingKeys(c).includes(key))
    .filter((c) => c.revisions.includes(s.era) && c.transports.includes(s.transport))
    .filter((c) => c.capability === undefined || s.capabilities[c.capability] !== undefined)
    .map((c) => c.id);
}

// ---- the file ----

/** One line per tool: its annotations, and whether a run without flags may call it. */
function toolLines(s: ServerSurvey): string[] {
  const scope = { config: {}, settings: {} };
  return s.tools.map((tool) => {
    const annotations = isObject(tool.annotations) ? JSON.stringify(tool.annotations) : 'no annotations';
    const task = taskSupport(tool) !== undefined ? `, execution.taskSupport ${JSON.stringify(taskSupport(tool))}` : '';
    const may =
      whyNotCallable(scope, tool) === undefined
        ? 'the suite may call it'
        : 'held back: the suite calls it only when you name it in tools.include';
    return `  ${String(tool.name)}: ${annotations}${task}; ${may}`;
  });
}

/** `# ` before every line of a YAML snippet: a key written commented out. */
function commentedOut(value: unknown): string {
  return stringify(value, { lineWidth: 0 })
    .trimEnd()
    .split('\n')
    .map((l) => ` ${l}`)
    .join('\n');
}

interface KeySection {
  key: ConfigKey;
  /** The top-level key it is written under. */
  top: string;
  value: unknown;
  live: boolean;
  notes: string[];
}

/** What the file says for each key that unlocks checks. */
function keySections(s: ServerSurvey): KeySection[] {
  const found = candidatesOf(s);
  const unlocks = (key: ConfigKey) => {
    const ids = checksUnlockedBy(key, s);
    return ids.length ? `unlocks ${ids.join(', ')}` : 'unlocks no check that applies to this server';
  };
  const listed = (key: ConfigKey) =>
    found[key].length
      ? `candidates: ${found[key].map((c) => `${String(c.tool.name)} (${c.why}${readOnly(c.tool) ? ', read-only' : ', not read-only'})`).join('; ')}`
      : 'no candidate found among the listed tools';
  const out: KeySection[] = [];
  const toolKey = (key: 'slowTool' | 'taskTool', liveOk: boolean) => {
    const best = found[key][0];
    const args = best?.arguments;
    const live = liveOk && !!best && readOnly(best.tool) && args !== undefined;
    const value = best ? { name: String(best.tool.name), arguments: args ?? {} } : { name: 'TOOL', arguments: {} };
    const why = live
      ? 'live: the tool is annotated read-only, so a run without this file may call it too'
      : 'commented out: confirm the tool and its arguments';
    out.push({ key, top: key, value, live, notes: [unlocks(key), listed(key), why] });
  };
  toolKey('slowTool', true);
  toolKey('taskTool', s.era === 'legacy');
  const cap = found.capabilityTool[0];
  out.push({
    key: 'capabilityTool',
    top: 'capabilityTool',
    value: { name: cap ? String(cap.tool.name) : 'TOOL', arguments: {}, requires: cap?.requires ?? ['elicitation'] },
    live: false,
    notes: [unlocks('capabilityTool'), listed('capabilityTool'), 'commented out: confirm which client capability the call really needs'],
  });
  const trigger = (key: ConfigKey) => {
    const c = found[key][0];
    return c ? { tool: String(c.tool.name), arguments: exampleArguments(c.tool) ?? {} } : { command: 'COMMAND THAT CHANGES THE LIST' };
  };
  out.push({
    key: 'listChanged.trigger',
    top: 'listChanged',
    value: {
      trigger: trigger('listChanged.trigger'),
      undo: { command: 'WHAT UNDOES IT' },
      prompts: { trigger: trigger('listChanged.prompts'), undo: { command: 'WHAT UNDOES IT' } },
      resources: { trigger: trigger('listChanged.resources'), undo: { command: 'WHAT UNDOES IT' } },
    },
    live: false,
    notes: [
      `trigger: ${unlocks('listChanged.trigger')}; ${listed('listChanged.trigger')}`,
      `prompts: ${unlocks('listChanged.prompts')}; ${listed('listChanged.prompts')}`,
      `resources: ${unlocks('listChanged.resources')}; ${listed('listChanged.resources')}`,
      'commented out: a trigger really changes the server (and its undo restores it); confirm both',
    ],
  });
  const end = found.subscriptionEnd[0];
  out.push({
    key: 'subscriptionEnd',
    top: 'subscriptionEnd',
    value: { trigger: end ? { tool: String(end.tool.name) } : { command: 'COMMAND THAT MAKES THE SERVER END ITS SUBSCRIPTIONS' } },
    live: false,
    notes: [
      unlocks('subscriptionEnd'),
      listed('subscriptionEnd'),
      'commented out: the trigger ends subscriptions on the server; confirm it',
    ],
  });
  out.push(resourcesSection(s, unlocks('resources')));
  out.push(fixturesSection(s, unlocks('fixtures')));
  return out;
}

/** resources.fileRoot and canary: the folder of the file:// resources listed, and a canary only a person can place. */
function resourcesSection(s: ServerSurvey, unlocks: string): KeySection {
  const files = s.resources.map((r) => String(r.uri ?? '')).filter((u) => u.startsWith('file:///'));
  const dirs = files.map((u) => decodeURIComponent(new URL(u).pathname).replace(/\/[^/]*$/, '') || '/');
  const root = dirs.length ? dirs.reduce((a, b) => commonDir(a, b)) : '/PATH/THE/SERVER/SERVES';
  return {
    key: 'resources',
    top: 'resources',
    value: { fileRoot: root, canary: { path: '/PATH/OUTSIDE/THE/ROOT/canary.txt', text: 'TEXT OF THAT FILE' } },
    live: false,
    notes: [
      unlocks,
      files.length ? `candidates: fileRoot from the ${files.length} file:// resource(s) listed` : 'no file:// resource listed',
      'commented out: create the canary file outside the root yourself',
    ],
  };
}

function commonDir(a: string, b: string): string {
  const x = a.split('/');
  const y = b.split('/');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return x.slice(0, i).join('/') || '/';
}

/** fixtures: an example call of each tool, for its author to complete with what it must answer. */
function fixturesSection(s: ServerSurvey, unlocks: string): KeySection {
  const value: Record<string, unknown> = {};
  for (const tool of s.tools.slice(0, 3)) {
    value[String(tool.name)] = {
      calls: [{ arguments: exampleArguments(tool) ?? {}, expect: { outcome: 'complete', content: ['TEXT THE RESULT CONTAINS'] } }],
    };
  }
  return {
    key: 'fixtures',
    top: 'fixtures',
    value: Object.keys(value).length ? value : { TOOL: { calls: [{ arguments: {}, expect: { outcome: 'complete' } }] } },
    live: false,
    notes: [unlocks, 'commented out: a fixture is a real call, and its expectation is yours to state'],
  };
}

/** The configuration file's text for this server (a YAML document with its comments). */
export function initConfigText(s: ServerSurvey, o: Pick<InitOptions, 'command' | 'url' | 'headers' | 'env'>, now = new Date()): string {
  const sections = keySections(s);
  const body: Record<string, unknown> = {
    server: o.url ? { url: o.url, ...(o.command ? { command: o.command } : {}) } : { command: o.command ?? '' },
    tools: { include: [], exclude: [], allowSideEffects: false },
  };
  for (const sec of sections) if (sec.live) body[sec.top] = sec.value;
  const doc = new Document(body);
  const who = s.server ? `${s.server.name ?? 'a server'} ${s.server.version ?? ''}`.trim() : 'the server';
  doc.commentBefore = [
    ` mcp-conformance configuration for ${who}, written by mcp-conformance init on ${now.toISOString().slice(0, 10)}.`,
    ` The server spoke ${s.revision} (${s.era} era) over ${s.transport}. Capabilities: ${JSON.stringify(s.capabilities)}.`,
    ` Listed: ${s.tools.length} tool(s), ${s.prompts.length} prompt(s), ${s.resources.length} resource(s), ${s.templates.length} resource template(s).`,
    ...names(
      'Prompts',
      s.prompts.map((p) => String(p.name)),
    ),
    ...names(
      'Resources',
      s.resources.map((r) => String(r.uri)),
    ),
    ...names(
      'Resource templates',
      s.templates.map((r) => String(r.uriTemplate)),
    ),
    ...s.problems.map((p) => ` Not listed completely: ${p}`),
    ' Run: mcp-conformance --config <this file>. As written it makes the suite call no tool a run without it would not;',
    ' the keys below that are commented out unlock more checks once you confirm them.',
  ].join('\n');
  const map = doc.contents as YAMLMap;
  const pairOf = (key: string) => map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Scalar, unknown> | undefined;
  annotateServer(pairOf('server'), o);
  annotateTools(pairOf('tools'), s);
  for (const sec of sections.filter((x) => x.live)) {
    const pair = pairOf(sec.top);
    if (pair) pair.key.commentBefore = sec.notes.map((n) => ` ${sec.key}: ${n}`).join('\n');
  }
  doc.comment = sections
    .filter((x) => !x.live)
    .map((sec) => [...sec.notes.map((n) => ` ${sec.key}: ${n}`), commentedOut({ [sec.top]: sec.value })].join('\n'))
    .join('\n\n');
  return doc.toString({ lineWidth: 0 });
}

/** ` Prompts: a, b, c (and 4 more)`, or nothing for an empty list. */
function names(what: string, list: string[]): string[] {
  if (list.length === 0) return [];
  const shown = list.slice(0, 12).join(', ');
  return [` ${what}: ${shown}${list.length > 12 ? ` (and ${list.length - 12} more)` : ''}`];
}

function annotateServer(pair: Pair<Scalar, unknown> | undefined, o: Pick<InitOptions, 'headers' | 'env'>): void {
  if (!pair) return;
  const lines = [' How to reach the server (flags given on the command line win over it).'];
  const names = (r: Record<string, string> | undefined) => Object.keys(r ?? {});
  if (names(o.headers).length || names(o.env).length)
    lines.push(
      ' Secrets are never written here: give them as { fromEnv: VARIABLE } under server.headers / server.env,',
      ` e.g. ${[...names(o.headers).map((h) => `headers: { ${h}: { fromEnv: MCP_${h.toUpperCase().replace(/\W/g, '_')} } }`), ...names(o.env).map((e) => `env: { ${e}: { fromEnv: ${e} } }`)].join(', ')}`,
    );
  pair.key.commentBefore = lines.join('\n');
}

function annotateTools(pair: Pair<Scalar, unknown> | undefined, s: ServerSurvey): void {
  if (!pair) return;
  const held = s.tools.filter((t) => whyNotCallable({ config: {}, settings: {} }, t) !== undefined).map((t) => String(t.name));
  pair.key.commentBefore = [
    ' Every tool the server lists, its annotations, and whether the suite may call it. Without --allow-side-effects',
    ' the suite calls (with arguments it generates, valid or invalid) only tools annotated readOnlyHint: true and tools',
    ' you name; tools.exclude wins over everything.',
    ...toolLines(s),
  ].join('\n');
  if (held.length && isMap(pair.value)) {
    const include = (pair.value as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === 'include') as
      Pair<Scalar, unknown> | undefined;
    if (include) include.key.commentBefore = ` Held back now: ${held.join(', ')}. To let the suite call one: include: [${held[0]}]`;
  }
}

/** Survey the server and write the file; refuses to overwrite unless `force`. Returns the survey. */
export async function writeInitConfig(o: InitOptions & { output: string; force?: boolean }): Promise<ServerSurvey> {
  if (existsSync(o.output) && !o.force) throw new Error(`${o.output} exists: pass --force to overwrite it, or --output <path>`);
  const survey = await surveyServer(o);
  writeFileSync(o.output, initConfigText(survey, o));
  return survey;
}

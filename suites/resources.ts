/**
 * Resources (server/resources): resources/read of the listed resources and of
 * expanded templates, binary contents properly encoded, a nonexistent
 * resource answered with -32602 (never empty contents), invalid URIs
 * refused, the capability, and the set's stability per connection.
 */
import { posix } from 'node:path';
import { attempt } from './requests.js';
import { defineCheck, describeAnswer, schedule, show, type Probe } from './check.js';
import { judgeListChange } from './list-changed.js';
import { walked } from './lists.js';
import { judgeStability } from './list-stability.js';
import type { Exchange } from '../harness/session.js';
import { ERROR_CODES } from '../model/error-codes.js';
import type { JsonObject } from '../model/json.js';

const { INVALID_PARAMS } = ERROR_CODES;
/** 2025-11-25's resource-not-found code (retired by the modern revision). */
const RESOURCE_NOT_FOUND = ERROR_CODES.RETIRED_RESOURCE_NOT_FOUND;

/**
 * Most resources one check reads (the first ones listed), and most templates
 * it expands: a bound on a run's length for a server listing thousands.
 */
export const MAX_RESOURCE_READS = 50;
export const MAX_TEMPLATE_EXPANSIONS = 20;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The values every template variable is expanded with, in turn: a word and a number (unreserved characters only, so they need no encoding). */
const SAMPLES = ['mcp-conformance', '1'];

const uriOf = (r: JsonObject) => String(r?.uri);

async function read(t: Probe, uri: string): Promise<Exchange | string> {
  return attempt(t.session, 'resources/read', { uri }, {});
}

/** The listed resources with a string URI, at most MAX_RESOURCE_READS of them. */
async function listedResources(t: Probe): Promise<JsonObject[]> {
  const walk = await walked(t, 'resources/list');
  const resources = walk.items.filter((r) => typeof r?.uri === 'string');
  if (resources.length > MAX_RESOURCE_READS) t.note('resources read', `the first ${MAX_RESOURCE_READS} of ${resources.length}`);
  return resources.slice(0, MAX_RESOURCE_READS);
}

/** The listed templates (none when the server offers no templates list). */
async function listedTemplates(t: Probe): Promise<string[]> {
  const walk = await t.ctx.walk('resources/templates/list');
  if (walk.pages[0]?.error) return [];
  return walk.items
    .map((x) => x?.uriTemplate)
    .filter((x): x is string => typeof x === 'string')
    .slice(0, MAX_TEMPLATE_EXPANSIONS);
}

/**
 * A URI template (RFC 6570) expanded with `value` for every variable: simple
 * and reserved expansion give the value itself, the prefixed operators their
 * prefix (`/` `.` `#`, `?x=` / `&x=` for query forms, `;x=` for path parameters).
 */
export function expandTemplate(template: string, value: string): string {
  return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op: string, vars: string) => {
    const names = vars.split(',').map((v) => v.replace(/[*]$|:\d+$/, ''));
    switch (op) {
      case '?':
      case '&':
        return names.map((n, i) => `${i === 0 ? op : '&'}${n}=${value}`).join('');
      case ';':
        return names.map((n) => `;${n}=${value}`).join('');
      case '/':
      case '.':
      case '#':
        return `${op}${names.map(() => value).join(op === '#' ? ',' : op)}`;
      default:
        return names.map(() => value).join(',');
    }
  });
}

/** A regular expression matching every URI the template can expand to (any variable: anything). */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

export const binaryEncoded = defineCheck({
  id: 'resources/binary-encoded',
  title: 'binary resource contents are base64-encoded blobs',
  level: 'MUST',
  capability: 'resources',
  spec: { revision: 'draft', page: 'server/resources', section: 'Security Considerations' },
  quote: 'Binary data MUST be properly encoded',
  legacy: { spec: { revision: '2025-11-25', page: 'server/resources', section: 'Security Considerations' } },
  async run(t) {
    const expanded = (await listedTemplates(t)).flatMap((x) => SAMPLES.map((v) => expandTemplate(x, v)));
    const uris = [...new Set([...(await listedResources(t)).map(uriOf), ...expanded])];
    let blobs = 0;
    let results = 0;
    const unanswered: string[] = [];
    for (const uri of uris) {
      const ex = await read(t, uri);
      if (typeof ex === 'string' || !ex.result || ex.result.resultType === 'input_required') {
        unanswered.push(`${uri}: ${typeof ex === 'string' ? ex : describeAnswer(ex)}`);
        continue;
      }
      results++;
      const contents = Array.isArray(ex.result.contents) ? (ex.result.contents as JsonObject[]) : [];
      contents.forEach((c, i) => {
        if (typeof c !== 'object' || c === null || !('blob' in c)) return;
        blobs++;
        if (typeof c.blob === 'string' && BASE64.test(c.blob)) return;
        t.markSchemaJudged(ex);
        t.expect(false, {
          expected: `resources/read ${uri}: /contents/${i}/blob base64-encoded`,
          actual: `blob ${show(c.blob, 120)} is not base64`,
          wire: ex,
        });
      });
    }
    t.note('reads answered with contents', results);
    t.note('blobs judged', blobs);
    if (unanswered.length) t.note('not answered with a result', unanswered.slice(0, 5));
    if (t.findings.length === 0 && blobs === 0) {
      t.notObserved(
        results === 0
          ? `no listed resource or expanded template was read (${unanswered[0] ?? 'none listed'})`
          : `none of the ${results} contents read was binary (a blob)`,
      );
    }
  },
});

/** A URI of a listed scheme that no listed resource or template can stand for. */
async function nonexistentUri(t: Probe): Promise<string> {
  const resources = await listedResources(t);
  const templates = (await listedTemplates(t)).map(templatePattern);
  const listed = new Set(resources.map(uriOf));
  const candidates = [
    ...resources.slice(0, 1).map(
      (r) =>
        `${uriOf(r)
          .replace(/[?#].*$/, '')
          .replace(/\/?$/, '')}/mcp-conformance-nonexistent`,
    ),
    'mcp-conformance-nonexistent:///resource',
  ];
  for (const c of candidates) if (!listed.has(c) && !templates.some((p) => p.test(c))) return c;
  return t.notObserved('every URI the suite could use for a nonexistent resource matches a listed resource template');
}

export const notFound = defineCheck({
  id: 'resources/not-found',
  title: 'a nonexistent resource gets -32602, never empty contents',
  level: 'MUST',
  capability: 'resources',
  spec: { revision: 'draft', page: 'server/resources', section: 'Error Handling' },
  quote: 'If the requested resource does not exist, servers MUST return a JSON-RPC error with code -32602 (Invalid Params).',
  parts: {
    emptyContents: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/resources', section: 'Error Handling' },
      quote: 'Servers MUST NOT return an empty contents array for a non-existent resource.',
    },
  },
  async run(t) {
    const uri = await nonexistentUri(t);
    const ex = await read(t, uri);
    if (typeof ex === 'string') {
      t.expect(false, { expected: `resources/read ${uri}: JSON-RPC error -32602`, actual: ex });
      return;
    }
    const contents = ex.result?.contents;
    if (Array.isArray(contents) && contents.length === 0) {
      t.expect(false, {
        expected: `resources/read ${uri} (no such resource): a JSON-RPC error, not an empty contents array`,
        actual: describeAnswer(ex),
        wire: ex,
        part: 'emptyContents',
      });
    }
    t.expect(ex.error?.code === INVALID_PARAMS, {
      expected: `resources/read ${uri} (no such resource): JSON-RPC error -32602 (Invalid Params)`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

/**
 * The legacy page's own code for a nonexistent resource. 2025-11-25 states it
 * at SHOULD (the modern page makes -32602 a MUST, resources/not-found): a
 * legacy-only check, so neither era is judged by the other's rule.
 */
export const notFoundCode = defineCheck({
  id: 'resources/not-found-code',
  title: 'a nonexistent resource gets -32002 (legacy era)',
  level: 'SHOULD',
  capability: 'resources',
  spec: { revision: '2025-11-25', page: 'server/resources', section: 'Error Handling' },
  quote: 'Servers SHOULD return standard JSON-RPC errors for common failure cases: … Resource not found: -32002',
  async run(t) {
    const uri = await nonexistentUri(t);
    const ex = await read(t, uri);
    const expected = `resources/read ${uri} (no such resource): JSON-RPC error -32002 (Resource not found)`;
    if (typeof ex === 'string') {
      t.expect(false, { expected, actual: ex });
      return;
    }
    t.expect(ex.error?.code === RESOURCE_NOT_FOUND, { expected, actual: describeAnswer(ex), wire: ex });
  },
});

export const uriValidation = defineCheck({
  id: 'resources/uri-validation',
  title: 'an invalid resource URI is refused, never served',
  level: 'MUST',
  capability: 'resources',
  spec: { revision: 'draft', page: 'server/resources', section: 'Security Considerations' },
  quote: 'Servers MUST validate all resource URIs',
  legacy: { spec: { revision: '2025-11-25', page: 'server/resources', section: 'Security Considerations' } },
  async run(t) {
    // Invalid URIs (RFC 3986): none at all, no scheme, raw control characters and spaces, also inside a template's expansion.
    const probes: Array<{ what: string; uri: string }> = [
      { what: 'an empty URI', uri: '' },
      { what: 'a URI without a scheme', uri: 'mcp conformance' },
    ];
    // Inside the URI, not at its ends: a WHATWG URL parser strips leading and trailing control characters
    // (and so reads the listed URI), which is a lenient reading, not a failure to validate.
    const first = (await listedResources(t))[0];
    if (first) {
      const uri = uriOf(first);
      const cut = Math.max(uri.lastIndexOf('/') + 1, uri.indexOf(':') + 1);
      probes.push({ what: 'a listed URI with a NUL and a BEL inserted', uri: `${uri.slice(0, cut)}\u0000\u0007${uri.slice(cut)}` });
    }
    for (const template of await listedTemplates(t)) {
      probes.push({
        what: `template ${template} expanded with raw control characters`,
        uri: expandTemplate(template, 'mcp\u0000conformance\u001b'),
      });
    }
    for (const p of probes) {
      const ex = await read(t, p.uri);
      if (typeof ex === 'string') continue; // refused at transport level
      // Served, the invalid URI is echoed in the contents: this check's finding, not the schema check's.
      if (ex.result && ex.result.resultType !== 'input_required') t.markSchemaJudged(ex);
      t.expect(ex.result === undefined || ex.result.resultType === 'input_required', {
        expected: `resources/read of ${p.what} (${show(p.uri)}): refused with a JSON-RPC error`,
        actual: describeAnswer(ex),
        wire: ex,
      });
    }
    t.note('invalid URIs sent', probes.length);
  },
});

const NO_FILE_ROOT =
  'no resources.fileRoot and resources.canary in the configuration file: configure the folder the server serves file:// resources from and a canary file outside it (its path and a distinctive text it holds), so the suite can try to read outside the root';

/** The path of a file:// URI, decoded (undefined when it is no file URL). */
function filePath(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'file:' ? decodeURIComponent(url.pathname) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * file:// URIs that climb from `root` to `canary` (absolute POSIX paths): ".."
 * segments, the same percent-encoded, ".." joined by encoded slashes, and the
 * canary's absolute path.
 */
export function traversalUris(root: string, canary: string): Array<{ what: string; uri: string }> {
  const base = root.replace(/\/+$/, '');
  const encode = (segments: string[], dots: string, join = '/') =>
    segments.map((x) => (x === '..' ? dots : encodeURIComponent(x))).join(join);
  const rootPart = encode(base.split('/'), '..');
  const climb = posix.relative(base, canary).split('/');
  return [
    { what: '".." segments', uri: `file://${rootPart}/${encode(climb, '..')}` },
    { what: 'percent-encoded ".." segments', uri: `file://${rootPart}/${encode(climb, '%2e%2e')}` },
    { what: '".." segments joined by percent-encoded slashes', uri: `file://${rootPart}/${encode(climb, '..', '%2f')}` },
    { what: "the canary's absolute path", uri: `file://${encode(canary.split('/'), '..')}` },
  ];
}

/** The contents of a read that carry the canary's text (text, or a blob decoding to it). */
function canaryIn(ex: Exchange, text: string): number[] {
  const contents = Array.isArray(ex.result?.contents) ? (ex.result.contents as JsonObject[]) : [];
  return contents.flatMap((c, i) => {
    const body = typeof c?.text === 'string' ? c.text : typeof c?.blob === 'string' ? Buffer.from(c.blob, 'base64').toString('utf8') : '';
    return body.includes(text) ? [i] : [];
  });
}

export const pathTraversal = defineCheck({
  id: 'resources/path-traversal',
  unlockedBy: ['resources'],
  title: 'file:// URIs that climb out of the served folder never return a file outside it (a canary)',
  level: 'MUST',
  capability: 'resources',
  spec: { revision: 'draft', page: 'server/resources', section: 'Security Considerations' },
  quote: 'Servers MUST sanitize file paths to prevent directory traversal attacks when serving file:// resources',
  async run(t) {
    // Only the canary's own text coming back is a finding: the suite cannot tell where else a server may legitimately read.
    const where = t.ctx.config.resources;
    if (!where) return t.notObserved(NO_FILE_ROOT);
    const root = where.fileRoot.replace(/\/+$/, '');
    if (!posix.relative(root, where.canary.path).startsWith('../'))
      return t.notObserved(
        `resources.canary.path ${where.canary.path} is not outside resources.fileRoot ${root}: place the canary beside the root`,
      );
    const served = (await listedResources(t)).map(uriOf).filter((u) => filePath(u)?.startsWith(`${root}/`));
    if (served.length === 0)
      return t.notObserved(
        `resources/list lists no file:// resource inside resources.fileRoot ${root}: the server does not show that it serves files from there`,
      );
    t.note('file:// resources listed inside the root', served.length);
    const refused: string[] = [];
    for (const p of traversalUris(root, where.canary.path)) {
      const ex = await read(t, p.uri);
      if (typeof ex === 'string') {
        refused.push(`${p.what}: ${ex}`);
        continue;
      }
      const leaked = canaryIn(ex, where.canary.text);
      if (leaked.length === 0) {
        refused.push(`${p.what}: ${describeAnswer(ex)}`);
        continue;
      }
      t.expect(false, {
        expected: `resources/read ${p.uri} (${p.what} out of ${root}): refused, or anything but the canary outside the root`,
        actual: `/contents/${leaked[0]} holds the canary's text ${show(where.canary.text)}: ${where.canary.path} was served`,
        wire: ex,
      });
    }
    t.note('traversals answered without the canary', refused);
  },
});

export const capability = defineCheck({
  id: 'resources/capability',
  title: 'a server that lists resources declares the resources capability',
  level: 'MUST',
  spec: { revision: 'draft', page: 'server/resources', section: 'Capabilities' },
  quote: 'Servers that support resources MUST declare the resources capability:',
  legacy: { spec: { revision: '2025-11-25', page: 'server/resources', section: 'Capabilities' } },
  async run(t) {
    const discovery = t.ctx.discovery();
    if (discovery.capabilities?.resources !== undefined) {
      t.note('resources capability', discovery.capabilities.resources);
      return;
    }
    const ex = await attempt(t.session, 'resources/list', {}, {});
    const listed = typeof ex === 'string' ? [] : Array.isArray(ex.result?.resources) ? (ex.result.resources as unknown[]) : [];
    t.note('resources/list without the capability', typeof ex === 'string' ? ex : describeAnswer(ex));
    t.expect(listed.length === 0, {
      expected: `the resources capability in ${t.ctx.era === 'legacy' ? 'the initialize result' : 'server/discover'}, as resources/list lists resources`,
      actual: `capabilities ${show(discovery.capabilities)}; resources/list listed ${listed.length} resource(s)`,
      wire: [...(discovery.exchange ? [discovery.exchange] : []), ...(typeof ex === 'string' ? [] : [ex])],
    });
  },
});

export const stableAcrossConnections = defineCheck({
  id: 'resources/stable-across-connections',
  title: 'the set of resources is the same on a fresh connection and after other requests',
  level: 'MUST',
  capability: 'resources',
  spec: { revision: 'draft', page: 'server/resources', section: 'Capabilities' },
  quote:
    'This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.',
  parts: {
    // A refusal of resources/list (a JSON-RPC error for its first page) is no set at all: this sentence's finding.
    answers: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/resources', section: 'Capabilities' },
      quote:
        'Servers that declare the resources capability MUST respond to resources/list requests with the set of resources currently available to the requesting client.',
    },
  },
  async run(t) {
    await judgeStability(t, 'resources/list', 'resource URI', uriOf, async (send) => {
      const first = (await listedResources(t))[0];
      if (first) await send('resources/read', { uri: uriOf(first) });
      await send('resources/read', { uri: 'mcp-conformance-nonexistent:///resource' });
    });
  },
});

export const listChanged = defineCheck({
  id: 'resources/list-changed',
  unlockedBy: ['listChanged.resources'],
  title: 'a real change of the resource list is notified (modern era: to a subscription that asked for it; legacy: on the session)',
  level: 'SHOULD',
  capability: 'resources',
  // The modern page states the rule without naming the stream; in the modern era a notification reaches
  // a client only on a subscriptions/listen stream, so the check listens with resourcesListChanged: true.
  spec: { revision: 'draft', page: 'server/resources', section: 'List Changed Notification' },
  quote: 'When the list of available resources changes, servers that declared the listChanged capability SHOULD send a notification:',
  legacy: { spec: { revision: '2025-11-25', page: 'server/resources', section: 'List Changed Notification' } },
  run: (t) => judgeListChange(t, 'resources'),
});
schedule(listChanged, { exclusive: 'changes the resource list (the listChanged.resources trigger)' });

export const resourceChecks = [
  binaryEncoded,
  notFound,
  notFoundCode,
  uriValidation,
  pathTraversal,
  capability,
  stableAcrossConnections,
  listChanged,
];

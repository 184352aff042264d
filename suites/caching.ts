/**
 * Caching hints (server/utilities/caching.mdx): `ttlMs` and `cacheScope` on
 * every complete result of a cacheable operation, one scope across the pages
 * of a list, none on an `input_required` result. The rules themselves live in
 * rules.ts, shared with the suites that see such results elsewhere.
 */
import type { Exchange } from '../harness/session.js';
import { defineCheck, memoKey, schedule, show, type Probe } from './check.js';
import { declaredLists, pageItems } from './lists.js';
import { cacheScopeProblems, ttlProblems } from './rules.js';
import type { JsonObject } from '../model/json.js';

const CACHING = 'server/utilities/caching';

/** Which results carry caching hints (server/utilities/caching "Cacheable Results"). */
const CACHEABLE_QUOTE =
  'Servers MUST include caching hints on results with resultType: "complete" returned by the following operations: server/discover tools/list prompts/list resources/list resources/templates/list resources/read';

/** How many listed resources are read to judge resources/read results. */
export const RESOURCES_READ = 10;

/** One cacheable result the run obtained. */
interface Cacheable {
  method: string;
  /** Where it came from: `page 2`, a resource URI, or '' for a single result. */
  where: string;
  exchange: Exchange;
  result: JsonObject;
}

const gathered = memoKey<Promise<Cacheable[]>>('caching: the cacheable results');

/**
 * Every result of a cacheable operation this run can obtain: server/discover,
 * each page of each declared list, and resources/read of the first listed
 * resources. Gathered once per run and shared by the caching checks.
 */
function cacheableResults(t: Probe): Promise<Cacheable[]> {
  return t.ctx.run.memo(gathered, () => gather(t));
}

async function gather(t: Probe): Promise<Cacheable[]> {
  const out: Cacheable[] = [];
  const add = (method: string, where: string, exchange: Exchange | undefined) => {
    if (exchange?.result) out.push({ method, where, exchange, result: exchange.result });
  };
  add('server/discover', '', t.ctx.discovery().exchange);
  const lists = declaredLists(t);
  for (const list of lists) {
    const walk = await t.ctx.walk(list.method);
    walk.pages.forEach((page, i) => add(list.method, `page ${i + 1}`, page));
  }
  if (lists.some((l) => l.method === 'resources/list')) {
    const walk = await t.ctx.walk('resources/list');
    const uris = walk.pages.flatMap((_, i) => pageItems(walk, i, 'resources')).map((r) => r?.uri);
    for (const uri of uris.filter((u): u is string => typeof u === 'string').slice(0, RESOURCES_READ)) {
      add('resources/read', uri, await t.request('resources/read', { uri }));
    }
  }
  return out;
}

const complete = (r: Cacheable) => r.result.resultType !== 'input_required';

/**
 * Judge one field on every complete cacheable result: one finding per method
 * (naming each bad page or URI), and the values seen, per method and page, as
 * a note.
 */
async function judgeHint(
  t: Probe,
  fieldName: 'ttlMs' | 'cacheScope',
  problemsOf: (r: JsonObject) => string[],
  expected: string,
  part?: string,
) {
  const results = (await cacheableResults(t)).filter(complete);
  const seen: Record<string, unknown> = {};
  const bad = new Map<string, Array<{ r: Cacheable; problems: string[] }>>();
  for (const r of results) {
    const value = fieldName in r.result ? r.result[fieldName] : '(absent)';
    if (!r.where) seen[r.method] = value;
    else ((seen[r.method] ??= {}) as Record<string, unknown>)[r.where] = value;
    const problems = problemsOf(r.result);
    if (problems.length) bad.set(r.method, [...(bad.get(r.method) ?? []), { r, problems }]);
  }
  t.note(fieldName, seen);
  for (const [method, entries] of bad) {
    const listed = entries.slice(0, 5).map((e) => `${e.r.where ? `${e.r.where}: ` : ''}${e.problems.join('; ')}`);
    const more = entries.length > 5 ? `; and ${entries.length - 5} more` : '';
    t.expect(false, {
      expected: `${expected} on every complete ${method} result`,
      actual: `${method} ${listed.join('; ')}${more}`,
      wire: entries.slice(0, 2).map((e) => e.r.exchange),
      ...(part ? { part } : {}),
    });
  }
}

export const ttlMs = defineCheck({
  id: 'caching/ttl-ms',
  title: 'every complete result of a cacheable operation carries ttlMs, an integer >= 0',
  level: 'MUST',
  /*
   * Modern only, like all caching hints (2025-11-25 has none). Presence:
   * Cacheable Results; the value: the TTL Field section ("integer" is the
   * schema's type of ttlMs, schema.json CacheableResult).
   */
  spec: { revision: 'draft', page: CACHING, section: 'Cacheable Results' },
  quote: CACHEABLE_QUOTE,
  parts: {
    value: {
      level: 'MUST',
      spec: { revision: 'draft', page: CACHING, section: 'Time-to-Live (TTL) Field' },
      quote: 'Servers MUST provide a ttlMs value that is >= 0.',
    },
  },
  resultFields: ['ttlMs'],
  async run(t) {
    await judgeHint(t, 'ttlMs', (r) => ttlProblems(r).filter((p) => p.endsWith('is missing')), 'ttlMs');
    await judgeHint(t, 'ttlMs', (r) => ttlProblems(r).filter((p) => !p.endsWith('is missing')), 'ttlMs, an integer >= 0,', 'value');
  },
});

export const cacheScope = defineCheck({
  id: 'caching/cache-scope',
  title: 'every complete result of a cacheable operation carries cacheScope "public" or "private"',
  level: 'MUST',
  // Presence: Cacheable Results; the two values are the schema's (CacheableResult.cacheScope), a MUST as every schema rule.
  spec: { revision: 'draft', page: CACHING, section: 'Cacheable Results' },
  quote: CACHEABLE_QUOTE,
  parts: {
    value: {
      level: 'MUST',
      spec: { revision: 'draft', page: 'schema', section: 'CacheableResult' },
      quote: 'cacheScope: "public" | "private";',
    },
  },
  resultFields: ['cacheScope'],
  async run(t) {
    await judgeHint(t, 'cacheScope', (r) => cacheScopeProblems(r).filter((p) => p.endsWith('is missing')), 'cacheScope');
    await judgeHint(
      t,
      'cacheScope',
      (r) => cacheScopeProblems(r).filter((p) => !p.endsWith('is missing')),
      'cacheScope "public" or "private"',
      'value',
    );
  },
});

export const scopeAcrossPages = defineCheck({
  id: 'caching/scope-across-pages',
  title: 'all pages of one list walk carry the same cacheScope',
  level: 'MUST',
  spec: { revision: 'draft', page: CACHING, section: 'Interaction with Pagination' },
  quote: 'Servers MUST apply the same cacheScope to all response pages for a given list request.',
  async run(t) {
    let multiPage = 0;
    const scopes: Record<string, unknown[]> = {};
    for (const list of declaredLists(t)) {
      const walk = await t.ctx.walk(list.method);
      const pages = walk.pages.filter((p) => p.result);
      scopes[list.method] = pages.map((p) => p.result!.cacheScope);
      if (pages.length < 2) continue;
      multiPage++;
      // A missing or invalid scope is caching/cache-scope's finding; compare the valid ones.
      const valid = pages.filter((p) => cacheScopeProblems(p.result!).length === 0);
      const firstScope = valid[0]?.result!.cacheScope;
      const other = valid.find((p) => p.result!.cacheScope !== firstScope);
      t.expect(!other, {
        expected: `cacheScope ${show(firstScope)} on all ${pages.length} pages of ${list.method}, like page 1`,
        actual: `per page: ${show(scopes[list.method], 200)}`,
        wire: other ? [valid[0]!, other] : [],
      });
    }
    t.note('cacheScope', scopes);
    if (multiPage === 0) t.skip('no list the server declares spans more than one page');
  },
});

// input_required results carrying no caching hints: mrtr/no-caching-hints (suites/mrtr.ts), same rule (suites/rules.ts).

// Walks every list: on the first connection, one at a time with the other checks that walk lists.
export const cachingChecks = [ttlMs, cacheScope, scopeAcrossPages];
for (const c of cachingChecks) schedule(c, { primary: 'walks every list on the first connection' });

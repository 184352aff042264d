/**
 * Pagination (server/utilities/pagination.mdx): every paginated list is walked
 * cursor by cursor and judged by the same rules. The rules are written once
 * and instantiated per list method, so `pagination/tools-chain-ends`,
 * `pagination/prompts-chain-ends`, ... are one check each, skipped when the
 * server does not declare the list's capability.
 */
import { AbortedError, HarnessError } from '../harness/errors.js';
import type { Exchange } from '../harness/session.js';
import { defineCheck, describeAnswer, schedule, show, type Check, type Rule } from './check.js';
import { judgeOrder, LISTS, pageItems, skipUnserved, walkAgain, walked, type ListKind } from './lists.js';
import { JsonObject, canonical } from '../model/json.js';
import { ERROR_CODES } from '../model/error-codes.js';

const PAGINATION = 'server/utilities/pagination';

/** A cursor no server can have issued (the invalid-cursor probe). */
export const NEVER_ISSUED_CURSOR = 'mcp-conformance/never-issued-cursor/7d1c0e';

/** The findings of one check stop listing individual pages after this many. */
const MAX_PAGE_FINDINGS = 5;

/**
 * tools/list pagination is judged in both eras (2025-11-25 paginates it the
 * same way); the other lists in the modern era, where the reference server
 * proves each of their checks able to fail.
 */
const legacyOf = (list: ListKind, section: string): Rule['legacy'] =>
  list.slug === 'tools' ? { spec: { revision: '2025-11-25', page: 'server/utilities/pagination', section } } : undefined;

const itemsKeys = (items: JsonObject[], list: ListKind): string => show(items.map(list.label), 160);

/** The cursor chain ends: no cycle, no more pages than --max-pages. */
function chainEnds(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-chain-ends`,
    title: `the ${list.method} cursor chain ends: no cursor comes back, at most --max-pages pages`,
    level: 'MUST',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Response Format' },
    legacy: legacyOf(list, 'Response Format'),
    quote:
      'A response carries nextCursor only if more results exist: following nextCursor from the first page reaches a page without one, and never leads back to a cursor already followed.',
    async run(t) {
      const walk = await t.ctx.walk(list.method);
      skipUnserved(t, walk);
      t.note('pages', walk.pages.length);
      t.note('items', walk.items.length);
      const p = walk.problem;
      if (p?.kind === 'error' || p?.kind === 'bad-shape') t.notObserved(`${list.method} could not be walked: ${p.detail}`);
      if (p?.kind === 'cycle') {
        const next = walk.pages.at(-1)!.result!.nextCursor as string;
        const firstIssuer = walk.pages[walk.cursors.indexOf(next) - 1];
        t.expect(false, {
          expected: 'a page without nextCursor at the end of the chain, every cursor new',
          actual: p.detail,
          wire: firstIssuer ? [firstIssuer, walk.pages.at(-1)!] : [walk.pages.at(-1)!],
        });
      }
      if (p?.kind === 'page-limit') {
        t.expect(false, {
          expected: `a page without nextCursor within ${t.ctx.settings.maxPages} pages (--max-pages)`,
          actual: `${p.detail}; page ${walk.pages.length} still gives nextCursor ${show(walk.pages.at(-1)!.result?.nextCursor, 80)}`,
          wire: walk.pages.slice(-2),
        });
      }
    },
  });
}

/** No item twice: the pages of one walk are disjoint, their union is the list. */
function noRepeats(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-no-repeats`,
    title: `no ${list.noun} is delivered twice in one ${list.method} walk`,
    level: 'MUST',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Pagination Model' },
    legacy: legacyOf(list, 'Pagination Model'),
    quote:
      'The cursor represents a position in the result set: each page continues where the page before ended, so the pages of one walk deliver every item exactly once.',
    async run(t) {
      const walk = await walked(t, list.method);
      // Identity is the whole item: the same item twice. Two different items under
      // one name are a naming question (e.g. tools-list/unique-names), not pagination's.
      const firstSeen = new Map<string, number>();
      const repeats: string[] = [];
      const pages = new Set<Exchange>();
      walk.pages.forEach((page, i) => {
        for (const item of pageItems(walk, i, list.itemsKey)) {
          const key = canonical(item);
          const at = firstSeen.get(key);
          if (at === undefined) {
            firstSeen.set(key, i);
            continue;
          }
          repeats.push(`${list.label(item)} (page ${at + 1}, again on page ${i + 1})`);
          pages.add(walk.pages[at]!).add(page);
        }
      });
      t.note('pages', walk.pages.length);
      t.note('distinct items', firstSeen.size);
      t.expect(repeats.length === 0, {
        expected: `each ${list.noun} on one page only`,
        actual: `${repeats.length} item(s) delivered again: ${show(repeats.slice(0, 10))}`,
        wire: [...pages].slice(0, 4),
      });
    },
  });
}

/** Re-fetching a cursor returns the same page. */
function stableCursors(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-stable-cursors`,
    title: `re-fetching a ${list.method} cursor returns the same page`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
    legacy: legacyOf(list, 'Implementation Guidelines'),
    quote: 'Servers SHOULD provide stable cursors: a cursor, used again, gives the same page.',
    async run(t) {
      const walk = await walked(t, list.method);
      const withCursor = walk.cursors.flatMap((c, i) => (c === undefined ? [] : [i]));
      if (withCursor.length === 0) t.skip(`${list.method} fits on one page: the server issued no cursor`);
      let unstable = 0;
      for (const i of withCursor) {
        const cursor = walk.cursors[i]!;
        const original = walk.pages[i]!;
        const again = await t.request(list.method, { cursor });
        const before = pageItems(walk, i, list.itemsKey);
        const after = again.result?.[list.itemsKey];
        const sameItems = Array.isArray(after) && canonical(after) === canonical(before);
        const sameEnd = (again.result?.nextCursor === undefined) === (original.result?.nextCursor === undefined);
        if (sameItems && sameEnd && !again.error) continue;
        unstable++;
        if (unstable > MAX_PAGE_FINDINGS) continue;
        t.expect(false, {
          expected: `page ${i + 1} again (cursor ${show(cursor, 60)}): ${before.length} item(s) ${itemsKeys(before, list)}${original.result?.nextCursor === undefined ? ', the last page' : ''}`,
          actual: again.error
            ? describeAnswer(again)
            : `${Array.isArray(after) ? `${after.length} item(s) ${itemsKeys(after as JsonObject[], list)}` : 'no items array'}${sameEnd ? '' : again.result?.nextCursor === undefined ? ', no nextCursor' : ', a nextCursor'}`,
          wire: [original, again],
        });
      }
      t.note('cursors re-fetched', withCursor.length);
      if (unstable > MAX_PAGE_FINDINGS) t.note('unstable cursors', unstable);
    },
  });
}

/** An empty-string nextCursor is a cursor: following it continues the list. */
function emptyCursor(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-empty-cursor`,
    title: `an empty-string ${list.method} nextCursor leads to the next page, not back to the start`,
    level: 'MUST',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
    legacy: legacyOf(list, 'Implementation Guidelines'),
    quote:
      'An empty string is a valid cursor and thus MUST NOT be treated as the end of results: a server that gives nextCursor "" serves the next page for it.',
    async run(t) {
      const walk = await walked(t, list.method);
      const e = walk.emptyCursor;
      if (!e) return t.skip(`the server gave no empty-string nextCursor while listing ${list.method}`);
      t.note('empty cursor given by page', e.issuedBy + 1);
      t.expect(e.outcome === 'continued', {
        expected: `the request with cursor "" (given by page ${e.issuedBy + 1}) answers with the page after it`,
        actual:
          e.outcome === 'restarted'
            ? 'the first page again: the server takes "" for no cursor, so it meant "" as the end of the list'
            : `${describeAnswer(e.exchange)}: the server refuses the cursor it gave`,
        wire: [walk.pages[e.issuedBy]!, e.exchange],
      });
    },
  });
}

/** A cursor the server never issued is an invalid-params error. */
function invalidCursor(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-invalid-cursor`,
    title: `${list.method} answers a cursor it never issued with error -32602`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Error Handling' },
    legacy: legacyOf(list, 'Error Handling'),
    quote: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    async run(t) {
      const walk = await t.ctx.walk(list.method);
      skipUnserved(t, walk);
      const expected = `JSON-RPC error -32602 for cursor ${show(NEVER_ISSUED_CURSOR)}`;
      let ex: Exchange;
      try {
        ex = await t.request(list.method, { cursor: NEVER_ISSUED_CURSOR });
      } catch (err) {
        // No answer at all (a crash, a timeout) breaks the same SHOULD: a finding at its level.
        if (!(err instanceof HarnessError) || err instanceof AbortedError) throw err;
        t.expect(false, { expected, actual: `no answer: ${err.message}` });
        return;
      }
      if (ex.error) {
        t.expect(ex.error.code === ERROR_CODES.INVALID_PARAMS, { expected, actual: describeAnswer(ex), wire: ex });
        return;
      }
      const first = walk.pages[0]?.result?.[list.itemsKey];
      const items = ex.result?.[list.itemsKey];
      const firstAgain = Array.isArray(first) && Array.isArray(items) && canonical(first) === canonical(items);
      t.expect(false, {
        expected,
        actual: firstAgain ? 'the first page, as if no cursor had been given: the invalid cursor was silently accepted' : describeAnswer(ex),
        wire: ex,
      });
    },
  });
}

/** The same order on a second walk and on a fresh connection. */
function order(list: ListKind): Check {
  return defineCheck({
    id: `pagination/${list.slug}-order`,
    title: `${list.method} gives its ${list.noun}s in the same order on every walk`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
    legacy: legacyOf(list, 'Implementation Guidelines'),
    quote:
      'Servers SHOULD provide stable cursors: a cursor is a position in the result set, so the set keeps its order from one walk to the next and on a fresh connection.',
    async run(t) {
      const first = await walked(t, list.method);
      const second = await walkAgain(t, list.method);
      const fresh = await walked(t, list.method, 'fresh');
      judgeOrder(t, list.label, first, [
        ['a second walk on the same connection', second],
        ['a walk on a fresh connection', fresh],
      ]);
    },
  });
}

/**
 * The pagination checks of one list. tools/list's order is already judged by
 * tools-list/deterministic-order (a SHOULD of its own page), so it gets no
 * second order check.
 */
export function paginationChecksFor(list: ListKind): Check[] {
  const checks = [chainEnds(list), noRepeats(list), stableCursors(list), emptyCursor(list), invalidCursor(list)];
  if (list.method !== 'tools/list') checks.push(order(list));
  return checks;
}

// Walks every list and asks its cursors again: on the first connection (the one that issued them),
// one at a time, so no other walk of the list interleaves.
export const paginationChecks: Check[] = LISTS.flatMap(paginationChecksFor);
for (const c of paginationChecks) schedule(c, { primary: 'walks the lists and asks their cursors again on the first connection' });


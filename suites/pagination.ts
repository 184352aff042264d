/**
 * Pagination (server/utilities/pagination.mdx): every paginated list is walked
 * cursor by cursor and judged by the same rules, written once and
 * instantiated per list method (PAGINATION_IDS below names every check). A
 * list's checks are skipped when the server does not declare its capability.
 *
 * The server-side keyword sentences of the page are "Servers SHOULD: Provide
 * stable cursors Handle invalid cursors gracefully" (Implementation
 * Guidelines) and "Invalid cursors SHOULD result in an error with code
 * -32602" (Error Handling); "gracefully" is judged where a client sees it,
 * the list still served right after an invalid cursor (the invalid-cursor
 * checks' part graceful). Rules the page does not state in a keyword are
 * not judged:
 * - a cursor chain that ends (no cycle, a last page): Response Format
 *   describes nextCursor ("if more results exist") without a keyword;
 * - no item twice in one walk: no keyword, and caching#Interaction with
 *   Pagination says "There is no cross-page consistency guarantee … clients
 *   may observe duplicates or gaps";
 * - the same order on every walk of prompts, resources or templates: no
 *   sentence asks for it (tools/list has its own, tools-list/deterministic-order).
 * A walk that loops or exceeds --max-pages leaves the checks that need the
 * whole list not observed, with the reason.
 */
import { AbortedError, HarnessError } from '../harness/errors.js';
import type { Exchange } from '../harness/session.js';
import { defineCheck, describeAnswer, schedule, show, type Check, type Probe, type Rule } from './check.js';
import { LISTS, pageItems, requireServed, skipUnserved, walked, type ListKind } from './lists.js';
import { JsonObject, canonical } from '../model/json.js';
import { ERROR_CODES } from '../model/error-codes.js';

const PAGINATION = 'server/utilities/pagination';

/** A cursor no server can have issued (the invalid-cursor probe). */
export const NEVER_ISSUED_CURSOR = 'mcp-conformance/never-issued-cursor/7d1c0e';

/** The findings of one check stop listing individual pages after this many. */
const MAX_PAGE_FINDINGS = 5;

type Rules = 'stable-cursors' | 'empty-cursor' | 'invalid-cursor';

/** Every pagination check id, written out (one row per list, one column per rule). */
export const PAGINATION_IDS: Record<ListKind['slug'], Record<Rules, string>> = {
  tools: {
    'stable-cursors': 'pagination/tools-stable-cursors',
    'empty-cursor': 'pagination/tools-empty-cursor',
    'invalid-cursor': 'pagination/tools-invalid-cursor',
  },
  prompts: {
    'stable-cursors': 'pagination/prompts-stable-cursors',
    'empty-cursor': 'pagination/prompts-empty-cursor',
    'invalid-cursor': 'pagination/prompts-invalid-cursor',
  },
  resources: {
    'stable-cursors': 'pagination/resources-stable-cursors',
    'empty-cursor': 'pagination/resources-empty-cursor',
    'invalid-cursor': 'pagination/resources-invalid-cursor',
  },
  'resource-templates': {
    'stable-cursors': 'pagination/resource-templates-stable-cursors',
    'empty-cursor': 'pagination/resource-templates-empty-cursor',
    'invalid-cursor': 'pagination/resource-templates-invalid-cursor',
  },
};

const idOf = (list: ListKind, rule: Rules): string => {
  const id = PAGINATION_IDS[list.slug]?.[rule];
  if (!id) throw new Error(`no pagination check id for ${list.slug} ${rule}`);
  return id;
};

/**
 * Every list's stable-cursor and invalid-cursor rules are judged in both eras:
 * 2025-11-25 server/utilities/pagination states the same server rules for
 * every paginated list (the reference server's legacy mode serves prompts and
 * resources, so each defect is proven there too).
 */
const legacyOf = (_list: ListKind, section: string): Rule['legacy'] => ({ spec: { revision: '2025-11-25', page: PAGINATION, section } });

const itemsKeys = (items: JsonObject[], list: ListKind): string => show(items.map(list.label), 160);

/** "Servers SHOULD: Provide stable cursors" (both eras, the same words). */
const STABLE_QUOTE = 'Servers SHOULD: Provide stable cursors';

/** Re-fetching a cursor returns the same page. */
function stableCursors(list: ListKind): Check {
  return defineCheck({
    id: idOf(list, 'stable-cursors'),
    title: `re-fetching a ${list.method} cursor returns the same page`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
    legacy: legacyOf(list, 'Implementation Guidelines'),
    // A stable cursor, used again while the list has not changed, gives the same page.
    quote: STABLE_QUOTE,
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
      t.note('pages', walk.pages.length);
      t.note('items', walk.items.length);
      t.note('cursors re-fetched', withCursor.length);
      if (unstable > MAX_PAGE_FINDINGS) t.note('unstable cursors', unstable);
    },
  });
}

/**
 * An empty-string nextCursor the server gave, used, continues the list.
 * "an empty string is a valid cursor and thus MUST NOT be treated as the end
 * of results" is addressed to clients, so it is not this check's level: the
 * server rule is "Provide stable cursors" (SHOULD). A server that gives ""
 * and then refuses it, or serves page 1 for it (it meant "" as the end),
 * gave a cursor that does not stand for the position after its page, and a
 * conformant client, which must follow "", loops or stops there. Modern
 * only: 2025-11-25 does not call "" a cursor, so a legacy server may mean it
 * as the end.
 */
function emptyCursor(list: ListKind): Check {
  return defineCheck({
    id: idOf(list, 'empty-cursor'),
    title: `an empty-string ${list.method} nextCursor leads to the next page, not back to the start`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
    quote: STABLE_QUOTE,
    async run(t) {
      const walk = await walked(t, list.method);
      const e = walk.emptyCursor;
      if (!e) return t.skip(`the server gave no empty-string nextCursor while listing ${list.method}`);
      t.note('empty cursor given by page', e.issuedBy + 1);
      t.expect(e.outcome === 'continued', {
        expected: `the request with cursor "" (given by page ${e.issuedBy + 1}; clients must follow it) answers with the page after it`,
        actual:
          e.outcome === 'restarted'
            ? 'the first page again: the server takes "" for no cursor, so it meant "" as the end of the list'
            : `${describeAnswer(e.exchange)}: the server refuses the cursor it gave`,
        wire: [walk.pages[e.issuedBy]!, e.exchange],
      });
    },
  });
}

/** "Servers SHOULD: Handle invalid cursors gracefully" (both eras, the same words). */
const GRACEFUL_QUOTE = 'Servers SHOULD: … Handle invalid cursors gracefully';

/**
 * Right after the invalid cursor was answered, the first page is asked for
 * again: a server that handled the cursor gracefully still serves its list.
 * (What the invalid cursor itself got is the main rule's; this part judges
 * only the request after it.)
 */
async function stillServes(t: Probe, list: ListKind, invalid: Exchange): Promise<void> {
  const expected = `after the invalid cursor, ${list.method} without a cursor still answered with its first page`;
  let next: Exchange;
  try {
    next = await t.request(list.method, {});
  } catch (err) {
    if (!(err instanceof HarnessError) || err instanceof AbortedError) throw err;
    t.expect(false, { expected, actual: `no answer: ${err.message}`, wire: invalid, part: 'graceful' });
    return;
  }
  t.expect(!next.error && Array.isArray(next.result?.[list.itemsKey]), {
    expected,
    actual: next.error ? describeAnswer(next) : `a result without a ${list.itemsKey} array: ${describeAnswer(next)}`,
    wire: [invalid, next],
    part: 'graceful',
  });
}

/** A cursor the server never issued is an invalid-params error. */
function invalidCursor(list: ListKind): Check {
  return defineCheck({
    id: idOf(list, 'invalid-cursor'),
    title: `${list.method} answers a cursor it never issued with error -32602`,
    level: 'SHOULD',
    capability: list.capability,
    spec: { revision: 'draft', page: PAGINATION, section: 'Error Handling' },
    legacy: legacyOf(list, 'Error Handling'),
    quote: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    parts: {
      // The server goes on serving the list after refusing the cursor: the part of "gracefully" a client can see.
      graceful: {
        level: 'SHOULD',
        spec: { revision: 'draft', page: PAGINATION, section: 'Implementation Guidelines' },
        legacy: legacyOf(list, 'Implementation Guidelines'),
        quote: GRACEFUL_QUOTE,
      },
    },
    async run(t) {
      const walk = await t.ctx.walk(list.method);
      skipUnserved(t, walk);
      requireServed(t, walk);
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
      await stillServes(t, list, ex);
      if (ex.error) {
        t.expect(ex.error.code === ERROR_CODES.INVALID_PARAMS, { expected, actual: describeAnswer(ex), wire: ex });
        return;
      }
      const first = walk.pages[0]?.result?.[list.itemsKey];
      const items = ex.result?.[list.itemsKey];
      const firstAgain = Array.isArray(first) && Array.isArray(items) && canonical(first) === canonical(items);
      t.expect(false, {
        expected,
        actual: firstAgain
          ? 'the first page, as if no cursor had been given: the invalid cursor was silently accepted'
          : describeAnswer(ex),
        wire: ex,
      });
    },
  });
}

/** The pagination checks of one list. */
export function paginationChecksFor(list: ListKind): Check[] {
  return [stableCursors(list), emptyCursor(list), invalidCursor(list)];
}

// Walks every list and asks its cursors again: on the first connection (the one that issued them),
// one at a time, so no other walk of the list interleaves.
export const paginationChecks: Check[] = LISTS.flatMap(paginationChecksFor);
for (const c of paginationChecks) schedule(c, { primary: 'walks the lists and asks their cursors again on the first connection' });

/**
 * The paginated lists (server/utilities/pagination "Operations Supporting
 * Pagination") as the checks see them, and the list judgements several
 * suites share: a walk that must be complete, a second walk, item identity,
 * and the order comparison.
 */
import { LIST_METHODS, walkList, type ListMethod, type ListWalk } from '../harness/walk.js';
import { describeAnswer, show, type Probe } from './check.js';
import type { JsonObject } from '../model/json.js';
import { ERROR_CODES } from '../model/error-codes.js';

export interface ListKind {
  /** The list's part of check ids, e.g. `pagination/<slug>-chain-ends`. */
  slug: string;
  method: ListMethod;
  /** The result key carrying the items. */
  itemsKey: string;
  /** The server capability that makes the list available. */
  capability: 'tools' | 'prompts' | 'resources';
  /** What one item is called in messages. */
  noun: string;
  /** How an item is named in messages (its name, URI or URI template). */
  label: (item: JsonObject) => string;
}

const field = (key: string) => (item: JsonObject) => String(item?.[key]);

export const LISTS: ListKind[] = [
  {
    slug: 'tools',
    method: 'tools/list',
    itemsKey: LIST_METHODS['tools/list'],
    capability: 'tools',
    noun: 'tool',
    label: field('name'),
  },
  {
    slug: 'prompts',
    method: 'prompts/list',
    itemsKey: LIST_METHODS['prompts/list'],
    capability: 'prompts',
    noun: 'prompt',
    label: field('name'),
  },
  {
    slug: 'resources',
    method: 'resources/list',
    itemsKey: LIST_METHODS['resources/list'],
    capability: 'resources',
    noun: 'resource',
    label: field('uri'),
  },
  {
    slug: 'resource-templates',
    method: 'resources/templates/list',
    itemsKey: LIST_METHODS['resources/templates/list'],
    capability: 'resources',
    noun: 'resource template',
    label: field('uriTemplate'),
  },
];

/** The lists whose capability the server declared in server/discover. */
export function declaredLists(t: Probe): ListKind[] {
  const caps = t.ctx.discovery().capabilities ?? {};
  return LISTS.filter((l) => caps[l.capability] !== undefined);
}

/**
 * The memoized walk of a list, or not-observed when it could not be walked to
 * the end (a cycle or a refused empty-string cursor still counts as the end:
 * the pages seen are the list as far as it can be reached; a refused or
 * restarting "" is pagination/<list>-empty-cursor's finding).
 */
export async function walked(t: Probe, method: ListMethod, where: 'primary' | 'fresh' = 'primary'): Promise<ListWalk> {
  const walk = await t.ctx.walk(method, where);
  skipUnserved(t, walk);
  noteEndless(t, walk);
  if (!walk.exhausted)
    t.notObserved(`${method} could not be walked to the end${where === 'fresh' ? ' on a fresh connection' : ''}: ${walk.problem?.detail}`);
  return walk;
}

/**
 * A cursor chain that did not end within the walk's page limit: no sentence
 * bounds a list's length, so it is a note, never a finding.
 */
export function noteEndless(t: Probe, walk: ListWalk): void {
  if (walk.problem?.kind !== 'page-limit') return;
  t.inform(
    `${walk.method}: the cursor chain had not ended after ${walk.pages.length} pages (${walk.items.length} items); no sentence bounds a list, so this is not judged (--max-pages follows it further)`,
  );
}

/**
 * Resource templates are optional within the resources capability: a server
 * that answers resources/templates/list with -32601 does not offer them, and
 * the checks of that list are skipped.
 */
export function skipUnserved(t: Probe, walk: ListWalk): void {
  if (
    walk.method === 'resources/templates/list' &&
    walk.pages.length === 1 &&
    walk.pages[0]!.error?.code === ERROR_CODES.METHOD_NOT_FOUND
  ) {
    t.skip('the server answers resources/templates/list with -32601: it offers no resource templates');
  }
}

/** The checks that judge a refusal of a list's first page (list-stability.ts, part `answers`). */
const REFUSAL_OWNERS: Partial<Record<ListMethod, string>> = {
  'prompts/list': 'prompts/stable-across-connections',
  'resources/list': 'resources/stable-across-connections',
};

/**
 * A list whose first page (no cursor) was refused has nothing further to
 * judge: not-observed, naming the check that owns the refusal.
 */
export function requireServed(t: Probe, walk: ListWalk): void {
  const first = walk.pages[0];
  if (walk.cursors[0] !== undefined || !first?.error) return;
  const owner = REFUSAL_OWNERS[walk.method as ListMethod];
  t.notObserved(`${walk.method} without a cursor was refused (${describeAnswer(first)})${owner ? ` (judged by ${owner})` : ''}`);
}

/** One more full walk on the primary connection (not memoized), or not-observed. */
export async function walkAgain(t: Probe, method: ListMethod): Promise<ListWalk> {
  const walk = await walkList(t.session, method, LIST_METHODS[method], { maxPages: t.ctx.settings.maxPages });
  if (!walk.exhausted) t.notObserved(`the second ${method} walk did not complete: ${walk.problem?.detail}`);
  return walk;
}

/** The items of one page (empty when the page has none). */
export function pageItems(walk: ListWalk, index: number, itemsKey: string): JsonObject[] {
  const items = walk.pages[index]?.result?.[itemsKey];
  return Array.isArray(items) ? (items as JsonObject[]) : [];
}

/**
 * The order rule: the items both walks list appear in the same order. A
 * different set is judged elsewhere (e.g. stability across connections).
 */
export function judgeOrder(
  t: Probe,
  label: (item: JsonObject) => string,
  first: ListWalk,
  others: Array<readonly [string, ListWalk]>,
): void {
  const order = first.items.map(label);
  const inFirst = new Set(order);
  for (const [what, other] of others) {
    const theirs = other.items.map(label);
    const common = new Set(theirs.filter((n) => inFirst.has(n)));
    const a = order.filter((n) => common.has(n));
    const b = theirs.filter((n) => common.has(n));
    t.expect(a.join('\n') === b.join('\n'), {
      expected: `the same order as the first walk: ${show(a, 200)}`,
      actual: `${what} returned ${show(b, 200)}`,
      wire: [first.pages[0]!, other.pages[0]!],
    });
  }
}

/**
 * The cursor walk of server/utilities/pagination: request the first page, then
 * follow `nextCursor` until it is absent. An empty-string cursor is a cursor
 * (clients MUST NOT treat it as the end), so the walk follows it and records
 * what the server did with it. The walk stops on a cursor seen before (a
 * cycle) or past a page bound, so it never loops forever.
 *
 * Memory: the walk keeps one exchange per page (the response frame and its
 * parsed result) and the items array references the parsed page results, so
 * a walk costs about twice the list's wire size, whatever the page count.
 */
import type { Exchange, RequestOptions, Session } from './session.js';
import type { JsonObject } from '../model/json.js';

/** The paginated list methods and the result key that carries their items. */
export const LIST_METHODS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

export type ListMethod = keyof typeof LIST_METHODS;

export interface ListWalk {
  method: string;
  /** Every item of every page, in order. */
  items: JsonObject[];
  /** One exchange per page whose items are in `items`. */
  pages: Exchange[];
  /** The cursor each page was requested with (`undefined` for the first page), index for index with `pages`. */
  cursors: Array<string | undefined>;
  /**
   * Set when a page carried `nextCursor: ""` and the walk followed it: what the
   * request with cursor `""` gave. `continued`: a page that goes on with the
   * list; `restarted`: the first page again (the server took `""` for no
   * cursor); `error`: a JSON-RPC error (the server rejected its own cursor).
   */
  emptyCursor?: { issuedBy: number; outcome: 'continued' | 'restarted' | 'error'; exchange: Exchange };
  /** Why the walk ended early, when it did. */
  problem?: { kind: 'error' | 'bad-shape' | 'cycle' | 'page-limit' | 'empty-cursor'; detail: string; exchange?: Exchange };
  /**
   * Every page the cursor chain leads to has been fetched: the chain ended, or
   * it led back to a cursor already followed (a cycle), or the empty-string
   * cursor led back to the start or was refused (the server meant `""` as the
   * end). The items are then the whole list as far as it can be reached; the
   * defect itself is judged by the pagination checks.
   */
  exhausted: boolean;
}

export interface WalkOptions {
  maxPages?: number;
  request?: RequestOptions;
}

export async function walkList(session: Session, method: string, itemsKey: string, opts: WalkOptions = {}): Promise<ListWalk> {
  const maxPages = opts.maxPages ?? 10_000;
  const walk: ListWalk = { method, items: [], pages: [], cursors: [], exhausted: false };
  const seen = new Set<string>();
  let cursor: string | undefined;
  let firstItems: string | undefined;
  for (;;) {
    const ex = await session.request(method, cursor === undefined ? {} : { cursor }, opts.request);
    if (cursor === '') {
      // The server issued "" as a cursor: judge what it does with it before taking the page.
      const outcome = ex.error || !ex.result ? 'error' : sameItems(ex.result[itemsKey], firstItems) ? 'restarted' : 'continued';
      walk.emptyCursor = { issuedBy: walk.pages.length - 1, outcome, exchange: ex };
      if (outcome !== 'continued') {
        const what = outcome === 'error' ? `an error ${jsonOf(ex.error) ?? '(too deeply nested to show)'}` : 'the first page again';
        walk.problem = {
          kind: 'empty-cursor',
          detail: `${method} with the empty-string cursor it issued answered with ${what}`,
          exchange: ex,
        };
        walk.exhausted = true;
        return walk;
      }
    }
    walk.pages.push(ex);
    walk.cursors.push(cursor);
    if (ex.error || !ex.result) {
      walk.problem = {
        kind: 'error',
        detail: `${method} answered with an error: ${jsonOf(ex.error) ?? '(too deeply nested to show)'}`,
        exchange: ex,
      };
      return walk;
    }
    const items = ex.result[itemsKey];
    if (!Array.isArray(items)) {
      walk.problem = { kind: 'bad-shape', detail: `${method} result has no "${itemsKey}" array`, exchange: ex };
      return walk;
    }
    if (firstItems === undefined) firstItems = jsonOf(items) ?? '\u0000unserializable';
    for (const item of items) walk.items.push(item as JsonObject);
    const next = ex.result.nextCursor;
    if (next === undefined || next === null) {
      walk.exhausted = true;
      return walk;
    }
    if (typeof next !== 'string') {
      walk.problem = {
        kind: 'bad-shape',
        detail: `nextCursor is not a string: ${jsonOf(next) ?? '(too deeply nested to show)'}`,
        exchange: ex,
      };
      return walk;
    }
    if (seen.has(next)) {
      const page = walk.cursors.indexOf(next) + 1;
      walk.problem = {
        kind: 'cycle',
        detail: `page ${walk.pages.length} gives nextCursor ${JSON.stringify(next)}, the cursor of page ${page}: the chain loops`,
        exchange: ex,
      };
      walk.exhausted = true;
      return walk;
    }
    if (walk.pages.length >= maxPages) {
      walk.problem = { kind: 'page-limit', detail: `the cursor chain is longer than ${maxPages} pages`, exchange: ex };
      return walk;
    }
    seen.add(next);
    cursor = next;
  }
}

/** A non-empty items array equal to the first page's (serialized as received). */
function sameItems(items: unknown, firstItems: string | undefined): boolean {
  return Array.isArray(items) && items.length > 0 && jsonOf(items) === firstItems;
}

/** JSON text of a value the server sent, or undefined when it is nested too deeply to serialize. */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

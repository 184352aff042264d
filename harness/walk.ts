/**
 * The cursor walk of server/utilities/pagination: request the first page, then
 * follow `nextCursor` until it is absent. An empty-string cursor is a cursor
 * (clients MUST NOT treat it as the end). The walk stops on a cursor seen
 * before (a cycle) or past a page bound, so it never loops forever.
 */
import type { Exchange, JsonObject, RequestOptions, Session } from './session.js';

export interface ListWalk {
  method: string;
  /** Every item of every page, in order. */
  items: JsonObject[];
  /** One exchange per page. */
  pages: Exchange[];
  /** Why the walk ended early, when it did. */
  problem?: { kind: 'error' | 'bad-shape' | 'cycle' | 'page-limit'; detail: string; exchange?: Exchange };
}

export async function walkList(
  session: Session,
  method: string,
  itemsKey: string,
  opts: { maxPages?: number; request?: RequestOptions } = {},
): Promise<ListWalk> {
  const maxPages = opts.maxPages ?? 10_000;
  const walk: ListWalk = { method, items: [], pages: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const ex = await session.request(method, cursor === undefined ? {} : { cursor }, opts.request);
    walk.pages.push(ex);
    if (ex.error || !ex.result) {
      walk.problem = { kind: 'error', detail: `${method} answered with an error: ${JSON.stringify(ex.error)}`, exchange: ex };
      return walk;
    }
    const items = ex.result[itemsKey];
    if (!Array.isArray(items)) {
      walk.problem = { kind: 'bad-shape', detail: `${method} result has no "${itemsKey}" array`, exchange: ex };
      return walk;
    }
    walk.items.push(...(items as JsonObject[]));
    const next = ex.result.nextCursor;
    if (next === undefined || next === null) return walk;
    if (typeof next !== 'string') {
      walk.problem = { kind: 'bad-shape', detail: `nextCursor is not a string: ${JSON.stringify(next)}`, exchange: ex };
      return walk;
    }
    if (seen.has(next)) {
      walk.problem = { kind: 'cycle', detail: `nextCursor ${JSON.stringify(next)} was already returned by an earlier page`, exchange: ex };
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

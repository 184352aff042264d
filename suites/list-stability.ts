/**
 * "The set MUST NOT vary per-connection or as a side effect of other requests
 * on the connection" (server/prompts and server/resources "Capabilities"): the
 * list walked on a fresh connection, and on a connection before and after
 * other requests, gives the same items. Before that, "Servers that declare
 * the capability MUST respond to <list> requests with the set" (the checks'
 * part `answers`): a JSON-RPC error for a first page is a refusal, judged
 * here, not left not-observed.
 */
import { walkList, LIST_METHODS, type ListMethod, type ListWalk } from '../harness/walk.js';
import { CLIENT_INFO } from '../harness/protocol.js';
import type { JsonObject } from '../model/json.js';
import { describeAnswer, show, type Probe } from './check.js';
import { walked } from './lists.js';
import { attempt } from './requests.js';

/**
 * The first page of the walk was refused with a JSON-RPC error: a finding of
 * the part `answers` (an error for a later page, asked with a cursor, is the
 * pagination checks').
 */
function refused(t: Probe, walk: ListWalk, method: ListMethod, noun: string): boolean {
  const first = walk.pages[0];
  if (walk.cursors[0] !== undefined || !first?.error) return false;
  t.expect(false, {
    expected: `a ${method} result with the set of ${noun}s currently available (it may be empty), as the capability is declared`,
    actual: `${method} (no cursor) was refused: ${describeAnswer(first)}`,
    wire: first,
    part: 'answers',
  });
  return true;
}

/**
 * The same item listed more than once across the pages of one walk: no
 * sentence asks a prompt or resource list to be free of repeats (tool names
 * are tools-list/unique-names'), so it is a note.
 */
function noteDuplicates(t: Probe, walk: ListWalk, noun: string, key: (item: JsonObject) => string): void {
  const pageOf = new Map<string, number[]>();
  walk.pages.forEach((page, i) => {
    const items = page.result?.[LIST_METHODS[walk.method as ListMethod]];
    for (const item of Array.isArray(items) ? (items as JsonObject[]) : [])
      pageOf.set(key(item), [...(pageOf.get(key(item)) ?? []), i + 1]);
  });
  const repeated = [...pageOf].filter(([, pages]) => pages.length > 1);
  if (repeated.length === 0) return;
  const shown = repeated.slice(0, 5).map(([k, pages]) => `${show(k)} (pages ${pages.join(', ')})`);
  t.inform(
    `${walk.method} lists ${repeated.length} ${noun}(s) more than once: ${shown.join('; ')}${repeated.length > 5 ? '; …' : ''} (no sentence forbids it; not judged)`,
  );
}

/** Judge both ways the set may not vary; `others` sends the requests in between on the given session. */
export async function judgeStability(
  t: Probe,
  method: ListMethod,
  noun: string,
  key: (item: JsonObject) => string,
  others: (send: (method: string, params: JsonObject) => Promise<string>) => Promise<void>,
): Promise<void> {
  if (refused(t, await t.ctx.walk(method), method, noun) || refused(t, await t.ctx.walk(method, 'fresh'), method, noun)) return;
  const first = await walked(t, method);
  noteDuplicates(t, first, noun, key);
  const fresh = await walked(t, method, 'fresh');
  const compare = (a: JsonObject[], b: JsonObject[]) => {
    const x = new Set(a.map(key));
    const y = new Set(b.map(key));
    return { size: x.size, missing: [...x].filter((n) => !y.has(n)), extra: [...y].filter((n) => !x.has(n)) };
  };
  const across = compare(first.items, fresh.items);
  t.expect(across.missing.length === 0 && across.extra.length === 0, {
    expected: `the same ${across.size} ${noun}(s) on connection ${fresh.pages[0]!.frames[0]?.connection ?? 2}`,
    actual: `missing there: ${show(across.missing)}; only there: ${show(across.extra)}`,
    wire: [first.pages[0]!, fresh.pages[0]!],
  });

  // A connection of its own: the list, other requests, the list again.
  const session = await t.ctx.openSession();
  const walk = () => walkList(session, method, LIST_METHODS[method], { maxPages: t.ctx.settings.maxPages });
  const before = await walk();
  if (!before.exhausted)
    return t.note('side effects', `not judged: ${method} could not be walked on a new connection (${before.problem?.detail})`);
  const sent: string[] = [];
  await others(async (m, params) => {
    const ex = await attempt(session, m, params, {});
    sent.push(`${m}${typeof params.name === 'string' ? ` ${params.name}` : typeof params.uri === 'string' ? ` ${params.uri}` : ''}`);
    return typeof ex === 'string' ? ex : ex.error ? 'error' : 'result';
  });
  await session
    .request('server/discover', {}, { meta: { clientInfo: { name: 'mcp-conformance-other', version: CLIENT_INFO.version } } })
    .catch(() => undefined);
  sent.push('server/discover (another client)');
  const after = await walk();
  if (!after.exhausted) return t.note('side effects', `not judged: the second ${method} walk did not complete (${after.problem?.detail})`);
  t.note('requests in between', sent);
  const side = compare(before.items, after.items);
  t.expect(side.missing.length === 0 && side.extra.length === 0, {
    expected: `the same ${side.size} ${noun}(s) before and after other requests on the connection (${sent.join(', ')})`,
    actual: `missing after: ${show(side.missing)}; only after: ${show(side.extra)}`,
    wire: [before.pages[before.pages.length - 1]!, after.pages[after.pages.length - 1]!],
  });
}

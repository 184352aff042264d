/**
 * Statelessness (basic/index "Statelessness"): each request is answered from
 * what it carries alone, on any connection, whatever other clients send.
 */
import { NO_SUCH_TOOL } from './tasks.js';
import { randomUUID } from 'node:crypto';
import { answerInputRequests, completeRequest, isInputRequired, sendRetry } from '../harness/mrtr.js';
import { CLIENT_INFO, type MetaOptions } from '../harness/protocol.js';
import type { Exchange, Session } from '../harness/session.js';
import { LIST_METHODS, walkList, type ListMethod, type ListWalk } from '../harness/walk.js';
import { isObject, type JsonObject } from '../model/json.js';
import { defineCheck, describeAnswer, idOf, schedule, show, VerdictSignal, type Probe } from './check.js';
import { describeDiff, toolsDiff } from './compare.js';
import { answeredRounds, judgeable, stateRound, survey, type AskRound, type MrtrTool } from './mrtr.js';
import { attempt } from './requests.js';
import { heldBackClause, heldBackNames, whyNotCallable, whyNotCallableAsWritten } from './safety.js';

/**
 * A tool the suite may call with no arguments: none required, read-only (or
 * allowed by the configuration file), not excluded. Undefined when none is.
 */
async function callableTool(t: Probe, also: (tool: JsonObject) => boolean = () => true): Promise<JsonObject | undefined> {
  const walk = await t.ctx.tools();
  if (!walk.exhausted) return undefined;
  return walk.items.find((tool) => {
    const schema = tool.inputSchema as JsonObject | undefined;
    const required = Array.isArray(schema?.required) ? schema.required : [];
    return required.length === 0 && whyNotCallable(t.ctx, tool) === undefined && also(tool);
  });
}

/** What kind of answer a request got, leaving out content that may legitimately vary (times, ids). */
function outcome(ex: Exchange): string {
  if (ex.error) return `JSON-RPC error ${show(ex.error.code)}`;
  const r = ex.result ?? {};
  const content = Array.isArray(r.content) ? (r.content as JsonObject[]).map((c) => String(c?.type)) : [];
  return `resultType ${show(r.resultType)}, isError ${r.isError === true}, content [${content.join(', ')}]`;
}

export const freshConnection = defineCheck({
  id: 'statelessness/fresh-connection',
  title: 'a tools/call as the very first request of a fresh connection is answered as on any other',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/index', section: 'Statelessness' },
  quote:
    'Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity). Every request supplies this metadata in its _meta field.',
  async run(t) {
    // A tool a fresh connection lists too: whether the set varies per connection is tools-list/stable-across-connections'.
    const fresh = await t.ctx.toolsFresh();
    const freshNames = new Set(fresh.items.map((x) => String(x?.name)));
    const tool = await callableTool(t, (x) => freshNames.has(String(x.name)));
    if (!tool) {
      const noArguments = (await t.ctx.tools()).items.filter(
        (x) => !((x.inputSchema as JsonObject | undefined)?.required as unknown[])?.length,
      );
      const held = heldBackNames(t.ctx, noArguments);
      return t.notObserved(
        `no listed tool can be called without arguments and without side effects (see tools.include / allowSideEffects in the configuration file)${heldBackClause(held)}`,
        { heldBack: held },
      );
    }
    const params = { name: tool.name, arguments: {} };
    const reference = await t.request('tools/call', params);
    // A client the server has never seen, on a connection that has carried nothing before.
    const session = await t.ctx.openSession();
    const clientInfo = { name: `mcp-conformance-fresh-${randomUUID().slice(0, 8)}`, version: CLIENT_INFO.version };
    const first = await session.request('tools/call', params, { meta: { clientInfo } });
    t.note('tool', tool.name);
    t.expect(outcome(first) === outcome(reference), {
      expected: `the same kind of answer as on the primary connection: ${outcome(reference)}`,
      actual: `${outcome(first)} (${describeAnswer(first)})`,
      wire: [reference, first],
    });
  },
});

async function walk(t: Probe, session: Session, meta: MetaOptions | undefined, when: string): Promise<ListWalk> {
  const w = await walkList(session, 'tools/list', 'tools', { maxPages: t.ctx.settings.maxPages, request: { meta } });
  if (!w.exhausted) t.notObserved(`tools/list ${when} could not be walked: ${w.problem?.detail}`);
  return w;
}

export const interleavedClients = defineCheck({
  id: 'statelessness/interleaved-clients',
  title: 'two clients interleaved on one connection are each answered from their own _meta',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/index', section: 'Statelessness' },
  quote:
    'Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity).',
  async run(t) {
    const session = t.session;
    const configured = t.ctx.config.capabilityTool;
    // tools.exclude wins over the configured tool too.
    const tool = configured && whyNotCallableAsWritten(t.ctx, configured.name) === undefined ? configured : undefined;
    const capabilities = Object.fromEntries((tool?.requires ?? ['roots']).map((c) => [c, {}]));
    const a: MetaOptions = { clientInfo: { name: 'mcp-conformance-client-a', version: CLIENT_INFO.version }, capabilities };
    const b: MetaOptions = { clientInfo: { name: 'mcp-conformance-client-b', version: CLIENT_INFO.version }, capabilities: {} };
    // Client B first, then client A (declaring capabilities), then B again: B must be answered as before.
    await session.request('server/discover', {}, { meta: b });
    const b1 = await walk(t, session, b, 'for client B');
    const call = tool ? { name: tool.name, arguments: tool.arguments ?? {} } : undefined;
    const bFirst = call && (await session.request('tools/call', call, { meta: b }));
    await session.request('server/discover', {}, { meta: a });
    await walk(t, session, a, 'for client A');
    const aCall = call && (await session.request('tools/call', call, { meta: a }));
    const b2 = await walk(t, session, b, 'for client B again');
    const diff = describeDiff(toolsDiff(b1.items, b2.items));
    t.expect(diff === '', {
      expected: "client B's tools/list unchanged by client A's requests in between",
      actual: diff,
      wire: [b1.pages[0]!, b2.pages[0]!],
    });
    if (!call || !bFirst || !aCall) {
      t.note('capabilities', 'no capabilityTool in the configuration file: only tools/list was interleaved');
      return;
    }
    const bAgain = await session.request('tools/call', call, { meta: b });
    t.note('answers', { 'B before A': outcome(bFirst), A: outcome(aCall), 'B after A': outcome(bAgain) });
    if (outcome(aCall) === outcome(bFirst)) {
      t.note('not exercised', `declaring ${Object.keys(capabilities).join(', ')} made no difference to ${tool!.name}`);
    }
    t.expect(outcome(bAgain) === outcome(bFirst), {
      expected: `client B (no capabilities) answered as before client A declared ${Object.keys(capabilities).join(', ')} on the same connection: ${outcome(bFirst)}`,
      actual: `${outcome(bAgain)} (${describeAnswer(bAgain)})`,
      wire: [bFirst, aCall, bAgain],
    });
  },
});

export const listUnaffected = defineCheck({
  id: 'statelessness/list-unaffected',
  title: 'tools/list does not change as a side effect of other requests on the connection',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  quote:
    'This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.',
  async run(t) {
    const session = await t.ctx.openSession();
    const before = await walk(t, session, undefined, 'first');
    const tool = await callableTool(t);
    const sent: string[] = [];
    // Unrelated requests: a tool call, another client's discovery, and requests that fail.
    if (tool) {
      await session.request('tools/call', { name: tool.name, arguments: {} });
      sent.push(`tools/call ${String(tool.name)}`);
    }
    await session.request('server/discover', {}, { meta: { clientInfo: { name: 'mcp-conformance-other', version: CLIENT_INFO.version } } });
    sent.push('server/discover (another client)');
    // An unknown tool runs nothing; still, tools.exclude and the gate have the last word.
    const unknown = { name: NO_SUCH_TOOL, arguments: {} };
    if (whyNotCallableAsWritten(t.ctx, NO_SUCH_TOOL) === undefined && session.callRefusal(unknown) === undefined) {
      await attempt(session, 'tools/call', unknown, {});
      sent.push('tools/call of an unknown tool');
    }
    await attempt(session, 'mcp-conformance/no-such-method', {}, {});
    sent.push('an unknown method');
    const after = await walk(t, session, undefined, 'after the other requests');
    t.note('requests in between', sent);
    const diff = describeDiff(toolsDiff(before.items, after.items));
    t.expect(diff === '', {
      expected: 'the same tools (names and definitions) before and after the other requests',
      actual: diff,
      wire: [before.pages[before.pages.length - 1]!, after.pages[after.pages.length - 1]!],
    });
  },
});

/** The capability each paginated list needs. */
const LIST_CAPABILITY: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
};

/** An answer that refuses or fails: a JSON-RPC error, a tool error, or none. */
function failed(ex: Exchange | undefined): boolean {
  return !ex || !!ex.error || ex.result?.isError === true;
}

/**
 * A cursor issued on the primary connection, sent on a fresh one: the first
 * declared list whose first page has a next page. Returns whether one was judged.
 */
async function cursorElsewhere(t: Probe, fresh: () => Promise<Session>): Promise<boolean> {
  const capabilities = t.ctx.discovery().capabilities ?? {};
  for (const method of Object.keys(LIST_METHODS) as ListMethod[]) {
    if (capabilities[LIST_CAPABILITY[method]] === undefined) continue;
    const first = await t.request(method, {});
    const cursor = first.result?.nextCursor;
    if (typeof cursor !== 'string') continue;
    const elsewhere = await fresh();
    const second = await elsewhere.request(method, { cursor });
    const items = second.result?.[LIST_METHODS[method]];
    if (second.error && (await elsewhere.request(method, {})).error) {
      // The first page is refused there too: not the cursor's, statelessness/fresh-connection's finding.
      t.note('cursor', `${method} is refused on a fresh connection even without a cursor (${idOf(freshConnection)})`);
      return false;
    }
    t.note('cursor', `${method} page 2 asked for on a fresh connection`);
    t.expect(!second.error && Array.isArray(items), {
      expected: `${method} with the cursor the primary connection was given: the next page`,
      actual: `on a fresh connection: ${describeAnswer(second)}`,
      wire: [first, second],
      part: 'other-connection',
    });
    return true;
  }
  return false;
}

/** The survey's tools that asked for input and are read-only (driving them again changes nothing), or none. */
async function readOnlyMrtrTools(t: Probe): Promise<MrtrTool[]> {
  if (t.ctx.discovery().capabilities?.tools === undefined) return [];
  try {
    const s = await survey(t);
    return s.tools.filter((x) => isObject(x.tool.annotations) && x.tool.annotations.readOnlyHint === true);
  } catch (err) {
    // No survey (tools/list could not be walked): nothing to retry, the cursor may still be judged.
    if (err instanceof VerdictSignal) return [];
    throw err;
  }
}

/** The round to retry elsewhere: the first answered one carrying requestState, else the first answered one. */
function retryRound(x: MrtrTool): AskRound | undefined {
  return stateRound(x) ?? answeredRounds(x)[0];
}

/**
 * Drive a new exchange of the tool on the primary connection up to the round
 * `r` asked at, and return that round's answer with the retry's fields; undefined
 * when this exchange went differently from the survey's.
 */
async function askAgain(
  t: Probe,
  x: MrtrTool,
  r: AskRound,
): Promise<{ ask: Exchange; inputResponses?: unknown; requestState?: unknown } | undefined> {
  const d = await completeRequest(
    t.session,
    'tools/call',
    { name: x.name, arguments: x.call.arguments },
    { answers: x.answers, maxRounds: r.round },
  );
  const ask = d.rounds[r.round - 1];
  if (d.rounds.length !== r.round || !isInputRequired(ask)) return undefined;
  const requests = ask!.result!.inputRequests;
  const answered = requests === undefined ? undefined : answerInputRequests(requests, x.answers);
  if (answered && !answered.ok) return undefined;
  return { ask: ask!, inputResponses: answered?.inputResponses, requestState: ask!.result!.requestState };
}

/** A new call of the tool (its first round) is served on `session`. */
async function servedFresh(session: Session, x: MrtrTool): Promise<boolean> {
  const d = await completeRequest(
    session,
    'tools/call',
    { name: x.name, arguments: x.call.arguments },
    { answers: x.answers, maxRounds: 1 },
  );
  return !failed(d.rounds[0]);
}

/** Each read-only tool's retry sent on a fresh connection, and (part) after another exchange of it on the same connection. */
async function retriesElsewhere(t: Probe, fresh: () => Promise<Session>): Promise<number> {
  let judged = 0;
  for (const x of await readOnlyMrtrTools(t)) {
    const r = retryRound(x);
    const normal = r && x.drive.rounds[r.round];
    if (!r || failed(normal)) continue;
    const where = `tools/call ${x.name}, retry of round ${r.round}`;
    const expected = `the retry answered as on the connection that asked (${describeAnswer(normal!)})`;
    // (a) The retry on a fresh connection (stdio: a new process).
    const a = await askAgain(t, x, r);
    if (!a) continue;
    const elsewhere = await fresh();
    const sent = await sendRetry(elsewhere, a.ask, a);
    if (failed(sent.exchange) && !(await servedFresh(elsewhere, x))) {
      // A fresh connection that refuses even a new call relies on prior requests: statelessness/fresh-connection's finding.
      t.note(`${x.name} on a fresh connection`, `a new call is refused there too, not only the retry (${idOf(freshConnection)})`);
    } else if (sent.exchange || judgeable(t, sent.outcome, `${where} on a fresh connection`)) {
      judged++;
      t.expect(!failed(sent.exchange), {
        expected,
        actual: `${where} on a fresh connection: ${sent.exchange ? describeAnswer(sent.exchange) : sent.outcome.detail}`,
        wire: [a.ask, ...(sent.exchange ? [sent.exchange] : [])],
        part: 'other-connection',
      });
    }
    // (b) Another exchange of the same tool, whole, between the question and the retry on one connection.
    const b = await askAgain(t, x, r);
    if (!b) continue;
    const other = await completeRequest(
      t.session,
      'tools/call',
      { name: x.name, arguments: x.call.arguments },
      {
        answers: x.answers,
        maxRounds: t.ctx.settings.maxRounds,
      },
    );
    const retried = await sendRetry(t.session, b.ask, b);
    if (!retried.exchange && !judgeable(t, retried.outcome, `${where} after another exchange`)) continue;
    judged++;
    t.expect(!failed(retried.exchange), {
      expected: `${expected}, whatever other exchange of ${x.name} came in between`,
      actual: `${where} after another whole exchange of ${x.name} (${other.rounds.length} round(s)) on the same connection: ${retried.exchange ? describeAnswer(retried.exchange) : retried.outcome.detail}`,
      wire: [b.ask, ...other.rounds.slice(-1), ...(retried.exchange ? [retried.exchange] : [])],
    });
  }
  return judged;
}

export const relatedOperations = defineCheck({
  id: 'statelessness/related-operations',
  title: 'an input_required retry is served between other exchanges and on a fresh connection, and so is a next-page cursor',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'Statelessness' },
  // The retry carries its requestState and inputResponses: another exchange of the same tool in between changes nothing.
  // The SHOULD before it ("prepared to handle requests associated with multiple tasks…") is not this MUST's words: a retry
  // that fails because its state was kept by the connection breaks the MUST sentence alone.
  quote:
    'State that needs to span multiple requests (e.g., long-running tasks, application-level handles) MUST be referenced by an explicit identifier the client passes on each request.',
  parts: {
    'other-connection': {
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'basic/index', section: 'Statelessness' },
      quote: 'Servers SHOULD NOT require that a client reuse the same connection or process to perform related operations.',
    },
  },
  async run(t) {
    let session: Session | undefined;
    // One fresh connection (stdio: one new process) for every related operation.
    const fresh = async () => (session ??= await t.ctx.openSession());
    const cursor = await cursorElsewhere(t, fresh);
    const retries = await retriesElsewhere(t, fresh);
    t.note('retries judged', retries);
    if (!cursor && retries === 0)
      t.notObserved(
        'no list has a second page and no read-only tool answered input_required (name tools that ask for input in the fixtures of the configuration file)',
      );
  },
});

// Walks tools/list twice: one at a time with the other checks that walk it.
schedule(listUnaffected, { primary: 'walks tools/list, with the other checks that walk it' });
// Client A's and client B's requests must share one connection (on HTTP, one socket): no other traffic on it.
schedule(interleavedClients, { exclusive: 'interleaves two clients on one connection' });

// Retries the input_required survey's tools, first asked on the first connection.
schedule(relatedOperations, { primary: 'drives the tools the first connection listed, and retries them elsewhere' });

export const statelessnessChecks = [freshConnection, interleavedClients, listUnaffected, relatedOperations];

/**
 * The fixture checks: example calls from the configuration file's `fixtures`,
 * made as written (arguments, declared capabilities, scripted answers for the
 * input the tool asks for) and judged against the outcome the server's author
 * declared. Each call is made once per run, through the one MRTR driver, and
 * shared by both checks. These are the user's rules, not the spec's: each
 * check is marked `fromConfig` and cites the configuration file, never a page,
 * and applies in both eras. In the legacy era (2025-11-25) a call is one
 * tools/call on a connection declaring the call's capabilities; a call that
 * expects input_required, or scripts answers keyed by inputRequests, belongs
 * to the modern multi round-trip and is not made there (its check says so).
 */
import { completeRequest, isInputRequired, singleRequest, type DriveOutcome } from '../harness/mrtr.js';
import type { Exchange } from '../harness/session.js';
import { defineCheck, memoKey, describeAnswer, show, type Probe } from './check.js';
import { judgeable } from './mrtr.js';
import { capabilitiesFor } from './targets.js';
import { whyNotCallableAsWritten } from './safety.js';
import type { FixtureCall } from '../model/config.js';
import { canonical, isObject } from '../model/json.js';
import { CONFIG_PAGE } from '../model/spec.js';

interface FixtureRun {
  tool: string;
  call: FixtureCall;
  label: string;
  /** Undefined when tools/list does not list the tool. */
  drive?: DriveOutcome;
  /** The tools/list pages (evidence when the tool is not listed). */
  listing: Exchange[];
  /** Why the call was not made, and what the user can do (the safety policy, suites/safety.ts; or the era). */
  excluded?: string;
}

const runs = memoKey<Promise<FixtureRun[]>>('fixtures: the example calls');

function fixtureRuns(t: Probe): Promise<FixtureRun[]> {
  return t.ctx.run.memo(runs, () => makeRuns(t));
}

async function makeRuns(t: Probe): Promise<FixtureRun[]> {
  const walk = await t.ctx.tools();
  if (!walk.exhausted) t.notObserved(`tools/list could not be walked to the end: ${walk.problem?.detail}`);
  const listed = new Set(walk.items.map((x) => String(x?.name)));
  const out: FixtureRun[] = [];
  for (const [tool, fixture] of Object.entries(t.ctx.config.fixtures ?? {})) {
    for (const [i, call] of (fixture.calls ?? []).entries()) {
      const label = `fixtures.${tool}.calls[${i}]${call.description ? ` (${call.description})` : ''}`;
      const legacy = t.ctx.era === 'legacy';
      const eraless = legacy ? modernOnly(call, listed.has(tool)) : undefined;
      if (eraless) {
        out.push({ tool, call, label, listing: walk.pages, excluded: eraless });
        continue;
      }
      if (!listed.has(tool)) {
        out.push({ tool, call, label, listing: walk.pages });
        continue;
      }
      // tools.exclude wins over the fixture file.
      const policy = whyNotCallableAsWritten(t.ctx, tool);
      const excluded = policy && `${policy} (tools.exclude always wins)`;
      if (excluded) {
        out.push({ tool, call, label, listing: walk.pages, excluded });
        continue;
      }
      if (legacy) {
        out.push({ tool, call, label, drive: await legacyCall(t, tool, call), listing: walk.pages });
        continue;
      }
      const firstOnly = call.expect?.outcome === 'input_required';
      const drive = await completeRequest(
        t.session,
        'tools/call',
        { name: tool, arguments: call.arguments ?? {} },
        { answers: call.answers, capabilities: capabilitiesFor(call.capabilities), maxRounds: firstOnly ? 1 : t.ctx.settings.maxRounds },
      );
      out.push({ tool, call, label, drive, listing: walk.pages });
    }
  }
  return out;
}

/**
 * Why a call cannot be made as written in the legacy era: 2025-11-25 has no
 * input_required (a legacy tool asks with elicitation/create, which the suite
 * declines), so neither that outcome nor answers keyed by inputRequests
 * apply; and a tool the legacy tools/list does not list may be one a
 * dual-era server offers in 2026-07-28 only (the file does not say which era
 * it describes, so an unlisted tool fails only in the modern era).
 */
function modernOnly(call: FixtureCall, listed: boolean): string | undefined {
  const why =
    call.expect?.outcome === 'input_required'
      ? 'it expects input_required, which 2025-11-25 does not have'
      : call.answers !== undefined
        ? 'its answers are keyed by inputRequests, which 2025-11-25 does not have'
        : !listed
          ? 'the 2025-11-25 tools/list does not list the tool (check its name, or whether the server offers it in 2026-07-28 only)'
          : undefined;
  return why && `${why}: it is judged against a server speaking 2026-07-28 (--spec 2026-07-28)`;
}

/** A legacy fixture call: one tools/call, on a connection declaring the call's capabilities when it names them. */
async function legacyCall(t: Probe, tool: string, call: FixtureCall): Promise<DriveOutcome> {
  const session = call.capabilities ? await t.ctx.openSession({ capabilities: capabilitiesFor(call.capabilities) }) : t.session;
  return singleRequest(session, 'tools/call', { name: tool, arguments: call.arguments ?? {} });
}

/** The runs a check applies to; skipped when the file declares none. */
async function selected(t: Probe, applies: (c: FixtureCall) => boolean, what: string): Promise<FixtureRun[]> {
  const fixtures = t.ctx.config.fixtures;
  if (!fixtures || Object.keys(fixtures).length === 0) t.skip('the configuration file declares no fixtures');
  const all = await fixtureRuns(t);
  const mine = all.filter((r) => applies(r.call));
  if (mine.length === 0) t.skip(`no fixture call declares ${what}`);
  const excluded = mine.filter((r) => r.excluded !== undefined);
  if (excluded.length)
    t.note(
      'not called',
      excluded.map((r) => `${r.label}: ${r.excluded}`),
    );
  const made = mine.filter((r) => r.excluded === undefined);
  if (made.length === 0) t.notObserved(`no fixture call declaring ${what} was made: ${excluded[0]!.label}: ${excluded[0]!.excluded}`);
  t.note('calls', made.length);
  return made;
}

/** How a drive ended, in the fixture file's words. */
function outcomeOf(d: DriveOutcome): string {
  if (d.status === 'error') return `error ${show(d.final?.error?.code)}`;
  if (d.final && isInputRequired(d.final)) return 'input_required';
  if (d.status === 'complete') return d.final?.result?.isError === true ? 'isError' : 'complete';
  return d.status;
}

function unlisted(t: Probe, r: FixtureRun): boolean {
  if (r.drive) return false;
  t.expect(false, {
    expected: `tools/list to list ${show(r.tool)}, which the fixture file describes`,
    actual: `${r.label}: no tool named ${show(r.tool)} is listed`,
    wire: r.listing,
  });
  return true;
}

export const fixtureOutcome = defineCheck({
  id: 'fixtures/outcome',
  title: 'each example call in the fixture file ends as its author declared',
  // The user's rule, not the spec's: no sentence of server/tools says how a given call ends. The
  // configuration file's author declared it, so a mismatch fails the run as a failed test of theirs
  // would, and the report names the file, not a spec page, as the requirement's source.
  level: 'MUST',
  capability: 'tools',
  fromConfig: 'fixtures',
  spec: { revision: 'draft', page: CONFIG_PAGE, section: 'fixtures' },
  quote:
    'Declared in your configuration file (fixtures.<tool>.calls[].expect.outcome), not by the spec: the call ends as declared, with a result (complete), a tool execution error (isError), a request for input (input_required) or a JSON-RPC error (error, with errorCode when given).',
  async run(t) {
    for (const r of await selected(t, (c) => c.expect?.outcome !== undefined, 'an expected outcome')) {
      if (unlisted(t, r)) continue;
      const d = r.drive!;
      const want = r.call.expect!.outcome!;
      if (want === 'input_required') {
        const first = d.rounds[0];
        t.expect(!!first && isInputRequired(first), {
          expected: 'the first answer to be input_required',
          actual: `${r.label}: ${first ? describeAnswer(first) : d.detail}`,
          wire: first ?? d.unanswered,
        });
        continue;
      }
      if (d.status === 'stuck' && d.stuck === 'script') {
        t.expect(false, { expected: 'scripted answers that fit the requests', actual: `${r.label}: ${d.detail}`, wire: d.final });
        continue;
      }
      if (!judgeable(t, d, r.label)) continue;
      const got = outcomeOf(d);
      const code = r.call.expect!.errorCode;
      const ok = want === 'error' ? d.status === 'error' && (code === undefined || d.final?.error?.code === code) : got === want;
      t.expect(ok, {
        expected: want === 'error' && code !== undefined ? `error ${code}` : want,
        actual: `${r.label}: ${got}${d.final ? ` — ${describeAnswer(d.final)}` : d.detail ? ` — ${d.detail}` : ''}`,
        wire: lastRounds(d),
      });
    }
  },
});

export const fixtureContent = defineCheck({
  id: 'fixtures/content',
  title: 'each example call returns the content its fixture declares',
  // The user's rule, not the spec's (see fixtures/outcome).
  level: 'MUST',
  capability: 'tools',
  fromConfig: 'fixtures',
  spec: { revision: 'draft', page: CONFIG_PAGE, section: 'fixtures' },
  quote:
    'Declared in your configuration file (fixtures.<tool>.calls[].expect.content and .structuredContent), not by the spec: the result carries text content containing each declared string and exactly the declared structuredContent.',
  async run(t) {
    // 2025-11-25 requires structuredContent to be an object: another declared value can only be met in 2026-07-28.
    const comparable = (c: FixtureCall) =>
      c.expect?.structuredContent !== undefined && (t.ctx.era === 'modern' || isObject(c.expect.structuredContent));
    const applies = (c: FixtureCall) => c.expect?.content !== undefined || comparable(c);
    const left = Object.entries(t.ctx.config.fixtures ?? {}).flatMap(([tool, f]) =>
      (f.calls ?? []).flatMap((c, i) =>
        c.expect?.structuredContent !== undefined && !comparable(c) ? [`fixtures.${tool}.calls[${i}]`] : [],
      ),
    );
    if (left.length)
      t.note(
        'structuredContent not compared',
        `${left.join(', ')}: not an object, which 2025-11-25 requires (compared against a server speaking 2026-07-28)`,
      );
    for (const r of await selected(t, applies, 'expected content')) {
      if (unlisted(t, r)) continue;
      const d = r.drive!;
      if (!judgeable(t, d, r.label)) continue;
      const result = d.status === 'complete' ? d.final?.result : undefined;
      if (!result) {
        // With a declared outcome, a call that ended otherwise is fixtures/outcome's finding.
        if (r.call.expect?.outcome === undefined) {
          t.expect(false, { expected: 'a result to look for the content in', actual: `${r.label}: ${outcomeOf(d)}`, wire: lastRounds(d) });
        }
        continue;
      }
      const texts = Array.isArray(result.content)
        ? (result.content as Array<Record<string, unknown>>).filter((b) => b?.type === 'text').map((b) => String(b.text))
        : [];
      for (const want of r.call.expect?.content ?? []) {
        t.expect(
          texts.some((x) => x.includes(want)),
          {
            expected: `text content containing ${show(want)}`,
            actual: `${r.label}: text content ${show(texts)}`,
            wire: d.final,
          },
        );
      }
      if (r.call.expect && 'structuredContent' in r.call.expect && comparable(r.call)) {
        t.expect(canonical(result.structuredContent) === canonical(r.call.expect.structuredContent), {
          expected: `structuredContent ${show(r.call.expect.structuredContent)}`,
          actual: `${r.label}: structuredContent ${show(result.structuredContent)}`,
          wire: d.final,
        });
      }
    }
  },
});

function lastRounds(d: DriveOutcome): Exchange[] | undefined {
  return d.rounds.length ? d.rounds.slice(-2) : undefined;
}

export const fixtureChecks = [fixtureOutcome, fixtureContent];

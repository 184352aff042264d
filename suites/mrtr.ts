/**
 * Multi round-trip requests (basic/patterns/mrtr.mdx, server/tools.mdx "Input
 * Required Tool Results"): the suite acts as the client, correctly and then
 * adversarially, on the server's own tools.
 *
 * Which tools: every tool the suite may call (fixtures first, else read-only
 * tools with generated valid arguments) is called once with elicitation,
 * sampling and roots declared; those answering `input_required` are driven
 * to the end by the one driver (harness/mrtr.ts). That survey is made once per
 * run and shared by the checks below, each judging one rule. A drive cut short
 * by a defect another check owns (e.g. a retry answered on the old id) is
 * noted by the others, not reported twice.
 */
import { duplicateKeys } from '../harness/json-keys.js';
import { checkJsonSchema } from '../harness/jsonschema.js';
import {
  answerInputRequests,
  capabilityNeeded,
  completeRequest,
  continueRequest,
  INPUT_CAPABILITIES,
  INPUT_REQUEST_KINDS,
  isInputRequired,
  sendRetry,
  type DriveOutcome,
} from '../harness/mrtr.js';
import type { Exchange } from '../harness/session.js';
import { defineCheck, idOf, memoKey, schedule, describeAnswer, frameKey, show, type Check, type Probe } from './check.js';
import { fixtureOutcome } from './fixtures.js';
import { resultType } from './protocol.js';
import { capabilitiesWithout, probeCall, type PlannedCall } from './targets.js';
import { heldBackClause, heldBackNames, whyNotCallable } from './safety.js';
import { canonical, isObject, type JsonObject } from '../model/json.js';
import type { ScriptedAnswer } from '../model/config.js';
import type { Era, WireFrame } from '../model/wire.js';
import { ERROR_CODES } from '../model/error-codes.js';

/** A tool that answered `input_required`, with its normal drive (every input capability declared). */
export interface MrtrTool {
  name: string;
  tool: JsonObject;
  call: PlannedCall;
  answers?: Record<string, ScriptedAnswer>;
  /** The fixture file says tampering with its requestState is harmless. */
  harmless: boolean;
  drive: DriveOutcome;
}

export interface Survey {
  tools: MrtrTool[];
  /** Tools called that completed at once, and why others were not called. */
  completedAtOnce: string[];
  notCalled: Record<string, string>;
}

const surveys = memoKey<Promise<Survey>>('mrtr: the input_required survey');

/** The survey of the run (made once, on first use). */
export function survey(t: Probe): Promise<Survey> {
  return t.ctx.run.memo(surveys, () => makeSurvey(t));
}

async function makeSurvey(t: Probe): Promise<Survey> {
  const walk = await t.ctx.tools();
  if (!walk.exhausted) t.notObserved(`tools/list could not be walked to the end: ${walk.problem?.detail}`);
  const out: Survey = { tools: [], completedAtOnce: [], notCalled: {} };
  const config = t.ctx.config;
  const seen = new Set<string>();
  for (const tool of walk.items) {
    const name = String(tool?.name);
    if (seen.has(name)) continue;
    seen.add(name);
    const plan = probeCall(t.ctx, tool);
    if (typeof plan === 'string') {
      out.notCalled[name] = plan;
      continue;
    }
    const answers = plan.fixture?.answers;
    const drive = await completeRequest(
      t.session,
      'tools/call',
      { name, arguments: plan.arguments },
      { answers, maxRounds: t.ctx.settings.maxRounds },
    );
    if (!isInputRequired(drive.rounds[0])) {
      out.completedAtOnce.push(name);
      continue;
    }
    out.tools.push({ name, tool, call: plan, answers, harmless: config.fixtures?.[name]?.tamperingHarmless === true, drive });
  }
  return out;
}

/** The tools that answered input_required, or not-observed when there are none. */
async function mrtrTools(t: Probe): Promise<MrtrTool[]> {
  const s = await survey(t);
  if (s.tools.length === 0) {
    const called = s.completedAtOnce.length;
    const listed = (await t.ctx.tools()).items.filter((tool) => String(tool.name) in s.notCalled);
    const held = heldBackNames(t.ctx, listed);
    t.notObserved(
      `no tool the suite may call answered input_required (${called} tool(s) called completed at once, ` +
        `${Object.keys(s.notCalled).length} not called); name tools that ask for input in the configuration file's fixtures${heldBackClause(held)}`,
      { heldBack: held },
    );
  }
  t.note(
    'tools',
    s.tools.map((x) => x.name),
  );
  return s.tools;
}

/**
 * Who reports a drive cut short: the check that owns the defect, or why
 * nobody can judge it. Another check's drive is noted and left to it.
 */
export function ownerOf(d: DriveOutcome, era: Era): Check | string | undefined {
  if (d.status === 'stale-id') return retryId;
  // Servers MAY ask again on every attempt (mrtr#Server Requirements): a drive that never ends is no one's finding.
  if (d.status === 'unterminated')
    return 'not judged: the server asked for input on every round, which it MAY do; raise --max-rounds or script the answers';
  if (d.status === 'stuck') {
    if (d.stuck === 'empty') return inputOrState;
    if (d.stuck === 'result-type') return resultType;
    if (d.stuck === 'unanswerable') return inputRequestsValid;
    if (d.stuck === 'undeclared') return capabilityGating;
    if (d.stuck === 'no-value') return 'not judged: the suite could not generate a valid answer; script one in the fixture file';
    return fixtureOutcome;
  }
  // A missing resultType is protocol/result-type's finding in the modern era; 2025-11-25 results have none.
  if (era === 'modern' && d.status === 'complete' && d.final?.result && d.final.result.resultType === undefined) return resultType;
  return undefined;
}

/** Is this drive this check's to judge? Otherwise note whose it is. */
export function judgeable(t: Probe, d: DriveOutcome, label: string): boolean {
  // An answer on a stale id is mrtr/retry-id's finding, whichever drive met it, not protocol/response-ids'.
  for (const f of d.staleAnswer?.frames ?? []) if (f.dir === 'in') t.ctx.framesJudged.add(frameKey(f));
  const owner = ownerOf(d, t.ctx.era);
  if (!owner || owner === t.check) return true;
  const left = (t.details['not judged here'] ?? []) as string[];
  left.push(`${label}: ${d.detail ?? d.status} (${typeof owner === 'string' ? owner : idOf(owner)})`);
  t.note('not judged here', left);
  return false;
}

/** The answer counts as accepting the request: a result that neither asks for input nor is a tool error. */
function accepted(ex: Exchange | undefined): boolean {
  return !!ex?.result && !isInputRequired(ex) && ex.result.isError !== true;
}

function callLabel(x: MrtrTool): string {
  return `tools/call ${x.name}`;
}

/** Every input_required round of every normal drive. */
function inputRequiredRounds(tools: MrtrTool[]): Array<{ x: MrtrTool; ex: Exchange; round: number }> {
  return tools.flatMap((x) => x.drive.rounds.map((ex, i) => ({ x, ex, round: i + 1 })).filter((r) => isInputRequired(r.ex)));
}

/** A round of the normal drive that asks for input, with the answers the driver gave it. */
export interface AskRound {
  ex: Exchange;
  round: number;
  inputResponses?: JsonObject;
  state?: unknown;
}

/** Rounds that were answered (a retry followed), first first. */
export function answeredRounds(x: MrtrTool): AskRound[] {
  const out: AskRound[] = [];
  x.drive.rounds.forEach((ex, i) => {
    if (!isInputRequired(ex) || i + 1 >= x.drive.rounds.length) return;
    const r = ex.result!;
    const answered = r.inputRequests === undefined ? undefined : answerInputRequests(r.inputRequests, x.answers);
    if (answered && !answered.ok) return;
    out.push({ ex, round: i + 1, inputResponses: answered?.inputResponses, state: r.requestState });
  });
  return out;
}

/** The first answered round that carries a requestState string. */
export function stateRound(x: MrtrTool): (AskRound & { state: string }) | undefined {
  return answeredRounds(x).find((r): r is AskRound & { state: string } => typeof r.state === 'string');
}

/** The first answered round whose inputRequests asks for something. */
function askingRound(x: MrtrTool): (AskRound & { inputResponses: JsonObject }) | undefined {
  return answeredRounds(x).find(
    (r): r is AskRound & { inputResponses: JsonObject } => !!r.inputResponses && Object.keys(r.inputResponses).length > 0,
  );
}

function evidence(ex: Exchange | undefined, d: DriveOutcome): WireFrame[] {
  return ex ? ex.frames : d.unanswered;
}

function echoState(state: unknown): JsonObject {
  return state === undefined ? {} : { requestState: state };
}

// ---------------------------------------------------------------------------

// A missing or unknown resultType on any result, round trips included, is protocol/result-type's (suites/statelessness.ts).

export const inputOrState = defineCheck({
  id: 'mrtr/input-or-state',
  title: 'every input_required result carries inputRequests or requestState',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  quote: 'Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult response.',
  async run(t) {
    const tools = await mrtrTools(t);
    for (const { x, ex, round } of inputRequiredRounds(tools)) {
      const r = ex.result!;
      t.expect(r.inputRequests !== undefined || r.requestState !== undefined, {
        expected: 'inputRequests, requestState, or both',
        actual: `round ${round} of ${callLabel(x)} carries neither: ${show(r)}`,
        wire: ex,
      });
    }
  },
});

export const inputRequestsValid = defineCheck({
  id: 'mrtr/input-requests-valid',
  title: 'each inputRequests entry is an elicitation, sampling or roots request, valid and uniquely keyed',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  quote:
    'inputRequests keys are server assigned identifiers and MUST be unique within the scope of the request. inputRequests values are request objects that MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest',
  async run(t) {
    const tools = await mrtrTools(t);
    for (const { x, ex, round } of inputRequiredRounds(tools)) {
      const where = `round ${round} of ${callLabel(x)}`;
      t.expectSchemaValid(ex, 'InputRequiredResult');
      const requests = ex.result!.inputRequests;
      if (requests === undefined) continue;
      if (!isObject(requests)) {
        t.expect(false, { expected: 'inputRequests to be an object', actual: `${where}: ${show(requests)}`, wire: ex });
        continue;
      }
      for (const [key, request] of Object.entries(requests)) {
        const method = isObject(request) ? request.method : undefined;
        t.expect(typeof method === 'string' && method in INPUT_REQUEST_KINDS, {
          expected: `each value one of ${Object.keys(INPUT_REQUEST_KINDS).join(', ')}`,
          actual: `${where}: inputRequests.${key} is ${isObject(request) ? `a ${show(method)} request` : show(request)}`,
          wire: ex,
        });
      }
      const raw = ex.frames.filter((f) => f.dir === 'in').at(-1);
      const dups = raw ? duplicateKeys(raw.text).filter((d) => /\/inputRequests$/.test(d.pointer)) : [];
      t.expect(dups.length === 0, {
        expected: 'each inputRequests key once',
        actual: `${where}: key(s) given more than once: ${show(dups.map((d) => d.key))}`,
        wire: ex,
      });
    }
  },
});

export const capabilityGating = defineCheck({
  id: 'mrtr/capability-gating',
  title: 'nothing is asked for that the client did not declare; a needed capability is named by -32021',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  // The example is the same rule for elicitation, which the withheld-capability drives exercise.
  quote:
    'Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities. For example, if a client does not declare support for elicitation, the server MUST NOT include any elicitation/create requests in the inputRequests field.',
  parts: {
    // A call that cannot proceed without the withheld capability: the error the _meta rules name.
    'missing-capability': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/index', section: '_meta' },
      quote:
        'If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities. On HTTP, the response status MUST be 400 Bad Request.',
    },
  },
  async run(t) {
    const s = await survey(t);
    // Nothing to drive: not observed, with the survey's reason.
    if (s.tools.length === 0) await mrtrTools(t);
    let judged = 0;
    const undeclared = (d: DriveOutcome, label: string, withheld: string) => {
      for (const u of d.undeclared) {
        t.expect(false, {
          expected: `no request needing ${u.needs} (the client declared ${show(Object.keys(d.capabilities))})`,
          actual: `${label} with ${withheld}: round ${u.round} asked inputRequests.${u.key} (${u.method})`,
          wire: d.rounds[u.round - 1],
        });
      }
    };
    for (const x of s.tools) {
      // What the tool asked for with everything declared must itself be declared (e.g. no URL-mode elicitation).
      undeclared(x.drive, callLabel(x), 'every input capability declared');
      const kinds = new Set<string>();
      for (const ex of x.drive.rounds) {
        const requests = ex.result?.inputRequests;
        if (!isObject(requests)) continue;
        for (const r of Object.values(requests)) {
          const needs = capabilityNeeded(r);
          if (needs) kinds.add(needs.split('.')[0]!);
        }
      }
      for (const kind of kinds) {
        const d = await completeRequest(
          t.session,
          'tools/call',
          { name: x.name, arguments: x.call.arguments },
          { answers: x.answers, capabilities: capabilitiesWithout(kind), maxRounds: t.ctx.settings.maxRounds },
        );
        judged++;
        const label = `${callLabel(x)} with ${kind} withheld`;
        undeclared(d, callLabel(x), `${kind} withheld`);
        if (d.status === 'error') judgeMissingCapability(t, d, [kind], label);
        else if (d.status === 'no-answer') {
          t.expect(false, {
            expected: 'completion without it, or JSON-RPC error -32021',
            actual: `${label}: ${d.detail}`,
            wire: d.unanswered,
            part: 'missing-capability',
          });
        } else if (d.status !== 'complete') judgeable(t, d, label);
      }
    }
    // The configured capabilityTool (a tool that needs a capability outright) is judged by meta/missing-capability.
    if (judged === 0) t.notObserved('no tool that answered input_required asked for elicitation, sampling or roots');
  },
});

/** The error for a withheld capability is -32021 naming every withheld one (HTTP: status 400). */
function judgeMissingCapability(t: Probe, d: DriveOutcome, withheld: string[], label: string): void {
  const ex = d.final!;
  const err = ex.error!;
  if (
    !t.expect(err.code === ERROR_CODES.MISSING_CAPABILITY, {
      expected: 'completion without the withheld capability, or JSON-RPC error -32021 (MissingRequiredClientCapability)',
      actual: `${label}: ${describeAnswer(ex)}`,
      wire: ex,
      part: 'missing-capability',
    })
  ) {
    return;
  }
  const data = isObject(err.data) ? err.data : {};
  const required = isObject(data.requiredCapabilities) ? data.requiredCapabilities : undefined;
  const missing = withheld.filter((k) => !required || !(k in required));
  t.expect(missing.length === 0, {
    expected: `data.requiredCapabilities naming ${withheld.join(', ')}`,
    actual: `${label}: data ${show(err.data)}`,
    wire: ex,
    part: 'missing-capability',
  });
  if (ex.http) {
    t.expect(ex.http.status === 400, {
      expected: 'HTTP status 400 with -32021',
      actual: `${label}: HTTP ${ex.http.status}`,
      wire: ex,
      part: 'missing-capability',
    });
  }
}

// mrtr/round-trip is gone: Basic Workflow describes the flow without a keyword, and servers MAY
// answer input_required on every attempt (mrtr#Server Requirements): no sentence makes a retry complete.

export const retryId = defineCheck({
  id: 'mrtr/retry-id',
  title: 'each retry is answered on its own, new id',
  level: 'MUST',
  capability: 'tools',
  // The server's rule, not mrtr#Client Requirements (the retry's new id is the client's MUST, which the
  // suite keeps itself): a retry is a request of its own, and its response carries that request's id.
  spec: { revision: 'draft', page: 'basic/index', section: 'Responses' },
  quote:
    'Result responses MUST include the same ID as the request they correspond to. … Error responses MUST include the same ID as the request they correspond to',
  async run(t) {
    const tools = await mrtrTools(t);
    let retries = 0;
    for (const x of tools) {
      const d = x.drive;
      if (!judgeable(t, d, callLabel(x))) continue;
      retries += Math.max(0, d.rounds.length - 1) + (d.staleAnswer ? 1 : 0);
      if (d.staleAnswer) {
        t.expect(false, {
          expected: `the retry (id ${show(d.staleAnswer.retryId)}) answered on its own id`,
          actual: `${callLabel(x)}: the answer came with id ${show(d.staleAnswer.answeredId)} of an earlier round`,
          wire: d.staleAnswer.frames,
        });
      }
    }
    if (retries === 0) t.notObserved('no drive got as far as a retry');
    t.note('retries', retries);
  },
});

/** Ways to tamper with an opaque string: change it at the end or in the middle, or cut it short. */
export function tamperings(state: string): Array<{ how: string; value: string }> {
  const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // Far along the alphabet, so a lenient base64 decoder cannot read the same bytes.
  const other = (c: string) => {
    const i = ALNUM.indexOf(c);
    return i < 0 ? 'A' : ALNUM[(i + 31) % ALNUM.length]!;
  };
  if (state.length === 0) return [{ how: 'a state where the server sent an empty one', value: 'A' }];
  const mid = Math.floor(state.length / 2);
  const cut = Math.min(16, Math.max(1, Math.floor(state.length / 4)));
  return [
    { how: 'its last character changed', value: state.slice(0, -1) + other(state.at(-1)!) },
    { how: 'a character in the middle changed', value: state.slice(0, mid) + other(state[mid]!) + state.slice(mid + 1) },
    { how: `its last ${cut} character(s) cut off`, value: state.slice(0, -cut) },
  ].filter((v) => v.value !== state);
}

export const stateIntegrity = defineCheck({
  id: 'mrtr/state-integrity',
  title: 'a tampered requestState is rejected, or ends as the untampered one did; never completed otherwise',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  quote:
    'If a client request contains a requestState field, servers MUST treat requestState as an attacker-controlled input. If requestState influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification. Integrity protection MAY be omitted only when tampering can cause nothing worse than request failure.',
  async run(t) {
    const tools = await mrtrTools(t);
    let judged = 0;
    for (const x of tools) {
      const r = stateRound(x);
      if (!r) continue;
      // "Integrity protection MAY be omitted only when tampering can cause nothing worse than request
      // failure": the fixture file says so for this tool, so accepting a tampered state is allowed.
      if (x.harmless) {
        t.note(
          x.name,
          'tampering documented as harmless (fixtures.<tool>.tamperingHarmless): integrity protection MAY be omitted, not judged',
        );
        continue;
      }
      // The genuine retry's answer (the drive's next round): what the untampered state brought.
      const genuine = x.drive.rounds[r.round];
      for (const v of tamperings(r.state)) {
        const label = `${callLabel(x)} retry of round ${r.round} with the requestState ${v.how}`;
        const sent = await sendRetry(t.sessionOf(r.ex), r.ex, { inputResponses: r.inputResponses, requestState: v.value });
        if (!sent.exchange && !judgeable(t, sent.outcome, label)) continue;
        judged++;
        // The same outcome as the untampered state: tampering caused nothing, so integrity protection MAY be omitted.
        if (sameOutcome(sent.exchange, genuine)) {
          unchanged(t, label);
          continue;
        }
        t.expect(!accepted(sent.exchange), {
          expected:
            'a JSON-RPC error, a result with isError: true, a fresh input_required, or the outcome the untampered state brought (tampering that changes nothing may go unprotected)',
          actual: `${label}: ${sent.exchange ? `completed differently from the untampered retry (${genuine ? describeAnswer(genuine) : 'no answer'}), as if valid: ${describeAnswer(sent.exchange)}` : sent.outcome.detail}`,
          wire: [...(genuine?.frames ?? []), ...evidence(sent.exchange, sent.outcome)],
        });
      }
    }
    if (judged === 0)
      t.notObserved(
        'no tool that answered input_required sent a requestState that was then echoed (tools whose fixture says tamperingHarmless are not judged)',
      );
  },
});

/** Both answers are results with the same content (their `_meta` aside): the tampered state changed nothing. */
function sameOutcome(tampered: Exchange | undefined, genuine: Exchange | undefined): boolean {
  if (!tampered?.result || !genuine?.result || !accepted(tampered)) return false;
  const { _meta: _a, ...a } = tampered.result;
  const { _meta: _b, ...b } = genuine.result;
  return canonical(a) === canonical(b);
}

/** Records a tampered retry whose outcome equals the genuine one (never a finding). */
function unchanged(t: Probe, label: string): void {
  const list = (t.details['tampering changed nothing'] ?? []) as string[];
  list.push(`${label}: the same outcome as the untampered state (integrity protection MAY be omitted)`);
  t.note('tampering changed nothing', list);
}

/** Other valid arguments: one primitive value changed (the first that can be), confirmed valid. */
export function otherArguments(tool: JsonObject, args: JsonObject): JsonObject | undefined {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
  const props = isObject(schema.properties) ? schema.properties : {};
  const validate = checkJsonSchema(schema).validate;
  if (!validate) return undefined;
  for (const [key, value] of Object.entries(args)) {
    const p = isObject(props[key]) ? props[key] : {};
    const candidates: unknown[] = [];
    if (Array.isArray(p.enum)) candidates.push(...p.enum.filter((e) => JSON.stringify(e) !== JSON.stringify(value)));
    else if (typeof value === 'number') candidates.push(value + 1, value - 1);
    else if (typeof value === 'string') candidates.push(`${value}-other`, value.length > 1 ? value.slice(0, -1) : 'other');
    else if (typeof value === 'boolean') candidates.push(!value);
    for (const c of candidates) {
      const next = { ...args, [key]: c };
      if (validate(next)) return next;
    }
  }
  return undefined;
}

export const stateReplay = defineCheck({
  id: 'mrtr/state-replay',
  title: 'a requestState replayed on another tool or other arguments is rejected',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  quote:
    'To prevent replay, servers SHOULD include the following inside the integrity-protected requestState payload and verify each on receipt: … an identifier for the originating request, e.g. the method name and a digest of its salient parameters, rejecting state presented on a request that does not match.',
  async run(t) {
    const tools = (await mrtrTools(t)).filter((x) => {
      if (x.harmless) t.note(`${x.name}`, 'tampering documented as harmless: not replayed');
      return !x.harmless;
    });
    const stateful = tools
      .map((x) => ({ x, r: stateRound(x) }))
      .filter((s): s is { x: MrtrTool; r: AskRound & { state: string } } => !!s.r);
    let judged = 0;
    for (const [i, { x, r }] of stateful.entries()) {
      // (a) The state of one tool, presented on another tool's retry (with that tool's own answers).
      const other = stateful[(i + 1) % stateful.length];
      if (other && other.x !== x) {
        const label = `${callLabel(other.x)} retry of round ${other.r.round} carrying the requestState of ${callLabel(x)}`;
        const sent = await sendRetry(t.sessionOf(other.r.ex), other.r.ex, {
          inputResponses: other.r.inputResponses,
          requestState: r.state,
        });
        if (sent.exchange || judgeable(t, sent.outcome, label)) {
          judged++;
          t.expect(!accepted(sent.exchange), {
            expected: 'the state rejected (JSON-RPC error, isError, or a fresh input_required)',
            actual: `${label}: ${sent.exchange ? `completed: ${describeAnswer(sent.exchange)}` : sent.outcome.detail}`,
            wire: evidence(sent.exchange, sent.outcome),
          });
        }
      }
      // (b) The state, presented on the same tool with other valid arguments that need state of their own.
      // Arguments the suite makes up: only for a tool it may call that way (a fixture's tool may be one it may not).
      const args2 = whyNotCallable(t.ctx, x.tool) ? undefined : otherArguments(x.tool, x.call.arguments);
      if (!args2) continue;
      const fresh = await completeRequest(
        t.sessionOf(r.ex),
        'tools/call',
        { name: x.name, arguments: args2 },
        { answers: x.answers, maxRounds: 1 },
      );
      const freshRound = fresh.rounds[0];
      if (!isInputRequired(freshRound) || typeof freshRound?.result?.requestState !== 'string') continue;
      const label = `${callLabel(x)} with arguments ${show(args2)} carrying the requestState issued for ${show(x.call.arguments)}`;
      const sent = await sendRetry(t.sessionOf(r.ex), r.ex, {
        inputResponses: r.inputResponses,
        requestState: r.state,
        params: { arguments: args2 },
      });
      if (!sent.exchange && !judgeable(t, sent.outcome, label)) continue;
      judged++;
      t.expect(!accepted(sent.exchange), {
        expected: 'the state rejected (JSON-RPC error, isError, or a fresh input_required)',
        actual: `${label}: ${sent.exchange ? `completed: ${describeAnswer(sent.exchange)}` : sent.outcome.detail}`,
        wire: evidence(sent.exchange, sent.outcome),
      });
    }
    if (judged === 0) {
      t.notObserved(
        'no requestState could be replayed: needs two tools that use requestState, or a tool with requestState whose arguments can be varied',
      );
    }
  },
});

export const missingAnswers = defineCheck({
  id: 'mrtr/missing-answers',
  title: 'a retry missing requested answers is asked again, not failed',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Error Handling' },
  quote:
    'If the client fails to send all the information requested in a previous InputRequests, and the missing information is necessary for the server to process the request, the server SHOULD respond with a new InputRequiredResult requesting the missing information again, rather than returning an error.',
  async run(t) {
    const tools = await mrtrTools(t);
    let judged = 0;
    for (const x of tools) {
      const r = askingRound(x);
      if (!r) continue;
      const keys = Object.keys(r.inputResponses);
      const dropped = keys.at(-1)!;
      const partial = Object.fromEntries(Object.entries(r.inputResponses).filter(([k]) => k !== dropped));
      const label = `${callLabel(x)} retry of round ${r.round} without the answer to ${dropped}`;
      const sent = await sendRetry(t.sessionOf(r.ex), r.ex, { inputResponses: partial, ...echoState(r.state) });
      if (!sent.exchange && !judgeable(t, sent.outcome, label)) continue;
      judged++;
      const ex = sent.exchange;
      t.expect(!!ex?.result && ex.result.isError !== true, {
        expected: 'a new input_required asking again (or a result, when the answer was not needed)',
        actual: `${label}: ${ex ? describeAnswer(ex) : sent.outcome.detail}`,
        wire: evidence(ex, sent.outcome),
      });
      if (ex && isInputRequired(ex)) {
        const again = ex.result!.inputRequests;
        const wanted = (r.ex.result!.inputRequests as JsonObject)[dropped] as JsonObject;
        const asks = isObject(again) && Object.values(again).some((q) => isObject(q) && q.method === wanted?.method);
        t.expect(asks || ex.result!.requestState !== undefined, {
          expected: `the new input_required to ask for the missing ${show(wanted?.method)} again`,
          actual: `${label}: ${show(ex.result)}`,
          wire: ex,
        });
      }
    }
    if (judged === 0) t.notObserved('no tool asked for input through inputRequests');
  },
});

export const extraResponsesIgnored = defineCheck({
  id: 'mrtr/extra-responses-ignored',
  title: 'unrecognised extra keys in inputResponses are ignored',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Error Handling' },
  quote:
    'If additional, unexpected parameters are provided in the InputResponses object, the server SHOULD ignore any information it does not recognize or need.',
  async run(t) {
    const tools = await mrtrTools(t);
    let judged = 0;
    for (const x of tools) {
      const r = askingRound(x);
      if (!r) continue;
      let extraKey = 'mcp-conformance-unrequested';
      while (extraKey in r.inputResponses) extraKey += '-x';
      const label = `${callLabel(x)} retry of round ${r.round} with an extra inputResponses key ${show(extraKey)}`;
      const sent = await sendRetry(t.sessionOf(r.ex), r.ex, {
        inputResponses: { ...r.inputResponses, [extraKey]: { action: 'decline' } },
        ...echoState(r.state),
      });
      if (!sent.exchange) {
        if (judgeable(t, sent.outcome, label))
          t.expect(false, { expected: 'an answer', actual: `${label}: ${sent.outcome.detail}`, wire: sent.outcome.unanswered });
        continue;
      }
      // Drive on from there, as the client would: it must end as the normal drive did.
      const rest = await continueRequest(t.sessionOf(sent.exchange), sent.exchange, {
        answers: x.answers,
        maxRounds: t.ctx.settings.maxRounds,
      });
      if (!judgeable(t, rest, label)) continue;
      judged++;
      const normalError = !!x.drive.final?.error || x.drive.final?.result?.isError === true;
      const final = rest.final!;
      t.expect(normalError || (!final.error && final.result?.isError !== true), {
        expected: 'the extra key ignored: the exchange ends as it does without it',
        actual: `${label}: ${describeAnswer(final)} (without the extra key: ${x.drive.final ? describeAnswer(x.drive.final) : x.drive.status})`,
        wire: rest.rounds.slice(-2),
      });
    }
    if (judged === 0) t.notObserved('no tool asked for input through inputRequests');
  },
});

export const malformedResponses = defineCheck({
  id: 'mrtr/malformed-responses',
  title: 'malformed inputResponses get a JSON-RPC error',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Error Handling' },
  quote:
    'Servers SHOULD validate that the data provided by the client is a valid InputResponses object and that the information inside can be correctly parsed. Protocol errors (malformed JSON, invalid schema, internal server errors) SHOULD return a JSON-RPC error response with an appropriate error code and message.',
  async run(t) {
    const tools = await mrtrTools(t);
    let judged = 0;
    for (const x of tools) {
      const r = askingRound(x);
      if (!r) continue;
      const key = Object.keys(r.inputResponses)[0]!;
      const variants: Array<{ how: string; value: unknown }> = [
        { how: 'a string instead of an object', value: 'not-an-object' },
        { how: 'an array instead of an object', value: [r.inputResponses[key]] },
        { how: `a number as the answer to ${key}`, value: { ...r.inputResponses, [key]: 42 } },
        {
          how: `an answer to ${key} of no InputResponse shape`,
          value: { ...r.inputResponses, [key]: { action: 'maybe', role: 'nobody' } },
        },
      ];
      for (const v of variants) {
        const label = `${callLabel(x)} retry of round ${r.round} with inputResponses ${v.how}`;
        const sent = await sendRetry(t.sessionOf(r.ex), r.ex, { inputResponses: v.value, ...echoState(r.state) });
        if (!sent.exchange && !judgeable(t, sent.outcome, label)) continue;
        judged++;
        t.expect(!!sent.exchange?.error, {
          expected: 'a JSON-RPC error response',
          actual: `${label}: ${sent.exchange ? describeAnswer(sent.exchange) : sent.outcome.detail}`,
          wire: evidence(sent.exchange, sent.outcome),
        });
      }
    }
    if (judged === 0) t.notObserved('no tool asked for input through inputRequests');
  },
});

export const abandoned = defineCheck({
  id: 'mrtr/abandoned',
  title: 'a call whose input_required was never answered does not hold up a new call of the same tool',
  level: 'MUST',
  capability: 'tools',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Server Requirements (Basic Workflow)' },
  quote: 'Servers MUST NOT assume that clients will fulfill the inputRequests or retry the original request.',
  async run(t) {
    const tools = await mrtrTools(t);
    let judged = 0;
    for (const x of tools) {
      const params = { name: x.name, arguments: x.call.arguments };
      const opts = { answers: x.answers, maxRounds: 1 };
      // Asked for input, the client walks away: no answers, no retry.
      const left = await completeRequest(t.session, 'tools/call', params, opts);
      if (!isInputRequired(left.rounds[0])) continue;
      // The same call, new: it starts over, like the first call of the survey did.
      const again = await completeRequest(t.session, 'tools/call', params, opts);
      const ex = again.rounds[0];
      if (!ex && !judgeable(t, again, `${callLabel(x)} after an abandoned one`)) continue;
      judged++;
      t.expect(!!ex?.result && !ex.error && ex.result.isError !== true, {
        expected: `${callLabel(x)} answered as a new call (${describeAnswer(x.drive.rounds[0]!)}), though the previous call's input_required was left unanswered`,
        actual: ex ? describeAnswer(ex) : (again.detail ?? again.status),
        wire: [left.rounds[0]!, ...(ex ? [ex] : [])],
      });
    }
    if (judged === 0) t.notObserved('no tool asked for input again when called a second time');
  },
});

/** Methods that do not support input_required, with the params to call them with. */
const UNSUPPORTED_METHODS: Array<[string, JsonObject]> = [
  ['server/discover', {}],
  ['tools/list', {}],
  ['prompts/list', {}],
  ['resources/list', {}],
  ['resources/templates/list', {}],
];

export const placement = defineCheck({
  id: 'mrtr/placement',
  title: 'input_required only on tools/call, prompts/get and resources/read',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/patterns/mrtr', section: 'Supported Requests' },
  // The MAY sentence before it lists the three requests ("other" means any but those): a permission, so not quoted as this MUST's words.
  quote: 'Servers MUST NOT send InputRequiredResult responses on any other client requests.',
  async run(t) {
    const answered: string[] = [];
    for (const [method, params] of UNSUPPORTED_METHODS) {
      // Every input capability declared: a server inclined to ask would ask now.
      const ex = await t.request(method, params, { meta: { capabilities: { ...INPUT_CAPABILITIES } } });
      if (ex.result) answered.push(method);
      t.expect(!isInputRequired(ex), {
        expected: `no input_required on ${method}`,
        actual: `${method} answered ${describeAnswer(ex)}`,
        wire: ex,
      });
    }
    t.note('methods answered with a result', answered);
  },
});

// mrtr/no-caching-hints is gone: caching#Cacheable Results says input_required results "are not
// cacheable and carry no caching hints" without a keyword, and the schema allows ttlMs and cacheScope
// on them; no sentence backs a verdict.

// The survey's tools were listed and first called on the first connection; every retry carries
// state that connection issued: the mrtr checks run there, one at a time.
export const mrtrChecks = [
  inputOrState,
  inputRequestsValid,
  capabilityGating,
  retryId,
  stateIntegrity,
  stateReplay,
  missingAnswers,
  extraResponsesIgnored,
  malformedResponses,
  abandoned,
  placement,
];
for (const c of mrtrChecks) schedule(c, { primary: 'calls the tools the first connection listed and retries with its state' });

/**
 * The multi round-trip request driver (basic/patterns/mrtr): the one way the
 * suite acts as a client when a server answers `resultType: "input_required"`.
 *
 * It sends the request; while the answer is `input_required` it answers each
 * `inputRequests` entry (a form elicitation with a value generated from
 * `requestedSchema` and confirmed valid, or the caller's scripted
 * accept / decline / cancel; sampling with a well-formed CreateMessageResult;
 * roots with a ListRootsResult) and retries with a fresh id, the unchanged
 * params, `inputResponses` keyed exactly like the requests, and `requestState`
 * echoed byte for byte (omitted when the server sent none), up to a bound.
 * Every round's exchange is returned; nothing is judged here.
 *
 *   const outcome = await completeRequest(session, 'tools/call', { name, arguments: args },
 *     { answers: { profile: { action: 'decline' } }, capabilities: { elicitation: {} }, maxRounds: 8 });
 */
import { AbortedError, HarnessError } from './errors.js';
import { buildMeta, wireVersion } from './protocol.js';
import type { Exchange, RequestId, RequestOptions, Session } from './session.js';
import { validExample } from './values.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import type { ScriptedAnswer } from '../model/config.js';
import { isObject } from '../model/json.js';

/** The client capabilities the driver can honour: form elicitation, sampling, roots. */
export const INPUT_CAPABILITIES: Readonly<Record<string, JsonObject>> = Object.freeze({
  elicitation: { form: {} },
  sampling: {},
  roots: {},
});

/** The request kinds an `inputRequests` value may be, and the capability each needs. */
export const INPUT_REQUEST_KINDS: Readonly<Record<string, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
});

export const DEFAULT_MAX_ROUNDS = 8;

export interface DriveOptions {
  /** Scripted answers by `inputRequests` key; unscripted requests get the default answer. */
  answers?: Record<string, ScriptedAnswer>;
  /** Client capabilities declared on every round (default: `INPUT_CAPABILITIES`). */
  capabilities?: JsonObject;
  /** Most requests sent in one drive, the first included (default 8). */
  maxRounds?: number;
  /** Timeout, abort signal and headers for every round. */
  request?: Omit<RequestOptions, 'meta' | 'id'>;
}

/**
 * How a drive ended.
 * - complete: the last answer is a result that is not `input_required` (an absent resultType counts as complete).
 * - error: the last answer is a JSON-RPC error.
 * - unterminated: still `input_required` after `maxRounds` requests.
 * - stuck: an `input_required` the driver cannot act on (`stuck` says why).
 * - stale-id: a retry was answered with the id of an earlier round instead of its own.
 * - no-answer: a request got no response (timeout, connection closed, transport failure).
 */
export type DriveStatus = 'complete' | 'error' | 'unterminated' | 'stuck' | 'stale-id' | 'no-answer';

/**
 * Why a drive is stuck:
 * - empty: `input_required` with neither `inputRequests` nor `requestState` (retrying would repeat the first request);
 * - unanswerable: an `inputRequests` value the driver cannot answer (not one of the allowed kinds, or malformed);
 * - result-type: a `resultType` the client does not recognise;
 * - script: a scripted answer does not fit the request it is keyed to;
 * - undeclared: a request needing a capability the client did not declare (a client without it cannot answer);
 * - no-value: a valid form value could not be generated for a requestedSchema (script an answer instead).
 */
export type StuckReason = 'empty' | 'unanswerable' | 'result-type' | 'script' | 'undeclared' | 'no-value';

/** A request the server asked for that the declared capabilities did not allow. */
export interface UndeclaredRequest {
  /** 1-based round whose answer carried it. */
  round: number;
  key: string;
  method: string;
  /** The capability it needs, e.g. `elicitation`, `elicitation.url`, `sampling.tools`. */
  needs: string;
}

export interface DriveOutcome {
  method: string;
  status: DriveStatus;
  stuck?: StuckReason;
  /** Human-readable cause for anything but complete / error. */
  detail?: string;
  /** Every answered round, first request first. */
  rounds: Exchange[];
  /** The last answered round. */
  final?: Exchange;
  /** The capabilities declared on every round. */
  capabilities: JsonObject;
  /** A retry answered on an earlier round's id. */
  staleAnswer?: { retryId: RequestId; answeredId: RequestId; frames: WireFrame[] };
  /** Frames of a request that got no answer of its own (stale-id, no-answer). */
  unanswered: WireFrame[];
  /** Requests asked for beyond the declared capabilities (the drive stops there, stuck). */
  undeclared: UndeclaredRequest[];
}

/** The result asks for input (`resultType: "input_required"`). */
export function isInputRequired(ex: Exchange | undefined): boolean {
  return ex?.result?.resultType === 'input_required';
}

/** Send `method` with `params` and drive it through every `input_required` round. */
export async function completeRequest(
  session: Session,
  method: string,
  params: JsonObject,
  opts: DriveOptions = {},
): Promise<DriveOutcome> {
  const capabilities = opts.capabilities ?? { ...INPUT_CAPABILITIES };
  const base = withMeta(session, params, capabilities);
  const outcome = emptyOutcome(method, capabilities);
  const first = await send(session, method, base, {}, [], opts, outcome);
  if (!first) return outcome;
  return drive(session, base, first, opts, outcome);
}

/**
 * The legacy era's (2025-11-25) counterpart of a drive: one request as the
 * session sends it (no modern `_meta`, no retries: a legacy server asks for
 * input with requests of its own, which the session answers), its answer
 * reported as a drive of one round.
 */
export async function singleRequest(
  session: Session,
  method: string,
  params: JsonObject,
  opts: Pick<DriveOptions, 'request'> = {},
): Promise<DriveOutcome> {
  const outcome = emptyOutcome(method, session.declaredCapabilities ?? {});
  const ex = await send(session, method, params, {}, [], opts, outcome);
  return ex ? finish(outcome, ex.error ? 'error' : 'complete') : outcome;
}

/**
 * Drive on from an answer already received (`exchange` answered a request,
 * first or retry): retries use that request's params without its
 * `inputResponses` / `requestState`, and the capabilities it declared.
 */
export async function continueRequest(
  session: Session,
  exchange: Exchange,
  opts: Omit<DriveOptions, 'capabilities'> = {},
): Promise<DriveOutcome> {
  const base = baseParams(exchange);
  const outcome = emptyOutcome(exchange.method, declaredCapabilities(exchange));
  outcome.rounds.push(exchange);
  outcome.final = exchange;
  return drive(session, base, exchange, opts, outcome);
}

/**
 * Send one retry of the request `exchange` answered, with exactly these
 * additions (adversarial variants: a tampered `requestState`, malformed or
 * partial `inputResponses`). Fields set to `undefined` are left out.
 */
export async function sendRetry(
  session: Session,
  exchange: Exchange,
  add: { inputResponses?: unknown; requestState?: unknown; params?: JsonObject },
  opts: Pick<DriveOptions, 'request'> = {},
): Promise<{ exchange?: Exchange; outcome: DriveOutcome }> {
  const base = { ...baseParams(exchange), ...(add.params ?? {}) };
  const outcome = emptyOutcome(exchange.method, declaredCapabilities(exchange));
  const extra: JsonObject = {};
  if (add.inputResponses !== undefined) extra.inputResponses = add.inputResponses;
  if (add.requestState !== undefined) extra.requestState = add.requestState;
  const ex = await send(session, exchange.method, base, extra, [exchange.id], opts, outcome);
  return { exchange: ex, outcome };
}

/** The capabilities a request declared in its `_meta`. */
export function declaredCapabilities(ex: Exchange): JsonObject {
  const meta = ex.params?._meta;
  const caps = isObject(meta) ? meta['io.modelcontextprotocol/clientCapabilities'] : undefined;
  return isObject(caps) ? caps : {};
}

/** The capability an input request needs, e.g. `elicitation`, `elicitation.url`, `sampling.tools`, `roots`. */
export function capabilityNeeded(request: unknown): string | undefined {
  if (!isObject(request) || typeof request.method !== 'string') return undefined;
  const kind = INPUT_REQUEST_KINDS[request.method];
  if (!kind) return undefined;
  const params = isObject(request.params) ? request.params : {};
  if (kind === 'elicitation' && params.mode === 'url') return 'elicitation.url';
  if (kind === 'sampling' && (params.tools !== undefined || params.toolChoice !== undefined)) return 'sampling.tools';
  return kind;
}

/** Does `capabilities` allow what `needs` names? (An empty `elicitation` object means form mode.) */
export function capabilityDeclared(capabilities: JsonObject, needs: string): boolean {
  const [top, sub] = needs.split('.') as [string, string | undefined];
  const cap = capabilities[top];
  if (!isObject(cap)) return false;
  if (top === 'elicitation') {
    const mode = sub ?? 'form';
    return isObject(cap[mode]) || (mode === 'form' && Object.keys(cap).length === 0);
  }
  return sub === undefined || isObject(cap[sub]);
}

/**
 * Answers for every entry of an `inputRequests` map, keyed exactly like it:
 * the scripted answer for a key when there is one, else the default.
 */
export function answerInputRequests(
  inputRequests: unknown,
  answers: Record<string, ScriptedAnswer> = {},
): { ok: true; inputResponses: JsonObject } | { ok: false; stuck: StuckReason; problem: string } {
  if (!isObject(inputRequests))
    return { ok: false, stuck: 'unanswerable', problem: `inputRequests is not an object: ${JSON.stringify(inputRequests)}` };
  const out: JsonObject = {};
  for (const [key, request] of Object.entries(inputRequests)) {
    const one = answerOne(key, request, answers[key]);
    if (!one.ok) return one;
    out[key] = one.value;
  }
  return { ok: true, inputResponses: out };
}

/** The default sampling reply and root, for callers that want to recognise them. */
export const DEFAULT_SAMPLE_TEXT = 'A reply from the mcp-conformance client.';
export const DEFAULT_ROOT = { uri: 'file:///workspace/mcp-conformance', name: 'mcp-conformance workspace' };

function answerOne(
  key: string,
  request: unknown,
  scripted: ScriptedAnswer | undefined,
): { ok: true; value: JsonObject } | { ok: false; stuck: StuckReason; problem: string } {
  const bad = (problem: string) => ({ ok: false as const, stuck: 'unanswerable' as const, problem: `inputRequests.${key}: ${problem}` });
  const misfit = (problem: string) => ({
    ok: false as const,
    stuck: 'script' as const,
    problem: `the scripted answer for ${key} ${problem}`,
  });
  if (!isObject(request)) return bad('not a request object');
  const params = isObject(request.params) ? request.params : {};
  switch (request.method) {
    case 'elicitation/create': {
      if (scripted && !('action' in scripted)) return misfit('is not an elicitation answer (accept / decline / cancel)');
      if (scripted && scripted.action !== 'accept') return { ok: true, value: { action: scripted.action } };
      if (params.mode === 'url') return { ok: true, value: { action: 'accept' } };
      if (scripted?.action === 'accept' && scripted.content) return { ok: true, value: { action: 'accept', content: scripted.content } };
      if (!isObject(params.requestedSchema)) return bad('a form elicitation without a requestedSchema object');
      const example = validExample(params.requestedSchema, { optional: true });
      if (!example.ok) {
        return {
          ok: false,
          stuck: 'no-value',
          problem: `inputRequests.${key}: no valid form value could be generated for requestedSchema (${example.problem})`,
        };
      }
      return { ok: true, value: { action: 'accept', content: example.value as JsonObject } };
    }
    case 'sampling/createMessage': {
      if (scripted && !('text' in scripted)) return misfit('is not a sampling answer ({ text })');
      if (!Array.isArray(params.messages)) return bad('a sampling request without a messages array');
      return {
        ok: true,
        value: {
          role: 'assistant',
          content: { type: 'text', text: scripted?.text ?? DEFAULT_SAMPLE_TEXT },
          model: scripted?.model ?? 'mcp-conformance-model',
          stopReason: 'endTurn',
        },
      };
    }
    case 'roots/list': {
      if (scripted && !('roots' in scripted)) return misfit('is not a roots answer ({ roots })');
      return { ok: true, value: { roots: scripted?.roots ?? [{ ...DEFAULT_ROOT }] } };
    }
    default:
      return bad(`method ${JSON.stringify(request.method)} is not one of ${Object.keys(INPUT_REQUEST_KINDS).join(', ')}`);
  }
}

// ---- internals ----

function emptyOutcome(method: string, capabilities: JsonObject): DriveOutcome {
  return { method, status: 'complete', rounds: [], capabilities, unanswered: [], undeclared: [] };
}

function withMeta(session: Session, params: JsonObject, capabilities: JsonObject): JsonObject {
  const meta = buildMeta(wireVersion(session.revision), { capabilities })!;
  return { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), ...meta } };
}

/** The request's params as first sent: without the round's `inputResponses` / `requestState`. */
function baseParams(ex: Exchange): JsonObject {
  const { inputResponses: _r, requestState: _s, ...rest } = ex.params ?? {};
  return rest;
}

async function drive(
  session: Session,
  base: JsonObject,
  first: Exchange,
  opts: DriveOptions,
  outcome: DriveOutcome,
): Promise<DriveOutcome> {
  const maxRounds = opts.maxRounds ?? DEFAULT_MAX_ROUNDS;
  let current = first;
  for (;;) {
    if (current.error) return finish(outcome, 'error');
    const result = current.result ?? {};
    const type = result.resultType;
    if (type === undefined || type === 'complete') return finish(outcome, 'complete');
    if (type !== 'input_required') {
      return finish(outcome, 'stuck', `resultType ${JSON.stringify(type)} is not one the client recognises`, 'result-type');
    }
    const round = outcome.rounds.length;
    const requests = result.inputRequests;
    const state = result.requestState;
    if (requests === undefined && state === undefined) {
      return finish(
        outcome,
        'stuck',
        'input_required with neither inputRequests nor requestState: nothing to answer and no state to echo',
        'empty',
      );
    }
    const extra: JsonObject = {};
    if (requests !== undefined) {
      const answered = answerInputRequests(requests, opts.answers);
      if (!answered.ok) return finish(outcome, 'stuck', answered.problem, answered.stuck);
      for (const [key, request] of Object.entries(requests as JsonObject)) {
        const needs = capabilityNeeded(request);
        if (needs && !capabilityDeclared(outcome.capabilities, needs)) {
          outcome.undeclared.push({ round, key, method: String((request as JsonObject).method), needs });
        }
      }
      if (outcome.undeclared.length > 0) {
        const u = outcome.undeclared[0]!;
        return finish(
          outcome,
          'stuck',
          `inputRequests.${u.key} (${u.method}) needs ${u.needs}, which the client did not declare`,
          'undeclared',
        );
      }
      extra.inputResponses = answered.inputResponses;
    }
    // Echoed exactly as received, whatever it is; omitted when the server sent none.
    if (state !== undefined) extra.requestState = state;
    if (outcome.rounds.length >= maxRounds) {
      return finish(outcome, 'unterminated', `still input_required after ${maxRounds} rounds`);
    }
    const next = await send(
      session,
      outcome.method,
      base,
      extra,
      outcome.rounds.map((r) => r.id),
      opts,
      outcome,
    );
    if (!next) return outcome;
    current = next;
  }
}

function finish(outcome: DriveOutcome, status: DriveStatus, detail?: string, stuck?: StuckReason): DriveOutcome {
  outcome.status = status;
  if (detail) outcome.detail = detail;
  if (stuck) outcome.stuck = stuck;
  return outcome;
}

/**
 * One request with a fresh id. A response carrying the id of an earlier round
 * ends the wait at once (the retry will not be answered on its own id).
 * Returns the exchange, or undefined with the outcome's status set.
 */
async function send(
  session: Session,
  method: string,
  base: JsonObject,
  extra: JsonObject,
  earlierIds: RequestId[],
  opts: Pick<DriveOptions, 'request'>,
  outcome: DriveOutcome,
): Promise<Exchange | undefined> {
  const stop = new AbortController();
  const outer = opts.request?.signal;
  const onOuter = () => stop.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  outer?.addEventListener('abort', onOuter, { once: true });
  const id = session.nextId();
  const frames: WireFrame[] = [];
  let stale: { retryId: RequestId; answeredId: RequestId; frames: WireFrame[] } | undefined;
  const off = session.tap((frame) => {
    frames.push(frame);
    if (frame.dir !== 'in' || stale) return;
    const answered = responseId(frame.text);
    if (answered !== undefined && earlierIds.some((e) => e === answered)) {
      stale = { retryId: id, answeredId: answered, frames: [] };
      stop.abort(
        new Error(`the server answered request ${JSON.stringify(id)} with the id ${JSON.stringify(answered)} of an earlier round`),
      );
    }
  });
  try {
    const ex = await session.request(method, { ...base, ...extra }, { ...opts.request, id, meta: { none: true }, signal: stop.signal });
    outcome.rounds.push(ex);
    outcome.final = ex;
    return ex;
  } catch (err) {
    if (stale) {
      stale.frames = frames.filter((f) => f.dir === 'out' || responseId(f.text) !== undefined);
      outcome.staleAnswer = stale;
      outcome.unanswered = stale.frames;
      finish(
        outcome,
        'stale-id',
        `the retry (id ${JSON.stringify(id)}) was answered with the id ${JSON.stringify(stale.answeredId)} of an earlier round`,
      );
      return undefined;
    }
    // The run's or the caller's abort is not an answer: it ends the check, not the drive.
    if (err instanceof AbortedError) throw err;
    if (err instanceof HarnessError) {
      outcome.unanswered = frames;
      finish(outcome, 'no-answer', err.message);
      return undefined;
    }
    throw err;
  } finally {
    off();
    outer?.removeEventListener('abort', onOuter);
  }
}

/** The id of a JSON-RPC response frame, or undefined when the frame is no response. */
function responseId(text: string): RequestId | undefined {
  if (!text.includes('"id"')) return undefined;
  try {
    const msg = JSON.parse(text) as JsonObject;
    if ('method' in msg || !('result' in msg || 'error' in msg)) return undefined;
    return typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : undefined;
  } catch {
    return undefined;
  }
}

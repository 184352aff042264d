/**
 * The JSON-RPC session: the one layer through which every check reaches a
 * server. It assigns ids (integers and strings alternate over a run, as
 * basic/index "Requests" allows both), keeps many requests in flight, applies
 * the per-request timeout, routes notifications to whoever waits for them,
 * validates every inbound message against the protocol schema, redacts
 * secrets, and keeps a timestamped wire log of every frame.
 */
import { RefusedCallError, ToolLedger, toolCallsIn, type CallGuard } from './call-guard.js';
import { modernProfile, type Era, type EraProfile } from './era.js';
import { AbortedError, ConnectionClosedError, RequestTimeoutError, TransportError } from './errors.js';
import { HeaderMirror } from './header-mirror.js';
import type { MetaOptions } from './protocol.js';
import type { StopOutcome } from './process.js';
import type { Redactor } from './redact.js';
import type { ProtocolSchema } from './schema.js';
import { currentAbortScope } from './scope.js';
import { Subscription, subscriptionIdOf } from './subscription.js';
import { CancellationLog, type ServerCancellation } from './cancellations.js';
import { SubscriptionRouter } from './subscription-router.js';
import { waitedOut } from './waits.js';
import { TimeoutLedger, type WaitPlan } from './timeouts.js';
import { MAX_VIOLATIONS, ViolationLog } from './violation-log.js';
import { WireLog, type FrameOwner, type Tap } from './wire-log.js';
import type { HttpInfo, RawHttpResponse, SendInfo, Transport } from './transport.js';
import type { TransportKind, WireFrame } from '../model/wire.js';
import type { JsonObject } from '../model/json.js';

export type RequestId = string | number;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface RpcError {
  code: unknown;
  message: unknown;
  data?: unknown;
}

/** A request and everything the server answered to it. */
export interface Exchange {
  id: RequestId;
  method: string;
  /** The params as sent (with `_meta`). */
  params: JsonObject | undefined;
  /** The whole response message, when one arrived. */
  response?: JsonObject;
  result?: JsonObject;
  error?: RpcError;
  /** HTTP facts of the response (Streamable HTTP only). */
  http?: HttpInfo;
  /** The request frame, the response frame, and frames that came on the same HTTP stream. */
  frames: WireFrame[];
  /** The schema definition the response was validated against, and what failed. */
  schemaDef?: string;
  schemaErrors: string[];
  /** The response carried the request's id with a different JSON type (e.g. "1" for 1). */
  idTypeMismatch?: boolean;
  /** Set when the response could not be validated at all (e.g. nested too deeply): why. */
  schemaUnvalidated?: string;
  /** A request of another era (`RequestOptions.otherEra`): its answer was neither validated nor tallied. */
  otherEra?: boolean;
  durationMs: number;
}

/**
 * Something on the wire that broke a rule no single request owns, or that no
 * request can own. Kinds:
 * - not-json / not-jsonrpc / batch: a line, body or SSE event that is not one JSON-RPC message;
 * - oversized-message: longer than the maximum message size (dropped unread);
 * - not-utf8: a line, body or SSE stream whose bytes are not well-formed UTF-8 (still read, with replacement characters);
 * - unknown-id: a response with an id this connection never sent;
 * - duplicate-response: a second response to an answered request;
 * - stale-round-response: a second response on the id of a request answered with input_required
 *   (a retry answered on the earlier round's id: the multi round-trip rules judge it);
 * - late-response: a response to a request the suite had given up on (timeout, abort); not a fault;
 * - response-without-id: a response with no (or a null) id that no request can own;
 * - notification-response: on HTTP, a JSON-RPC response in the answer to a notification's POST;
 * - server-request: a JSON-RPC request from the server;
 * - schema-invalid: a notification that fails the protocol schema;
 * - unvalidated: a message too deeply nested to validate;
 * - response-without-result: an object with an id but neither method, result nor error;
 * - notification-with-id: a message whose method is a notification method of the schema, carrying an id
 *   (handled as the notification it is: validated without its id, routed, not answered);
 * - request-id-invalid / request-id-reused (legacy era): a server request whose id is not a string or
 *   integer, or repeats the id of an earlier server request on this connection;
 * - split-message (stdio): one message written over several lines (its lines are not also
 *   reported as not-json; the message is read whole).
 */
export type ViolationKind =
  | 'not-json'
  | 'not-jsonrpc'
  | 'batch'
  | 'oversized-message'
  | 'not-utf8'
  | 'unknown-id'
  | 'duplicate-response'
  | 'stale-round-response'
  | 'late-response'
  | 'response-without-id'
  | 'notification-response'
  | 'server-request'
  | 'schema-invalid'
  | 'unvalidated'
  | 'response-without-result'
  | 'notification-with-id'
  | 'request-id-invalid'
  | 'request-id-reused'
  | 'split-message';

export interface Violation {
  kind: ViolationKind;
  detail: string;
  /** The offending frame (its text cut to a short excerpt). */
  frame?: WireFrame;
}

export { MAX_VIOLATIONS };
export type { FrameOwner };

export interface RequestOptions {
  /** `_meta` variations for adversarial probes. */
  meta?: MetaOptions;
  /** How long to wait for the response; `Infinity` for a long-lived request (e.g. subscriptions/listen). */
  timeoutMs?: number;
  /** Aborting cancels the wait (and on HTTP closes the response stream). */
  signal?: AbortSignal;
  /** Force a particular id (the default is the next unique one). */
  id?: RequestId;
  /** Override the HTTP `MCP-Protocol-Version` header (default: the `_meta` version). */
  headerVersion?: string;
  /** Extra HTTP headers for this request. */
  headers?: Record<string, string>;
  /** HTTP: told the answer's status and headers as soon as they arrive, before its body. */
  onHeaders?: (http: HttpInfo) => void;
  /**
   * A request of another era (a legacy `initialize` sent to learn whether the
   * server speaks it): its answer is not validated against this era's schema
   * nor tallied for the result-type rules, which judge this era's messages.
   */
  otherEra?: boolean;
}

export interface SessionOptions {
  connection: number;
  revision: string;
  redactor: Redactor;
  schema: ProtocolSchema;
  requestTimeoutMs: number;
  /** Milliseconds since the run started, for frame timestamps. */
  clock: () => number;
  /** Largest frame text kept in the log (the message itself is still parsed whole). */
  maxLogTextBytes?: number;
  /** Most frames kept in the log. */
  maxLogFrames?: number;
  /** Most characters of frame text kept in the log, all frames together. */
  maxLogChars?: number;
  /** Aborted when the run is interrupted or passes its deadline. */
  runSignal?: AbortSignal;
  /** The era's rules for this connection (default: modern, from `revision` and `schema`). */
  profile?: EraProfile;
  /** The x-mcp-header mirror (shared by a target's connections; default: this connection's own). */
  headerMirror?: HeaderMirror;
  /** The record of silent tools and methods (shared by a target's connections; default: none). */
  timeouts?: TimeoutLedger;
  /** The tool-call gate (harness/call-guard.ts): every tools/call is put to it on its way out (default: none). */
  callGuard?: CallGuard;
  /** What the server listed as tools (shared by a target's connections; default: this connection's own). */
  toolLedger?: ToolLedger;
  /** Told the method of every request as it goes out (the target's record of calls that may change state). */
  onRequest?: (method: string) => void;
}

type Listener = (msg: JsonObject, frame: WireFrame) => void;

interface Pending {
  exchange: Exchange;
  started: number;
  resolve: (ex: Exchange) => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
  /** The abort scope of the work that sent it: owner of its frames. */
  owner: FrameOwner;
  cleanup: () => void;
  /** Stop waiting because the suite cancelled the request (HTTP: closes its stream). */
  cancel: () => void;
}

/** A request `send` has in flight: its pending entry, and how its wait ends (once). */
interface Flight {
  id: RequestId;
  method: string;
  params: JsonObject | undefined;
  exchange: Exchange;
  key: string;
  pending: Pending;
  /** Run `fn` if the request is still this flight's pending one, ending the wait. */
  settle: (fn: () => void) => void;
  reject: (err: Error) => void;
  /** Aborts the transport's exchange that carries the request (HTTP: its POST). */
  http: AbortController;
}

/** A request the suite cancelled, and whatever the server still sent for it. */
interface CancelledRequest {
  id: RequestId;
  method: string;
  /** Responses that arrived after the cancellation. */
  late: WireFrame[];
  /** stdio: the notifications/cancelled the suite sent. */
  frame?: WireFrame;
}

let idCounter = 0;

/** The connection each exchange was made on (its follow-ups, e.g. a retry carrying its state, belong there). */
const exchangeSessions = new WeakMap<Exchange, Session>();

/** The session an exchange was made on. */
export function sessionOf(ex: Exchange): Session | undefined {
  return exchangeSessions.get(ex);
}

/** What became of a request id this connection sent (the most recent ones are remembered). */
type IdState = 'pending' | 'answered' | 'asked' | 'abandoned';
const MAX_REMEMBERED_IDS = 20_000;
/** stdio: most lines, and characters, of one message split over lines that the session puts back together. */
const MAX_SPLIT_LINES = 10_000;
const MAX_SPLIT_CHARS = 4_000_000;

/** A stdio message being read over several lines: the lines so far and their frames. */
interface SplitMessage {
  lines: string[];
  frames: WireFrame[];
  chars: number;
}

export class Session {
  readonly kind: TransportKind;
  private readonly pending = new Map<string, Pending>();
  private readonly ids = new Map<string, IdState>();
  /** Who sent each remembered id (the owner of the frames answering it). */
  private readonly owners = new Map<string, FrameOwner>();
  private readonly listeners = new Set<Listener>();
  private readonly wire: WireLog;
  private readonly violationLog: ViolationLog;
  private readonly router: SubscriptionRouter;
  private readonly headerMirror: HeaderMirror;
  private readonly toolLedger: ToolLedger;
  /** Messages received on this connection, by kind. */
  readonly received = { responses: 0, notifications: 0, other: 0 };
  /** Problems of the suite itself while handling this connection's input (reported as harness errors). */
  readonly internalErrors: string[] = [];
  /** Every `resultType` seen in a result, per method: how often, and the first frame that carried it. */
  readonly resultTypes = new Map<string, { resultType: unknown; method: string; count: number; frame: WireFrame }>();
  private closedReason: string | undefined;
  private profile: EraProfile;
  private readonly closeWaiters = new Set<(reason: string) => void>();
  private readonly cancelledRequests = new Map<string, CancelledRequest>();
  /** Legacy era: the client capabilities this connection's `initialize` declared (set by the handshake). */
  declaredCapabilities?: JsonObject;
  /** Every request and notification method the server sent on this connection: how often, and its first frame. */
  readonly inboundMethods = new Map<string, { count: number; frame: WireFrame }>();
  /** Legacy era, HTTP: how the server answered each standalone GET. */
  readonly getStreams: HttpInfo[] = [];
  /** Legacy era: the ids of the requests the server sent on this connection, per MCP session (bounded). */
  private readonly serverRequestIds = new Map<string, { text: string; stream: string }>();
  /** stdio: the unparsed lines that may be one message split over lines. */
  private split: SplitMessage | undefined;
  private readonly cancellationLog = new CancellationLog();

  constructor(
    readonly transport: Transport,
    private readonly opts: SessionOptions,
  ) {
    this.kind = transport.kind;
    this.profile = opts.profile ?? modernProfile(opts.revision, opts.schema);
    this.wire = new WireLog({
      connection: opts.connection,
      redactor: opts.redactor,
      clock: opts.clock,
      maxTextBytes: opts.maxLogTextBytes,
      maxFrames: opts.maxLogFrames,
      maxChars: opts.maxLogChars,
    });
    this.violationLog = new ViolationLog(opts.redactor);
    this.router = new SubscriptionRouter(transport.kind);
    this.headerMirror = opts.headerMirror ?? new HeaderMirror();
    this.toolLedger = opts.toolLedger ?? new ToolLedger();
  }

  /**
   * Why the run's gate would refuse a tools/call with these params, or
   * undefined when it would send it (always, without a gate). Paths ask
   * before they build a call; the session asks again as the call goes out.
   */
  callRefusal(params: JsonObject | undefined): string | undefined {
    const guard = this.opts.callGuard;
    if (!guard) return undefined;
    if (params === undefined) return 'a body that mentions tools/call but is not JSON';
    const name = typeof params.name === 'string' ? params.name : undefined;
    const listed = name === undefined ? undefined : this.toolLedger.lookup(name);
    return guard({ name, ...(listed ? { listed } : {}), listComplete: this.toolLedger.complete });
  }

  /** Refuse every tools/call in `message` the gate refuses: a harness error, and nothing is sent. */
  private guardCalls(message: unknown): RefusedCallError | undefined {
    if (!this.opts.callGuard) return undefined;
    for (const params of toolCallsIn(message)) {
      const why = this.callRefusal(params);
      if (why === undefined) continue;
      const err = new RefusedCallError(typeof params?.name === 'string' ? params.name : undefined, why);
      if (this.internalErrors.length < 20) this.internalErrors.push(err.message);
      return err;
    }
    return undefined;
  }

  /** The first violations of this connection (at most MAX_VIOLATIONS of each kind). */
  get violations(): Violation[] {
    return this.violationLog.violations;
  }

  /** How many violations of each kind this connection saw, kept or not. */
  get violationCounts(): Partial<Record<ViolationKind, number>> {
    return this.violationLog.counts;
  }

  /** Exchanges whose response failed schema validation (for the wire-wide check; at most MAX_VIOLATIONS). */
  get invalidExchanges(): Exchange[] {
    return this.violationLog.invalidExchanges;
  }

  /** The protocol era this connection speaks. */
  get era(): Era {
    return this.profile.era;
  }

  /** The protocol version in use (legacy: the negotiated one, once known). */
  get protocolVersion(): string {
    return this.profile.version;
  }

  /** Legacy era, HTTP: the `Mcp-Session-Id` the server assigned (undefined: none). */
  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** Streamable HTTP: the MCP endpoint's URL (undefined on stdio). */
  get endpoint(): string | undefined {
    return this.transport.endpoint;
  }

  /** Switch the era rules of this connection (the legacy handshake does, once a version is negotiated). */
  useProfile(profile: EraProfile): void {
    this.profile = profile;
  }

  get connection(): number {
    return this.opts.connection;
  }

  get closed(): string | undefined {
    return this.closedReason;
  }

  get revision(): string {
    return this.opts.revision;
  }

  get requestTimeoutMs(): number {
    return this.opts.requestTimeoutMs;
  }

  /** stdio: how the server process ended when this connection was closed (after `close()`). */
  get shutdown(): StopOutcome | undefined {
    return this.transport.shutdown;
  }

  async start(): Promise<void> {
    await this.transport.start({
      message: (text, http) => this.onInbound(text, http),
      violation: (kind, detail, excerpt) => {
        const frame =
          excerpt === undefined
            ? undefined
            : { ...this.record('in', this.opts.redactor.redact(excerpt, { clipped: 'end' })), truncated: true };
        this.violate(kind as ViolationKind, detail, frame);
      },
      closed: (reason) => this.onClosed(reason),
    });
  }

  /** The next unique id: integers and strings alternate. */
  nextId(): RequestId {
    idCounter++;
    return idCounter % 2 === 1 ? idCounter : `mcpc-${idCounter}`;
  }

  /** The next unique id of the given JSON type. */
  nextIdOf(type: 'number' | 'string'): RequestId {
    let id = this.nextId();
    while (typeof id !== type) id = this.nextId();
    return id;
  }

  /**
   * Send a request and wait for its response. Resolves with the exchange for a
   * result or a JSON-RPC error alike; rejects when no response can come (timeout,
   * connection closed, HTTP answer without JSON-RPC, abort).
   */
  request(method: string, params: JsonObject = {}, opts: RequestOptions = {}): Promise<Exchange> {
    const meta = this.profile.meta(opts.meta);
    const fullParams: JsonObject = { ...params };
    if (meta) fullParams._meta = { ...(params._meta as JsonObject | undefined), ...meta };
    const id = opts.id ?? this.nextId();
    const message = { jsonrpc: '2.0', id, method, params: fullParams };
    return this.send(message, opts);
  }

  /**
   * Open a subscription: send `subscriptions/listen` with `params` (which
   * carry the `notifications` filter) and return its handle at once. The
   * request has no timeout; it ends with the server's response, the handle's
   * `cancel()`, or the connection closing.
   */
  listen(params: JsonObject, opts: RequestOptions = {}): Subscription {
    const id = opts.id ?? this.nextId();
    let requestFrame: WireFrame | undefined;
    const meta = this.profile.meta(opts.meta);
    const fullParams: JsonObject = { ...params };
    if (meta) fullParams._meta = { ...(params._meta as JsonObject | undefined), ...meta };
    let answered: (http: HttpInfo) => void = () => {};
    const exchange = this.send(
      { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: fullParams },
      { ...opts, timeoutMs: Infinity, onHeaders: (http) => answered(http) },
      (frame) => (requestFrame = frame),
    );
    const filter = (params.notifications ?? {}) as JsonObject;
    const sub = new Subscription(id, filter, exchange, async (rid) => {
      await this.cancel(rid);
      return this.cancelledRequests.get(idKey(rid))?.frame;
    });
    sub.requestFrame = requestFrame;
    answered = (http) => sub.answered(http);
    this.router.add(sub);
    return sub;
  }

  /** Every notifications/cancelled the server sent on this connection (the first 200), with what its requestId named on arrival. */
  get serverCancellations(): readonly ServerCancellation[] {
    return this.cancellationLog.cancellations;
  }

  /** Every subscription opened on this connection (the latest 1000), for the run-wide observers. */
  openedSubscriptions(): readonly Subscription[] {
    return this.router.all();
  }

  /**
   * Cancel an in-flight request the way the transport says: on stdio send
   * `notifications/cancelled` naming it, on HTTP close its response stream.
   * The request's promise rejects with AbortedError; anything the server still
   * sends for it is kept (see `lateResponses`) instead of being a stray message.
   * Returns false when the request was no longer in flight.
   */
  async cancel(id: RequestId, reason = 'cancelled by the conformance suite'): Promise<boolean> {
    const key = idKey(id);
    const pending = this.pending.get(key);
    if (!pending) return false;
    const record: CancelledRequest = { id, method: pending.exchange.method, late: [] };
    this.cancelledRequests.set(key, record);
    if (this.kind === 'stdio' && !this.closedReason) {
      record.frame = await this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => undefined);
    }
    pending.cancel();
    return true;
  }

  /** Responses the server sent for a request after the suite cancelled it. */
  lateResponses(id: RequestId): WireFrame[] {
    return [...(this.cancelledRequests.get(idKey(id))?.late ?? [])];
  }

  /** stdio: close the server's stdin (its shutdown signal) and keep reading what it still writes. */
  endInput(): void {
    this.transport.endInput?.();
  }

  /** Resolves with the reason once the connection has closed, or undefined when the deadline passes first. */
  waitClosed(timeoutMs: number): Promise<string | undefined> {
    if (this.closedReason) return Promise.resolve(this.closedReason);
    return new Promise((resolve) => {
      const done = (reason: string | undefined) => {
        clearTimeout(timer);
        this.closeWaiters.delete(done);
        resolve(reason);
      };
      // Resolved on close, so the deadline is the only thing this timer ever does.
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.closeWaiters.add(done);
    });
  }

  /** Send any request-shaped object as is (no `_meta` added): for malformed-request probes. */
  requestRaw(message: JsonObject & { id: RequestId; method: string }, opts: RequestOptions = {}): Promise<Exchange> {
    return this.send(message, opts);
  }

  /** Send a notification (no id, no response); resolves with its frame once the transport took it. */
  async notify(method: string, params: JsonObject = {}, opts: { meta?: MetaOptions } = {}): Promise<WireFrame> {
    const meta = this.profile.meta(opts.meta);
    const message = { jsonrpc: '2.0', method, params: meta ? { ...params, _meta: meta } : params };
    const refused = this.guardCalls(message);
    if (refused) throw refused;
    const text = JSON.stringify(message);
    const frame = this.record('out', text, undefined, currentAbortScope());
    const version = meta ? this.profile.version : this.profile.headerVersion;
    await this.transport.send(text, { method, protocolVersion: version, era: this.profile.era });
    return frame;
  }

  /**
   * Legacy era, HTTP: open the standalone GET stream on which the server sends
   * requests and notifications unrelated to a call. Resolves with its HTTP
   * status once the answer's headers arrived (405: the server offers none);
   * undefined on stdio, where everything arrives on stdout.
   */
  async openGetStream(): Promise<number | undefined> {
    if (!this.transport.listen || this.closedReason) return undefined;
    const outcome = await this.transport.listen({ protocolVersion: this.profile.headerVersion, era: this.profile.era });
    if (outcome.http && this.getStreams.length < MAX_VIOLATIONS) this.getStreams.push(outcome.http);
    return outcome.http?.status;
  }

  /**
   * Legacy era, HTTP: end the session with an HTTP DELETE now (later requests
   * still carry its id). Resolves with the answer's status; undefined on
   * stdio, without a session id, or when no answer came.
   */
  async terminate(): Promise<number | undefined> {
    if (!this.transport.terminate || this.closedReason) return undefined;
    const outcome = await this.transport.terminate({ protocolVersion: this.profile.headerVersion, era: this.profile.era });
    return outcome.http?.status;
  }

  /**
   * Build a request as `request` would send it (the next id, the era's
   * `_meta`), without sending it: for `rawHttp`.
   */
  message(
    method: string,
    params: JsonObject = {},
    opts: Pick<RequestOptions, 'meta' | 'id'> = {},
  ): JsonObject & { id: RequestId; method: string } {
    const meta = this.profile.meta(opts.meta);
    const fullParams: JsonObject = { ...params };
    if (meta) fullParams._meta = { ...(params._meta as JsonObject | undefined), ...meta };
    return { jsonrpc: '2.0', id: opts.id ?? this.nextId(), method, params: fullParams };
  }

  /**
   * Streamable HTTP only: one HTTP exchange outside the JSON-RPC bookkeeping,
   * for the transport rules a correct client never breaks. `message` (a
   * request or notification) is POSTed with the headers `request` would
   * send, then `omit` and `headers` applied; without it, `method` (e.g. GET)
   * goes with the user's headers only. Nothing of the answer reaches the
   * session's routing or violation log; its frames (the message sent, each
   * message received, or a line describing a body without one) are recorded
   * in the wire log and returned as evidence.
   */
  async rawHttp(req: {
    message?: JsonObject;
    method?: string;
    /** Another URL on the endpoint's origin (default: the endpoint). */
    url?: string;
    body?: string;
    headers?: Record<string, string>;
    omit?: string[];
    timeoutMs?: number;
    headersOnly?: boolean;
    /** Told the answer's status and headers as soon as they arrive (with `message` only). */
    onHeaders?: (http: HttpInfo) => void;
  }): Promise<RawHttpResponse & { frames: WireFrame[] }> {
    if (!this.transport.raw) throw new TransportError('rawHttp: this connection is not Streamable HTTP');
    if (this.closedReason) throw new ConnectionClosedError((req.message?.method as string) ?? req.method ?? 'POST', this.closedReason);
    const text = req.message ? JSON.stringify(req.message) : req.body;
    const refused = text === undefined ? undefined : this.guardCalls(req.message ?? text);
    if (refused) throw refused;
    const httpMethod = req.method ?? 'POST';
    const to = req.url === undefined ? '' : ` to ${req.url}`;
    const frames = [this.record('out', text ?? `(HTTP ${httpMethod}${to} without a body)`)];
    let info: SendInfo | undefined;
    if (req.message) {
      const method = typeof req.message.method === 'string' ? req.message.method : undefined;
      const params = req.message.params as JsonObject | undefined;
      const id = req.message.id as RequestId | undefined;
      const metaVersion = (params?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/protocolVersion'];
      info = {
        ...(id !== undefined ? { id } : {}),
        method,
        name: method ? mirroredName(method, params) : undefined,
        protocolVersion: typeof metaVersion === 'string' ? metaVersion : this.profile.headerVersion,
        headers: method ? this.headerMirror.headersFor(method, params) : {},
        era: this.profile.era,
        ...(req.onHeaders ? { onHeaders: req.onHeaders } : {}),
      };
    }
    // A request to a tool or method already known to be silent is not waited for again (harness/timeouts.ts).
    const rpcMethod = typeof req.message?.method === 'string' && req.message.id !== undefined ? req.message.method : undefined;
    const rpcParams = req.message?.params as JsonObject | undefined;
    const requested = req.timeoutMs ?? this.opts.requestTimeoutMs;
    const plan: WaitPlan =
      rpcMethod && this.opts.timeouts ? this.opts.timeouts.plan(rpcMethod, rpcParams, requested) : { timeoutMs: requested };
    if (plan.known) throw TimeoutLedger.known(rpcMethod!, rpcParams, plan.known);
    let answer: RawHttpResponse;
    try {
      answer = await this.transport.raw({
        method: httpMethod,
        ...(req.url !== undefined ? { url: req.url } : {}),
        body: text,
        info,
        headers: req.headers,
        omit: req.omit,
        timeoutMs: plan.timeoutMs,
        headersOnly: req.headersOnly,
      });
    } catch (err) {
      if (rpcMethod && err instanceof TransportError && /^no HTTP answer/.test(err.message)) {
        this.opts.timeouts?.timedOut(rpcMethod, rpcParams, plan, this.opts.connection, req.message!.id as RequestId);
      }
      throw err;
    }
    const http: HttpInfo = { status: answer.status, contentType: answer.headers['content-type'], stream: answer.sse };
    for (const m of answer.messages) frames.push(this.record('in', m, http));
    if (answer.messages.length === 0) {
      const what = req.headersOnly ? 'body not read' : answer.body === '' ? 'empty body' : `body: ${truncate(answer.body, 200)}`;
      frames.push(this.record('in', `(HTTP ${answer.status}, ${what})`, http));
    }
    return { ...answer, frames };
  }

  /** The exchange a request starts, remembered as this connection's. */
  private newExchange(message: JsonObject & { id: RequestId; method: string }, opts: RequestOptions): Exchange {
    const params = message.params as JsonObject | undefined;
    const exchange: Exchange = {
      id: message.id,
      method: message.method,
      params,
      frames: [],
      schemaErrors: [],
      durationMs: 0,
      ...(opts.otherEra ? { otherEra: true } : {}),
    };
    exchangeSessions.set(exchange, this);
    return exchange;
  }

  private send(
    message: JsonObject & { id: RequestId; method: string },
    opts: RequestOptions,
    onSent?: (frame: WireFrame) => void,
  ): Promise<Exchange> {
    const { id, method } = message;
    const params = message.params as JsonObject | undefined;
    const key = idKey(id);
    // The tool-call gate: a refused tools/call never goes out.
    const refused = method === 'tools/call' ? this.guardCalls(message) : undefined;
    if (refused) return Promise.reject(refused);
    const exchange = this.newExchange(message, opts);
    if (this.closedReason) return Promise.reject(new ConnectionClosedError(method, this.closedReason));
    if (this.pending.has(key)) return Promise.reject(new Error(`internal: id ${String(id)} is already in flight`));
    const requested = opts.timeoutMs ?? this.opts.requestTimeoutMs;
    const plan: WaitPlan =
      this.opts.timeouts && Number.isFinite(requested) ? this.opts.timeouts.plan(method, params, requested) : { timeoutMs: requested };
    if (plan.known) {
      // Already found silent: fail at once, naming the timeout that decided it.
      return Promise.reject(TimeoutLedger.known(method, params, plan.known));
    }
    return new Promise<Exchange>((resolve, reject) => {
      const http = new AbortController();
      const scope = currentAbortScope();
      // Only a request that went out can be cancelled.
      let sent = false;
      const onAbort = () => {
        http.abort();
        settle(() => {
          const err = new AbortedError(`${method} was abandoned: ${abortReason(opts.signal, scope, this.opts.runSignal)}`);
          err.frames = exchange.frames;
          reject(err);
          if (sent) this.notifyAbandoned(id, 'abandoned by the client');
        });
      };
      const signals = [opts.signal, scope, this.opts.runSignal].filter((s): s is AbortSignal => !!s);
      const pending: Pending = {
        exchange,
        started: Date.now(),
        resolve,
        reject,
        owner: scope,
        cleanup: () => {
          clearTimeout(pending.timer);
          for (const s of signals) s.removeEventListener('abort', onAbort);
          this.pending.delete(key);
        },
        cancel: () => {
          http.abort();
          settle(() => reject(new AbortedError(`${method} was cancelled by the suite`)));
        },
      };
      const settle = (fn: () => void) => {
        if (!this.pending.has(key) || this.pending.get(key) !== pending) return;
        exchange.durationMs = Date.now() - pending.started;
        pending.cleanup();
        this.remember(key, 'abandoned');
        fn();
      };
      const flight: Flight = { id, method, params, exchange, key, pending, settle, reject, http };
      this.armTimeout(flight, plan);
      this.pending.set(key, pending);
      this.remember(key, 'pending', scope);
      for (const s of signals) {
        if (s.aborted) return onAbort();
        s.addEventListener('abort', onAbort, { once: true });
      }

      const text = JSON.stringify(message);
      const out = this.record('out', text, undefined, scope);
      this.opts.onRequest?.(method);
      exchange.frames.push(out);
      sent = true;
      onSent?.(out);
      this.transmit(text, opts, flight);
    });
  }

  /** Fail the request in flight when its wait plan's timeout passes without an answer (an infinite one never does). */
  private armTimeout(f: Flight, plan: WaitPlan): void {
    const { id, method, params, exchange } = f;
    const timeoutMs = plan.timeoutMs;
    if (Number.isFinite(timeoutMs)) {
      f.pending.timer = setTimeout(() => {
        waitedOut(`the answer to ${method}`, timeoutMs);
        f.http.abort();
        f.settle(() => {
          const err = new RequestTimeoutError(method, timeoutMs);
          if (plan.probe) {
            err.message += ` (a short probe: an earlier request to ${TimeoutLedger.subject(method, params)} on connection ${plan.probe.connection} got no answer within ${plan.probe.timeoutMs / 1000} s)`;
          }
          this.opts.timeouts?.timedOut(method, params, plan, this.opts.connection, id);
          err.frames = exchange.frames;
          f.reject(err);
          this.notifyAbandoned(id, `no answer within ${timeoutMs} ms`);
        });
      }, timeoutMs);
    }
  }

  /** Hand the recorded request to the transport, with the headers it carries; a transport failure fails the request. */
  private transmit(text: string, opts: RequestOptions, f: Flight): void {
    const { id, method, params, exchange, key, pending, settle, reject } = f;
    const metaVersion = (params?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/protocolVersion'];
    const mirrored = this.kind === 'http' && this.profile.era === 'modern' ? this.headerMirror.headersFor(method, params) : {};
    const headers = { ...mirrored, ...opts.headers };
    this.transport
      .send(text, {
        id,
        method,
        name: mirroredName(method, params),
        protocolVersion: opts.headerVersion ?? (typeof metaVersion === 'string' ? metaVersion : this.profile.headerVersion),
        headers,
        signal: f.http.signal,
        era: this.profile.era,
        ...(opts.onHeaders ? { onHeaders: opts.onHeaders } : {}),
      })
      .then((outcome) => {
        // On HTTP the POST is over: a request still waiting got no JSON-RPC response.
        if (outcome.http && this.pending.get(key) === pending) {
          const snippet = outcome.bodySnippet ? `: ${this.opts.redactor.redact(outcome.bodySnippet, { clipped: 'end' })}` : '';
          const why = outcome.oversized ? ` (its body exceeded the maximum message size and was dropped)` : snippet;
          settle(() => {
            const err = new TransportError(
              `HTTP ${outcome.http!.status} answer to ${method} carried no JSON-RPC response${why}`,
              outcome.http!.status,
            );
            err.frames = exchange.frames;
            reject(err);
          });
        }
      })
      .catch((err: Error) => settle(() => reject(err instanceof TransportError ? err : new TransportError(err.message))));
  }

  /** Register a listener for every inbound notification (and stray message); returns the unsubscribe. */
  onMessage(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Register a listener for every violation as it is recorded (kept or not); returns the unsubscribe. */
  onViolation(listener: (v: Violation) => void): () => void {
    return this.violationLog.onViolation(listener);
  }

  /** Methods of the requests still waiting for an answer. */
  pendingMethods(): string[] {
    return [...this.pending.values()].map((p) => p.exchange.method);
  }

  /**
   * Observe every frame in both directions while a check runs; returns the
   * unsubscribe. The tap also learns each frame's owner: the abort scope of
   * the work whose request it is (or answers), undefined when no one's.
   */
  tap(fn: Tap): () => void {
    return this.wire.tap(fn);
  }

  /**
   * Wait for the first inbound notification matching `predicate`, with a
   * deadline. Resolves with undefined when the deadline passes first.
   */
  waitForMessage(
    predicate: (msg: JsonObject) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ msg: JsonObject; frame: WireFrame } | undefined> {
    const signals = [signal, currentAbortScope(), this.opts.runSignal].filter((s): s is AbortSignal => !!s);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: { msg: JsonObject; frame: WireFrame } | undefined) => {
        clearTimeout(timer);
        this.closeWaiters.delete(offClosed);
        off();
        for (const s of signals) s.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => done(undefined);
      const off = this.onMessage((msg, frame) => {
        if (predicate(msg)) done({ msg, frame });
      });
      // Nothing more can arrive once the connection has closed.
      const offClosed = () => done(undefined);
      this.closeWaiters.add(offClosed);
      if (this.closedReason) return done(undefined);
      timer = setTimeout(() => {
        waitedOut('a message', timeoutMs);
        done(undefined);
      }, timeoutMs);
      for (const s of signals) {
        if (s.aborted) return done(undefined);
        s.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /** The wire log (bounded: the most recent frames). */
  frames(): WireFrame[] {
    return this.wire.frames();
  }

  async close(): Promise<void> {
    this.onClosed('closed by the suite');
    await this.transport.close();
  }

  // ---- inbound ----

  private onInbound(rawText: string, http?: HttpInfo): void {
    // Whatever a server sends, handling it must never throw into the stream that delivered it.
    try {
      this.handleInbound(rawText, http);
    } catch (err) {
      if (this.internalErrors.length < 20) {
        this.internalErrors.push(`handling a message from the server failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private handleInbound(rawText: string, http?: HttpInfo): void {
    let msg: unknown;
    let parsed = true;
    try {
      msg = JSON.parse(rawText);
    } catch {
      parsed = false;
    }
    let frame = this.record('in', rawText, http, this.ownerOfInbound(parsed ? msg : undefined, http));
    if (this.kind === 'stdio') {
      const whole = this.joinSplit(rawText, parsed, msg, frame);
      if (whole) {
        ({ msg, frame } = whole);
        parsed = true;
      }
    }
    if (!parsed) {
      this.received.other++;
      this.violate(
        'not-json',
        `the server sent a ${this.kind === 'stdio' ? 'line' : 'message'} that is not JSON: ${truncate(frame.text, 200)}`,
        frame,
      );
      return;
    }
    if (Array.isArray(msg)) {
      this.received.other++;
      this.violate('batch', 'the server sent a JSON array (JSON-RPC batch); MCP messages are single objects', frame);
      return;
    }
    if (typeof msg !== 'object' || msg === null || (msg as JsonObject).jsonrpc !== '2.0') {
      this.received.other++;
      this.violate('not-jsonrpc', `the server sent JSON that is not a JSON-RPC 2.0 message: ${truncate(frame.text, 200)}`, frame);
      return;
    }
    this.handleMessage(msg as JsonObject, frame, http);
  }

  /** One JSON-RPC 2.0 object from the server: a response, a request, a notification, or none of them. */
  private handleMessage(obj: JsonObject, frame: WireFrame, http?: HttpInfo): void {
    const isResponse = !('method' in obj) && ('result' in obj || 'error' in obj);
    if (isResponse) {
      this.received.responses++;
      return this.onResponse(obj, frame, http);
    }
    if ('method' in obj) {
      const key = String(obj.method).slice(0, 200);
      const seen = this.inboundMethods.get(key);
      if (seen) seen.count++;
      else if (this.inboundMethods.size < 200) this.inboundMethods.set(key, { count: 1, frame });
    }
    if ('method' in obj && 'id' in obj && this.profile.schema.isNotificationMethod(obj.method)) {
      this.violate(
        'notification-with-id',
        `the server sent the notification ${truncate(String(obj.method), 100)} with an id (${truncate(JSON.stringify(obj.id) ?? 'undefined', 50)})`,
        frame,
      );
      // The notification it is: judged and routed without its id (and not answered).
      const note = { ...obj };
      delete note.id;
      this.onNotification(note, frame);
      for (const l of [...this.listeners]) l(note, frame);
      return;
    }
    if ('method' in obj && 'id' in obj) {
      this.received.other++;
      this.cancellationLog.serverRequest(obj, frame);
      if (this.profile.answer) {
        this.answerServerRequest(obj, frame);
      } else {
        this.violate(
          'server-request',
          `the server sent a JSON-RPC request (${truncate(String(obj.method), 100)}, id ${truncate(JSON.stringify(obj.id) ?? 'undefined', 50)}); servers MUST NOT send requests in this revision`,
          frame,
        );
      }
    } else if ('method' in obj) {
      this.onNotification(obj, frame);
    } else if ('id' in obj) {
      this.received.other++;
      this.violate(
        'response-without-result',
        `the server sent a response (id ${truncate(JSON.stringify(obj.id) ?? 'undefined', 50)}) with neither a result nor an error`,
        frame,
      );
      return;
    } else {
      this.received.other++;
      this.violate('not-jsonrpc', `the server sent a JSON-RPC object that is neither request, response nor notification`, frame);
      return;
    }
    for (const l of [...this.listeners]) l(obj, frame);
  }

  /** A server message's schema verdict, recorded: unvalidated (too deep) or invalid against its definition. */
  private judgeSchema(obj: JsonObject, checked: { def: string; errors: string[]; unvalidated?: string }, frame: WireFrame): void {
    if (checked.unvalidated)
      this.violate('unvalidated', `${truncate(String(obj.method), 100)} could not be validated: ${checked.unvalidated}`, frame);
    else if (checked.errors.length) {
      this.violate(
        'schema-invalid',
        `${truncate(String(obj.method), 100)} is not a valid ${checked.def}: ${checked.errors.join('; ')}`,
        frame,
      );
    }
  }

  /** A notification from the server: validated against the schema, then routed. */
  private onNotification(obj: JsonObject, frame: WireFrame): void {
    this.received.notifications++;
    this.judgeSchema(obj, this.validate(obj), frame);
    if (obj.method === 'notifications/cancelled') this.noteCancellation(obj, frame);
    this.routeNotification(obj, frame);
  }

  /**
   * stdio: one message written over several lines (e.g. pretty-printed JSON).
   * A line that is not JSON and opens an object starts a candidate; the lines
   * that follow are added until together they parse as one JSON-RPC object,
   * or a line is a message of its own. When they parse, the lines are taken
   * back from the not-JSON violations, one split-message violation is
   * recorded (its evidence: the lines as written, newlines included), and the
   * message is handled whole.
   */
  private joinSplit(text: string, parsed: boolean, msg: unknown, frame: WireFrame): { msg: JsonObject; frame: WireFrame } | undefined {
    const alone = parsed && typeof msg === 'object' && msg !== null && !Array.isArray(msg) && (msg as JsonObject).jsonrpc === '2.0';
    if (!this.split) {
      if (!parsed && text.trimStart().startsWith('{')) this.split = { lines: [text], frames: [frame], chars: text.length };
      return undefined;
    }
    const split = this.split;
    const joined = [...split.lines, text].join('\n');
    let whole: unknown;
    try {
      whole = JSON.parse(joined);
    } catch {
      whole = undefined;
    }
    if (typeof whole === 'object' && whole !== null && !Array.isArray(whole) && (whole as JsonObject).jsonrpc === '2.0') {
      this.split = undefined;
      const frames = [...split.frames, frame];
      const taken = this.violationLog.retract(['not-json', 'not-jsonrpc'], new Set(split.frames.map((f) => f.seq)));
      this.received.other -= taken;
      this.violate(
        'split-message',
        `the server wrote one message over ${frames.length} lines (newlines inside the message): ${truncate(JSON.stringify(whole), 200)}`,
        { ...split.frames[0]!, text: joined },
      );
      return { msg: whole as JsonObject, frame };
    }
    if (alone) {
      // A message of its own: the earlier lines were no message.
      this.split = undefined;
      return undefined;
    }
    split.lines.push(text);
    split.frames.push(frame);
    split.chars += text.length + 1;
    if (split.lines.length > MAX_SPLIT_LINES || split.chars > MAX_SPLIT_CHARS) this.split = undefined;
    return undefined;
  }

  /** Schema validation that never throws: a message too deep for the validator is reported as unvalidated. */
  private validate(obj: JsonObject, method?: string, params?: JsonObject): { def: string; errors: string[]; unvalidated?: string } {
    try {
      return this.profile.schema.validateInbound(obj, method, params);
    } catch (err) {
      const why =
        err instanceof RangeError ? 'it is nested too deeply for the validator' : err instanceof Error ? err.message : String(err);
      return { def: 'message', errors: [], unvalidated: why };
    }
  }

  /** A response that answers no pending request: recorded as the violation it is. */
  private unmatchedResponse(id: RequestId | undefined | null, frame: WireFrame, http?: HttpInfo): void {
    const shown = truncate(JSON.stringify(id) ?? 'no id', 60);
    if (http?.notification) {
      this.violate('notification-response', `the server answered a notification's POST with a JSON-RPC response (id ${shown})`, frame);
    } else if (typeof id !== 'string' && typeof id !== 'number') {
      this.violate(
        'response-without-id',
        `the server sent a response with ${id === null ? 'a null id' : 'no id'} that answers no request`,
        frame,
      );
    } else {
      const state = this.ids.get(idKey(id));
      if (state === 'answered') this.violate('duplicate-response', `the server answered request ${shown} a second time`, frame);
      else if (state === 'asked') {
        this.violate(
          'stale-round-response',
          `the server answered request ${shown}, whose answer asked for input, a second time (a retry answered on the id of an earlier round)`,
          frame,
        );
      } else if (state === 'abandoned')
        this.violate('late-response', `the server answered request ${shown} after the suite had stopped waiting`, frame);
      else this.violate('unknown-id', `the server sent a response with id ${shown}, which the suite never used on this connection`, frame);
    }
  }

  private onResponse(obj: JsonObject, frame: WireFrame, http?: HttpInfo): void {
    const id = obj.id as RequestId | undefined | null;
    const hasId = typeof id === 'string' || typeof id === 'number';
    let pending = hasId ? this.pending.get(idKey(id)) : undefined;
    let typeMismatch = false;
    if (!pending && hasId) {
      // Same value, other JSON type: the request is answered, but the id is wrong.
      pending = this.pending.get(idKey(typeof id === 'string' ? Number(id) : String(id)));
      if (pending && String(pending.exchange.id) !== String(id)) pending = undefined;
      typeMismatch = !!pending;
    }
    if (!pending && !hasId && http?.requestId !== undefined && 'error' in obj) {
      // On HTTP an error without id answers the request whose POST it came on.
      pending = this.pending.get(idKey(http.requestId));
    }
    if (!pending && (typeof id === 'string' || typeof id === 'number')) {
      // A response to a request the suite cancelled: evidence for the check that cancelled it.
      const late =
        this.cancelledRequests.get(idKey(id)) ?? this.cancelledRequests.get(idKey(typeof id === 'string' ? Number(id) : String(id)));
      if (late && String(late.id) === String(id)) {
        late.late.push(frame);
        if (late.method === 'subscriptions/listen') this.router.byId(late.id)?.deliver(obj, frame, 'response');
        return;
      }
    }
    if (!pending) {
      this.unmatchedResponse(id, frame, http);
      return;
    }
    const ex = pending.exchange;
    this.cancellationLog.responseTo(ex.frames.find((f) => f.dir === 'out'));
    ex.response = obj;
    ex.frames.push(frame);
    if (frame.http) ex.http = { status: frame.http.status ?? 0, contentType: frame.http.contentType, stream: frame.http.stream };
    if (typeMismatch) ex.idTypeMismatch = true;
    if ('error' in obj) ex.error = obj.error as RpcError;
    else if (ex.otherEra) ex.result = obj.result as JsonObject;
    else {
      ex.result = obj.result as JsonObject;
      const rt = ex.result?.resultType;
      const tally = `${ex.method}|${JSON.stringify(rt) ?? 'absent'}`;
      const seen = this.resultTypes.get(tally);
      if (seen) seen.count++;
      else if (this.resultTypes.size < 1000) this.resultTypes.set(tally, { resultType: rt, method: ex.method, count: 1, frame });
    }
    const checked: { def?: string; errors: string[]; unvalidated?: string } = ex.otherEra
      ? { errors: [] }
      : this.validate(obj, ex.method, ex.params);
    ex.schemaDef = checked.def;
    ex.schemaErrors = checked.errors;
    if (checked.unvalidated) {
      ex.schemaUnvalidated = checked.unvalidated;
      this.violate('unvalidated', `the response to ${ex.method} could not be validated: ${checked.unvalidated}`, frame);
    }
    if (checked.errors.length) this.violationLog.addInvalid(ex);
    if (ex.method === 'tools/list' && ex.result && !ex.otherEra) this.toolLedger.learn(ex.params, ex.result);
    if (ex.method === 'tools/list' && ex.result && this.kind === 'http') this.headerMirror.learn(ex.result);
    if (ex.method === 'subscriptions/listen') this.router.byId(ex.id)?.deliver(obj, frame, 'response');
    this.opts.timeouts?.answered(ex.method, ex.params);
    const key = idKey(ex.id);
    ex.durationMs = Date.now() - pending.started;
    pending.cleanup();
    // A round that asked for input: a later answer on its id is a retry answered on the wrong id (basic/patterns/mrtr).
    this.remember(key, ex.result?.resultType === 'input_required' ? 'asked' : 'answered');
    pending.resolve(ex);
  }

  /** Remember what became of an id, and who sent it (bounded: the oldest are forgotten first). */
  private remember(key: string, state: IdState, owner?: FrameOwner): void {
    this.ids.delete(key);
    this.ids.set(key, state);
    if (owner !== undefined) this.owners.set(key, owner);
    if (this.ids.size > MAX_REMEMBERED_IDS) {
      const oldest = this.ids.keys().next().value!;
      this.ids.delete(oldest);
      this.owners.delete(oldest);
    }
  }

  /**
   * The owner of an inbound message: the sender of the request it answers, of
   * the request whose HTTP stream carried it, or of the subscription it names.
   */
  private ownerOfInbound(msg: unknown, http?: HttpInfo): FrameOwner {
    if (this.owners.size === 0) return undefined;
    const byId = (id: unknown) => (typeof id === 'string' || typeof id === 'number' ? this.owners.get(idKey(id)) : undefined);
    if (http?.requestId !== undefined) {
      const owner = byId(http.requestId);
      if (owner) return owner;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return undefined;
    const obj = msg as JsonObject;
    if (!('method' in obj)) return byId(obj.id);
    return byId(subscriptionIdOf(obj));
  }

  /** stdio: tell the server the suite no longer waits for a request it gave up on (basic/patterns/cancellation "Timeouts"). */
  private notifyAbandoned(id: RequestId, reason: string): void {
    if (this.kind !== 'stdio' || this.closedReason) return;
    void this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {});
  }

  /**
   * Legacy era: a server-initiated request (sampling, elicitation, roots,
   * ping) is validated, answered by the era's client, and the answer sent back
   * on the same connection (HTTP: as its own POST).
   */
  private answerServerRequest(obj: JsonObject, frame: WireFrame): void {
    // The id's rules are protocol/request-ids': the rest of the request is judged against the schema as if its id were valid.
    const id = obj.id;
    const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
    const method = truncate(String(obj.method), 100);
    const shownId = truncate(JSON.stringify(id) ?? 'undefined', 50);
    // "Within the same session": on stdio the connection's; on HTTP the Mcp-Session-Id's (a server that assigns
    // none has no session spanning its POSTs, so its ids are not compared across them).
    const scope = this.kind === 'stdio' ? '' : this.transport.sessionId;
    const key = validId && scope !== undefined ? `${scope}\0${idKey(id as RequestId)}` : undefined;
    const stream = frame.http?.standalone ? 'get' : `post:${String(frame.http?.requestId)}`;
    const earlier = key !== undefined ? this.serverRequestIds.get(key) : undefined;
    if (!validId) this.violate('request-id-invalid', `the server sent a ${method} request with the id ${shownId}`, frame);
    else if (earlier && this.kind === 'http' && earlier.text === JSON.stringify(obj) && earlier.stream !== stream) {
      // The very same request on another stream of the session: a broadcast (sessions/no-broadcast's), not a reused id.
    } else if (earlier) {
      this.violate(
        'request-id-reused',
        `the server sent a ${method} request with the id ${shownId}, which an earlier request of the server used in this session`,
        frame,
      );
    } else if (key !== undefined && this.serverRequestIds.size < MAX_REMEMBERED_IDS)
      this.serverRequestIds.set(key, { text: JSON.stringify(obj), stream });
    this.judgeSchema(obj, this.validate(validId ? obj : { ...obj, id: 0 }), frame);
    const params = typeof obj.params === 'object' && obj.params !== null ? (obj.params as JsonObject) : undefined;
    const answer = this.profile.answer!(String(obj.method), params);
    const text = JSON.stringify({ jsonrpc: '2.0', id: obj.id, ...answer });
    if (this.closedReason) return;
    this.cancellationLog.answered(obj.id, this.record('out', text));
    this.transport.send(text, { protocolVersion: this.profile.headerVersion, era: this.profile.era }).catch(() => undefined);
  }

  /** A notifications/cancelled from the server: what its requestId names, settled now. */
  private noteCancellation(obj: JsonObject, frame: WireFrame): void {
    this.cancellationLog.inbound(obj, frame, this.kind === 'stdio', {
      listens: this.router
        .all()
        .map((s) => ({ id: s.id, requestFrame: s.requestFrame, answered: s.messages.some((m) => m.via === 'response') })),
      clientSent: (id) => {
        const pending = this.pending.get(idKey(id));
        if (pending) return { method: pending.exchange.method };
        return this.ids.has(idKey(id)) ? {} : undefined;
      },
    });
  }

  private routeNotification(obj: JsonObject, frame: WireFrame): void {
    this.router.route(obj, frame);
  }

  private onClosed(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    for (const w of [...this.closeWaiters]) w(reason);
    this.router.dispose();
    for (const p of [...this.pending.values()]) {
      p.cleanup();
      p.exchange.durationMs = Date.now() - p.started;
      this.remember(idKey(p.exchange.id), 'abandoned');
      const err = new ConnectionClosedError(p.exchange.method, reason);
      err.frames = p.exchange.frames;
      p.reject(err);
    }
  }

  private violate(kind: ViolationKind, detail: string, frame?: WireFrame): void {
    this.violationLog.add(kind, detail, frame);
  }

  /** How many violations of these kinds this connection saw (kept or not). */
  countOf(...kinds: ViolationKind[]): number {
    return this.violationLog.countOf(...kinds);
  }

  private record(dir: 'in' | 'out', rawText: string, http?: HttpInfo, owner?: FrameOwner): WireFrame {
    return this.wire.record(dir, rawText, http, owner);
  }
}

/** The body field `Mcp-Name` mirrors: `params.name` (tools/call, prompts/get) or `params.uri` (resources/read). */
function mirroredName(method: string, params: JsonObject | undefined): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get' && method !== 'resources/read') return undefined;
  const value = method === 'resources/read' ? params?.uri : params?.name;
  return typeof value === 'string' ? value : undefined;
}

function idKey(id: RequestId): string {
  return `${typeof id}:${String(id)}`;
}

function truncate(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

function abortReason(...signals: Array<AbortSignal | undefined>): string {
  for (const s of signals) {
    if (s?.aborted) return s.reason instanceof Error ? s.reason.message : String(s.reason ?? 'aborted');
  }
  return 'aborted';
}

/**
 * A `subscriptions/listen` request as the client sees it (basic/patterns/
 * subscriptions): a long-lived request whose acknowledgment, notifications and
 * closing response all belong to it. The session ties each inbound message to
 * the subscriptions it belongs to and hands it to the handle, which collects
 * them in arrival order and lets a check wait for the next one with a deadline.
 */
import type { Exchange, RequestId } from './session.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import type { HttpInfo } from './transport.js';
import { waitedOut } from './waits.js';

/** How the session tied a message to a subscription. */
export type Attribution =
  /** `_meta["io.modelcontextprotocol/subscriptionId"]` names it (same value, any JSON type). */
  | 'subscription-id'
  /** HTTP: it arrived on the listen request's own response stream. */
  | 'stream'
  /** stdio: an untagged subscription notification while this was the only open subscription. */
  | 'only-open'
  /** The JSON-RPC response to the listen request. */
  | 'response'
  /** A `notifications/cancelled` whose `requestId` names the listen request. */
  | 'cancelled';

export interface SubscriptionMessage {
  msg: JsonObject;
  frame: WireFrame;
  via: Attribution;
  /** Arrived after the suite cancelled the subscription. */
  afterCancel: boolean;
}

/** Notification methods that only a subscription delivers. */
export const SUBSCRIPTION_NOTIFICATIONS = new Set([
  'notifications/subscriptions/acknowledged',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

export const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** Which `notifications` filter field asks for each change notification. */
export const FILTER_KEY: Record<string, string> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
  'notifications/resources/updated': 'resourceSubscriptions',
};

/** Notifications that relate to one request, never to a subscription. */
export const REQUEST_SCOPED = new Set(['notifications/progress', 'notifications/message']);

/**
 * Whether a subscription's filter asked for this message; undefined for
 * messages no filter governs (the acknowledgment, cancellations,
 * request-scoped notifications, responses).
 */
export function requestedBy(filter: JsonObject, msg: JsonObject): boolean | undefined {
  const method = String(msg.method);
  if (method === ACKNOWLEDGED || method === 'notifications/cancelled' || REQUEST_SCOPED.has(method) || !('method' in msg)) return undefined;
  const key = FILTER_KEY[method];
  if (!key) return false;
  if (key === 'resourceSubscriptions') {
    const uri = (msg.params as JsonObject | undefined)?.uri;
    return Array.isArray(filter.resourceSubscriptions) && filter.resourceSubscriptions.includes(uri);
  }
  return filter[key] === true;
}

type Waiter = { pred: (m: SubscriptionMessage) => boolean; resolve: (m: SubscriptionMessage | undefined) => void };

export class Subscription {
  readonly messages: SubscriptionMessage[] = [];
  /** The listen request as sent. */
  requestFrame: WireFrame | undefined;
  /** stdio: the notifications/cancelled that ended it. */
  cancelFrame: WireFrame | undefined;
  /** Settles when the listen request ends: its response, the suite's cancellation, or the connection closing. */
  readonly ended: Promise<{ exchange?: Exchange; error?: Error }>;
  private cancelledFlag = false;
  private disposed = false;
  private endedFlag = false;
  private readonly waiters = new Set<Waiter>();
  private headersSeen: ((http: HttpInfo | undefined) => void) | undefined;
  /**
   * HTTP: the listen answer's status and headers, as soon as they arrive
   * (undefined on stdio, or when the request ended without an answer).
   */
  readonly headers: Promise<HttpInfo | undefined>;

  constructor(
    readonly id: RequestId,
    /** The `notifications` filter the suite requested. */
    readonly filter: JsonObject,
    exchange: Promise<Exchange>,
    private readonly doCancel: (id: RequestId) => Promise<WireFrame | undefined>,
  ) {
    this.headers = new Promise((resolve) => (this.headersSeen = resolve));
    this.ended = exchange.then(
      (ex) => {
        this.endedFlag = true;
        return { exchange: ex };
      },
      (error: Error) => {
        this.endedFlag = true;
        return { error };
      },
    );
    void this.ended.then(() => this.headersSeen?.(undefined));
  }

  /** @internal HTTP: the listen answer's status and headers arrived. */
  answered(http: HttpInfo): void {
    this.headersSeen?.(http);
  }

  /** Neither answered, cancelled, nor cut off. */
  get open(): boolean {
    return !this.cancelledFlag && !this.endedFlag;
  }

  get cancelled(): boolean {
    return this.cancelledFlag;
  }

  /** @internal The connection closed: nothing more can arrive, so every wait ends now (no timer outlives the run). */
  dispose(): void {
    this.disposed = true;
    for (const w of [...this.waiters]) {
      this.waiters.delete(w);
      w.resolve(undefined);
    }
  }

  /** @internal The session hands over a message that belongs to this subscription. */
  deliver(msg: JsonObject, frame: WireFrame, via: Attribution): void {
    const m: SubscriptionMessage = { msg, frame, via, afterCancel: this.cancelledFlag };
    this.messages.push(m);
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters.delete(w);
        w.resolve(m);
      }
    }
  }

  /**
   * The first message from index `from` on that matches, already received or
   * arriving before the deadline; undefined when the deadline passes first.
   */
  waitFor(pred: (m: SubscriptionMessage) => boolean, timeoutMs: number, from = 0): Promise<SubscriptionMessage | undefined> {
    const seen = this.messages.slice(from).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        waitedOut('a subscription message', timeoutMs);
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      if (this.disposed) return waiter.resolve(undefined);
      this.waiters.add(waiter);
    });
  }

  /** The acknowledgment, when it arrives before the deadline. */
  acknowledgment(timeoutMs: number): Promise<SubscriptionMessage | undefined> {
    return this.waitFor((m) => m.msg.method === ACKNOWLEDGED, timeoutMs);
  }

  /** Notifications of `method` received from index `from` on. */
  notifications(method: string, from = 0): SubscriptionMessage[] {
    return this.messages.slice(from).filter((m) => m.msg.method === method);
  }

  /**
   * End the subscription from the client side: on stdio a
   * `notifications/cancelled` naming the listen request, on HTTP closing its
   * response stream. Messages that still arrive are kept, marked `afterCancel`.
   */
  async cancel(): Promise<void> {
    if (this.cancelledFlag || this.endedFlag) return;
    this.cancelledFlag = true;
    this.cancelFrame = await this.doCancel(this.id);
  }

  /** The evidence: the listen request, every message of the subscription and the cancellation, in wire order. */
  frames(): WireFrame[] {
    return orderFrames([
      ...(this.requestFrame ? [this.requestFrame] : []),
      ...this.messages.map((m) => m.frame),
      ...(this.cancelFrame ? [this.cancelFrame] : []),
    ]);
  }
}

/** Frames in wire order (by connection, then sequence), each once. */
export function orderFrames(frames: WireFrame[]): WireFrame[] {
  const unique = [...new Set(frames)];
  return unique.sort((a, b) => a.connection - b.connection || a.seq - b.seq);
}

/** `_meta["io.modelcontextprotocol/subscriptionId"]` of a message (of its result, for a response). */
export function subscriptionIdOf(msg: JsonObject): unknown {
  const holder = ('result' in msg ? msg.result : msg.params) as JsonObject | undefined;
  const meta = holder?._meta as JsonObject | undefined;
  return meta?.['io.modelcontextprotocol/subscriptionId'];
}

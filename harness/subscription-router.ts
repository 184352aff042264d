/**
 * Subscription routing of one connection: which open `subscriptions/listen`
 * an inbound message belongs to (basic/patterns/subscriptions). The session
 * hands every notification and every listen response here.
 */
import { Subscription, SUBSCRIPTION_NOTIFICATIONS, subscriptionIdOf, type Attribution } from './subscription.js';
import type { RequestId } from './session.js';
import type { TransportKind, WireFrame } from '../model/wire.js';
import type { JsonObject } from '../model/json.js';

/** Most subscriptions remembered per connection (the oldest are forgotten first). */
const MAX_SUBSCRIPTIONS = 1000;

export class SubscriptionRouter {
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly kind: TransportKind) {}

  add(sub: Subscription): void {
    this.subscriptions.push(sub);
    if (this.subscriptions.length > MAX_SUBSCRIPTIONS) this.subscriptions.splice(0, this.subscriptions.length - MAX_SUBSCRIPTIONS);
  }

  /** Every subscription opened on the connection (the latest MAX_SUBSCRIPTIONS). */
  all(): readonly Subscription[] {
    return this.subscriptions;
  }

  /** The subscription opened by the listen request with this id (exact JSON type). */
  byId(id: RequestId): Subscription | undefined {
    return this.subscriptions.find((s) => s.id === id);
  }

  /** The connection closed: every subscription's waits end. */
  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /**
   * Hand a notification to the subscription it belongs to, first rule that
   * applies: the subscription its subscriptionId names, the listen request whose
   * HTTP response stream carried it, the listen request a
   * `notifications/cancelled` names, and on stdio an untagged subscription
   * notification to the only open subscription. Returns the subscriptions it went to.
   */
  route(obj: JsonObject, frame: WireFrame): Subscription[] {
    if (this.subscriptions.length === 0) return [];
    const deliver = (subs: Subscription[], via: Attribution) => {
      for (const s of subs) s.deliver(obj, frame, via);
      return subs;
    };
    // A subscriptionId naming a known subscription (same value, any JSON type, so a
    // wrong type can be judged) decides, even when another subscription's stream carried it.
    const tag = subscriptionIdOf(obj);
    if (typeof tag === 'string' || typeof tag === 'number') {
      const named = this.subscriptions.filter((s) => String(s.id) === String(tag));
      if (named.length) return deliver(named, 'subscription-id');
    }
    // HTTP: the listen request's own response stream.
    const stream = frame.http?.requestId;
    if (stream !== undefined) {
      const on = this.subscriptions.filter((s) => s.id === stream);
      if (on.length) return deliver(on, 'stream');
    }
    if (obj.method === 'notifications/cancelled') {
      const rid = (obj.params as JsonObject | undefined)?.requestId;
      if (typeof rid === 'string' || typeof rid === 'number') {
        const named = this.subscriptions.filter((s) => String(s.id) === String(rid));
        if (named.length) return deliver(named, 'cancelled');
      }
    }
    // stdio: an untagged subscription notification can only be the one open subscription's.
    if (tag === undefined && this.kind === 'stdio' && SUBSCRIPTION_NOTIFICATIONS.has(String(obj.method))) {
      const open = this.subscriptions.filter((s) => s.open);
      if (open.length === 1) return deliver(open, 'only-open');
    }
    return [];
  }
}

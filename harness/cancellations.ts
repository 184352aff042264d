/**
 * The `notifications/cancelled` a server sent on one connection, and what
 * its `requestId` named when it arrived (basic/patterns/cancellation,
 * 2025-11-25 basic/utilities/cancellation "Behavior Requirements"): a
 * `subscriptions/listen` the suite sent, another request the suite sent, or
 * (legacy era) a request the server itself sent, answered or not. What it
 * named is settled on arrival, so the run-wide observers judge it from this
 * record however long the wire log is.
 */
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';

/** Most cancellations and server requests remembered per connection. */
const MAX_KEPT = 200;

/** A request the server sent on the connection (legacy era), and the suite's answer. */
export interface ServerRequestSeen {
  method: string;
  frame: WireFrame;
  /** The answer the suite sent (it answers every server request at once). */
  answer?: WireFrame;
}

export interface ServerCancellation {
  frame: WireFrame;
  requestId: string | number;
  /** The id names a subscriptions/listen the suite sent before it (same value; `exactType` when the JSON type matches too). */
  listen?: { exactType: boolean; answered: boolean };
  /** The id names another request the suite sent on the connection (its method, when still known). */
  clientRequest?: { method?: string };
  /** Legacy era: the id names a request the server sent on the connection. */
  serverRequest?: ServerRequestSeen & {
    /** stdio: the server had read the suite's answer before it cancelled (it answered a request the suite sent after that answer). */
    answerRead: boolean;
  };
}

/** What the session knows of the id when the cancellation arrives. */
export interface IdLookup {
  /** Listen requests the suite sent: id and request frame, whether answered. */
  listens: Array<{ id: string | number; requestFrame?: WireFrame; answered: boolean }>;
  /** The suite sent a request with this id (exact type): its method when known, or true. */
  clientSent(id: string | number): { method?: string } | undefined;
}

const key = (id: string | number) => `${typeof id}:${String(id)}`;

export class CancellationLog {
  readonly cancellations: ServerCancellation[] = [];
  private readonly serverRequests = new Map<string, ServerRequestSeen>();
  /** The highest sequence number of a request the suite sent whose response has arrived (stdio: the server has read up to it). */
  private readThrough = -1;

  /** The server sent a request (legacy era). */
  serverRequest(obj: JsonObject, frame: WireFrame): void {
    const id = obj.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.serverRequests.set(key(id), { method: String(obj.method), frame });
    if (this.serverRequests.size > MAX_KEPT) this.serverRequests.delete(this.serverRequests.keys().next().value!);
  }

  /** The suite answered the server's request `id` with `frame`. */
  answered(id: unknown, frame: WireFrame): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const seen = this.serverRequests.get(key(id));
    if (seen && !seen.answer) seen.answer = frame;
  }

  /** A response arrived to the suite's request sent as `request`. */
  responseTo(request: WireFrame | undefined): void {
    if (request && request.seq > this.readThrough) this.readThrough = request.seq;
  }

  /** A notifications/cancelled arrived from the server. */
  inbound(obj: JsonObject, frame: WireFrame, stdio: boolean, lookup: IdLookup): void {
    const rid = (obj.params as JsonObject | undefined)?.requestId;
    // A malformed one is the schema's to judge.
    if ((typeof rid !== 'string' && typeof rid !== 'number') || this.cancellations.length >= MAX_KEPT) return;
    const c: ServerCancellation = { frame, requestId: rid };
    const listen = lookup.listens.find((l) => String(l.id) === String(rid) && (!l.requestFrame || l.requestFrame.seq < frame.seq));
    if (listen) c.listen = { exactType: listen.id === rid, answered: listen.answered };
    else {
      const client = lookup.clientSent(rid);
      if (client) c.clientRequest = client;
    }
    const server = this.serverRequests.get(key(rid));
    if (server) c.serverRequest = { ...server, answerRead: stdio && !!server.answer && this.readThrough > server.answer.seq };
    this.cancellations.push(c);
  }
}

import type { StopOutcome } from './process.js';
import type { TransportKind } from '../model/wire.js';

/** HTTP facts about a frame received over Streamable HTTP. */
export interface HttpInfo {
  status: number;
  contentType?: string;
  /** True when the message arrived as an SSE event. */
  stream?: boolean;
  /** The JSON-RPC id of the request whose POST carried this message (its response stream); absent for a notification's POST. */
  requestId?: string | number;
  /** The message arrived on the answer to a notification's POST. */
  notification?: boolean;
}

/** What a transport reports to the session above it. */
export interface TransportSink {
  /** One candidate message (a line on stdio, a body or an SSE event on HTTP). */
  message(text: string, http?: HttpInfo): void;
  /**
   * Something on the wire broke a transport rule (oversized line, bad framing);
   * `excerpt` is the start of the offending bytes, kept as its evidence.
   */
  violation(kind: string, detail: string, excerpt?: string): void;
  /** The connection is gone and will deliver nothing more. */
  closed(reason: string): void;
}

/** Per-message facts a transport may need (HTTP mirrors them into headers). */
export interface SendInfo {
  /** The JSON-RPC id when the message is a request. */
  id?: string | number;
  method?: string;
  /** `params.name` or `params.uri`, mirrored into `Mcp-Name`. */
  name?: string;
  protocolVersion?: string;
  /** Extra headers for this message (e.g. `Mcp-Param-*`). */
  headers?: Record<string, string>;
  /** Aborting ends the message's exchange (on HTTP: closes the response stream). */
  signal?: AbortSignal;
  /**
   * The protocol era of the connection. On HTTP, legacy messages carry the
   * session id (`Mcp-Session-Id`) and none of the modern `Mcp-*` headers.
   */
  era?: 'modern' | 'legacy';
}

/** How one exchange ended at transport level (HTTP only carries anything here). */
export interface SendOutcome {
  http?: HttpInfo;
  /** Start of a response body that held no JSON-RPC message (for error text). */
  bodySnippet?: string;
  /** The body (or an SSE event) was larger than the maximum message size and was dropped. */
  oversized?: boolean;
}

export interface Transport {
  readonly kind: TransportKind;
  start(sink: TransportSink): Promise<void>;
  /**
   * Send one message. Resolves when the transport-level exchange has ended: at
   * once on stdio, when the response body (or SSE stream) ends on HTTP.
   */
  send(text: string, info: SendInfo): Promise<SendOutcome>;
  /**
   * Legacy era, HTTP only: open the standalone GET stream for messages the
   * server sends outside any call. Resolves once the answer's headers arrived;
   * the stream's messages go to the sink until it ends or the transport closes.
   */
  listen?(info: SendInfo): Promise<SendOutcome>;
  /**
   * Legacy era, HTTP only: end the session now with an HTTP DELETE (later
   * requests still carry its id); resolves with the answer's status.
   */
  terminate?(info: SendInfo): Promise<SendOutcome>;
  /** Legacy era, HTTP: the session id the server assigned, if any. */
  readonly sessionId?: string;
  /**
   * stdio: close the server's input (its shutdown signal) while still reading
   * its output. Absent on transports without such a signal.
   */
  endInput?(): void;
  /** Close the connection and release every resource; never throws. */
  close(): Promise<void>;
  /** stdio: how the server process ended when the connection was closed. */
  readonly shutdown?: StopOutcome;
}

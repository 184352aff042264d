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
  /** Legacy era: the message arrived on a standalone GET stream. */
  standalone?: boolean;
  /**
   * The body, not an SSE stream, was read leniently as newline-separated JSON
   * objects, each delivered as its line ended (a framing error judged by the
   * check that owns it; the messages are still read).
   */
  lines?: boolean;
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
  /** HTTP: told the answer's status and headers as soon as they arrive, before any body is read. */
  onHeaders?: (http: HttpInfo) => void;
}

/** How one exchange ended at transport level (HTTP only carries anything here). */
export interface SendOutcome {
  http?: HttpInfo;
  /** Start of a response body that held no JSON-RPC message (for error text). */
  bodySnippet?: string;
  /** The body (or an SSE event) was larger than the maximum message size and was dropped. */
  oversized?: boolean;
}

/**
 * One HTTP exchange outside the JSON-RPC bookkeeping (Streamable HTTP only):
 * for the transport rules a correct client never breaks (a foreign `Origin`,
 * a missing or wrong `Mcp-*` header, a GET, a notification POST).
 */
export interface RawHttpRequest {
  /** HTTP method; default POST. */
  method?: string;
  /** Another URL on the endpoint's origin (e.g. a well-known metadata document, or the endpoint with a query); default the endpoint. */
  url?: string;
  /** The body as sent. */
  body?: string;
  /** POST: the facts the standard MCP headers are mirrored from, as for `send` (none: only Content-Type and Accept). */
  info?: SendInfo;
  /** Headers set on top of the defaults (a same-named default, compared case-insensitively, is replaced). */
  headers?: Record<string, string>;
  /** Default headers left out, by name (case-insensitive). */
  omit?: string[];
  /** Give up reading the body after this long (the answer so far is returned, `timedOut` set). */
  timeoutMs: number;
  /** Resolve as soon as the status and headers arrived (a stream that stays open, e.g. subscriptions/listen). */
  headersOnly?: boolean;
}

export interface RawHttpResponse {
  status: number;
  /** Response headers, names in lower case (repeated ones joined with ", "). */
  headers: Record<string, string>;
  /** The body, decoded as UTF-8 (cut at the maximum message size). */
  body: string;
  /** The body was not valid UTF-8. */
  invalidUtf8?: boolean;
  /** The messages the body carried: the JSON body itself, or each SSE event's data. */
  messages: string[];
  /** The body was an SSE stream (by its Content-Type or its first line). */
  sse: boolean;
  /** The body had not ended within `timeoutMs`. */
  timedOut?: boolean;
  /** Milliseconds from sending until the body ended (or the headers arrived, with `headersOnly`). */
  durationMs: number;
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
  /** HTTP: the MCP endpoint's URL. */
  readonly endpoint?: string;
  /** HTTP only: one exchange outside the JSON-RPC bookkeeping (see RawHttpRequest). */
  raw?(req: RawHttpRequest): Promise<RawHttpResponse>;
  /**
   * stdio: close the server's input (its shutdown signal) while still reading
   * its output. Absent on transports without such a signal.
   */
  endInput?(): void;
  /** Close the connection and release every resource; never throws. */
  close(): Promise<void>;
  /** stdio: how the server process ended when the connection was closed. */
  readonly shutdown?: StopOutcome;
  /** stdio: close with every shutdown step waited out, whatever earlier stops of the run showed. */
  fullStop?: boolean;
}

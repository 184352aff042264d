/**
 * What crosses the wire and how a run speaks: transports, protocol eras and
 * the frames every log, finding and report carries. Ground layer.
 */

export type TransportKind = 'stdio' | 'http';

/**
 * Protocol era (basic/versioning "Terminology"): `modern` revisions carry
 * version, identity and capabilities on every request (2026-07-28 and
 * later); `legacy` ones open with an `initialize` handshake (2025-11-25).
 */
export type Era = 'modern' | 'legacy';

/** How a run came to speak the era it spoke. */
export interface EraInfo {
  era: Era;
  /** `forced`: by --spec; `detected`: by probing the server as the spec tells a dual-era client to. */
  how: 'forced' | 'detected';
  /** One line: what the server did that settled it. */
  evidence: string;
  /** Legacy: the protocol version the server answered `initialize` with. */
  negotiatedVersion?: string;
}

/** One frame on the wire, in either direction, as the session saw it. */
export interface WireFrame {
  /** Monotonic sequence number within one connection. */
  seq: number;
  /** Milliseconds since the run started. */
  at: number;
  /** `out`: the suite sent it; `in`: the server sent it. */
  dir: 'in' | 'out';
  /** Which connection (1 = the primary one). */
  connection: number;
  /** The text as sent or received, secrets redacted, possibly truncated. */
  text: string;
  /** Set when `text` was shortened for the log. */
  truncated?: boolean;
  /** HTTP details for frames carried over Streamable HTTP. */
  http?: { status?: number; contentType?: string; stream?: boolean; requestId?: string | number; standalone?: boolean };
}

/**
 * The wire log of one connection: every frame in both directions, numbered
 * and timestamped, redacted, bounded (most recent frames, a character budget),
 * and handed to whoever taps the connection. A frame sent for a piece of work
 * (a check's abort scope) carries that scope as its owner, so concurrent work
 * on one connection can tell its own frames from the others'.
 */
import type { Redactor } from './redact.js';
import type { HttpInfo } from './transport.js';
import type { WireFrame } from '../model/wire.js';

/** Who a frame belongs to: the abort scope of the work that sent the request (undefined: no one in particular). */
export type FrameOwner = AbortSignal | undefined;
export type Tap = (frame: WireFrame, owner: FrameOwner) => void;

export interface WireLogOptions {
  connection: number;
  redactor: Redactor;
  /** Milliseconds since the run started. */
  clock: () => number;
  /** Largest frame text kept (the message itself is still parsed whole). */
  maxTextBytes?: number;
  /** Most frames kept. */
  maxFrames?: number;
  /** Most characters of frame text kept, all frames together. */
  maxChars?: number;
}

export class WireLog {
  private readonly log: WireFrame[] = [];
  private chars = 0;
  private seq = 0;
  private readonly taps = new Set<Tap>();

  constructor(private readonly opts: WireLogOptions) {}

  /** Log a frame (redacted, cut to the size limit) and hand it to every tap. */
  record(dir: 'in' | 'out', rawText: string, http?: HttpInfo, owner?: FrameOwner): WireFrame {
    const max = this.opts.maxTextBytes ?? 64 * 1024;
    const redacted = this.opts.redactor.redact(rawText.length > max * 2 ? rawText.slice(0, max * 2) : rawText);
    const truncated = redacted.length > max;
    const frame: WireFrame = {
      seq: ++this.seq,
      at: Math.round(this.opts.clock()),
      dir,
      connection: this.opts.connection,
      text: truncated ? redacted.slice(0, max) : redacted,
      ...(truncated ? { truncated: true } : {}),
      ...(http
        ? {
            http: {
              status: http.status,
              contentType: http.contentType,
              stream: http.stream,
              ...(http.requestId !== undefined ? { requestId: http.requestId } : {}),
              ...(http.standalone ? { standalone: true } : {}),
            },
          }
        : {}),
    };
    this.log.push(frame);
    this.chars += frame.text.length;
    const limit = this.opts.maxFrames ?? 2000;
    const chars = this.opts.maxChars ?? 8 * 1024 * 1024;
    let drop = 0;
    while (this.log.length - drop > 1 && (this.log.length - drop > limit || this.chars > chars)) {
      this.chars -= this.log[drop]!.text.length;
      drop++;
    }
    if (drop) this.log.splice(0, drop);
    for (const t of this.taps) t(frame, owner);
    return frame;
  }

  /** Observe every frame from now on; returns the unsubscribe. */
  tap(fn: Tap): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  /** The log (bounded: the most recent frames). */
  frames(): WireFrame[] {
    return [...this.log];
  }
}

/**
 * Newline framing with a hard cap: splits a byte stream into lines and never
 * holds more than `maxBytes` of one line. A longer line is reported once and
 * its bytes are dropped up to the next newline, so a server cannot grow the
 * suite's memory by never ending a line.
 */
import { isUtf8 } from 'node:buffer';

const HEAD_BYTES = 256;

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (head: string, bytesSoFar: number) => void,
    /** A line whose bytes are not well-formed UTF-8 (it is still delivered, decoded with replacement characters). */
    private readonly onInvalidUtf8?: (line: string) => void,
  ) {}

  /** Bytes of the current, unfinished line held in memory (never more than `maxBytes`). */
  get buffered(): number {
    return this.size;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.discarding) {
        // Skip bytes until the end of the oversized line.
      } else if (this.size + piece.length > this.maxBytes) {
        this.onOversized(this.head(piece), this.size + piece.length);
        this.parts = [];
        this.size = 0;
        this.discarding = true;
      } else if (piece.length > 0) {
        this.parts.push(Buffer.from(piece));
        this.size += piece.length;
      }
      if (nl === -1) break;
      if (!this.discarding) this.flush();
      this.discarding = false;
      start = nl + 1;
    }
  }

  /** Emit what is buffered as a final line (end of stream). */
  end(): void {
    if (!this.discarding && this.size > 0) this.flush();
  }

  /** The first bytes of the oversized line, without copying the whole buffer. */
  private head(piece: Buffer): string {
    const bits: Buffer[] = [];
    let n = 0;
    for (const b of [...this.parts, piece]) {
      if (n >= HEAD_BYTES) break;
      const take = b.subarray(0, HEAD_BYTES - n);
      bits.push(take);
      n += take.length;
    }
    return Buffer.concat(bits).toString('utf8');
  }

  private flush(): void {
    const bytes = Buffer.concat(this.parts, this.size);
    let line = bytes.toString('utf8');
    if (this.onInvalidUtf8 && !isUtf8(bytes)) this.onInvalidUtf8(line);
    this.parts = [];
    this.size = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.onLine(line);
  }
}

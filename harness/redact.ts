/**
 * Secret redaction. Every value the user hands over as a secret (header values,
 * environment values passed to the server) is replaced by a marker in anything
 * the suite records: wire frames, stderr, error messages, and finally every
 * string of the result model.
 */
export const REDACTED = '[REDACTED]';
/** The marker of an access token (harness/authorization.ts): a frame showing it carries a token the server echoed. */
export const REDACTED_TOKEN = '[REDACTED:token]';

/** Shortest fragment of a secret masked where a text was cut. */
const MIN_FRAGMENT = 4;

export interface RedactOptions {
  /**
   * The text is an excerpt cut out of a longer one: also mask a fragment of
   * a secret at the cut edge (`start`: the text begins mid-way through the
   * original; `end`: it ends mid-way; `both`).
   */
  clipped?: 'start' | 'end' | 'both';
}

export class Redactor {
  private readonly secrets: string[] = [];
  /** The marker of each secret registered as an access token (others get REDACTED). */
  private readonly tokens = new Set<string>();

  /**
   * Register a secret; values shorter than 4 characters are too common to
   * redact safely. The value's JSON-escaped form is registered too, since a
   * server echoing it inside a JSON message escapes quotes and backslashes.
   */
  add(value: string | undefined): void {
    if (!value || value.length < 4) return;
    for (const v of [value, JSON.stringify(value).slice(1, -1)]) {
      if (this.secrets.includes(v)) continue;
      this.secrets.push(v);
    }
    // Longest first, so a secret containing another is replaced whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  /** Register an access token: redacted like any secret, with its own marker (REDACTED_TOKEN). */
  addToken(value: string | undefined): void {
    if (!value || value.length < 4) return;
    this.add(value);
    this.tokens.add(value);
    this.tokens.add(JSON.stringify(value).slice(1, -1));
  }

  get size(): number {
    return this.secrets.length;
  }

  redact(text: string, opts: RedactOptions = {}): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(this.tokens.has(s) ? REDACTED_TOKEN : REDACTED);
    }
    if (opts.clipped === 'start' || opts.clipped === 'both') out = this.maskStart(out);
    if (opts.clipped === 'end' || opts.clipped === 'both') out = this.maskEnd(out);
    return out;
  }

  /** The text begins with the tail of a secret: mask it. */
  private maskStart(text: string): string {
    let cut = 0;
    for (const s of this.secrets) {
      for (let n = Math.min(s.length - 1, text.length); n >= MIN_FRAGMENT && n > cut; n--) {
        if (text.startsWith(s.slice(s.length - n))) {
          cut = n;
          break;
        }
      }
    }
    return cut ? REDACTED + text.slice(cut) : text;
  }

  /** The text ends with the head of a secret: mask it. */
  private maskEnd(text: string): string {
    let cut = 0;
    for (const s of this.secrets) {
      for (let n = Math.min(s.length - 1, text.length); n >= MIN_FRAGMENT && n > cut; n--) {
        if (text.endsWith(s.slice(0, n))) {
          cut = n;
          break;
        }
      }
    }
    return cut ? text.slice(0, text.length - cut) + REDACTED : text;
  }

  /**
   * Redact every string inside a plain data structure in place (objects and
   * arrays, walked without recursion so no nesting depth can overflow the
   * stack). Returns the same value, or the redacted string.
   */
  redactDeep<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    if (typeof value === 'string') return this.redact(value) as unknown as T;
    const stack: unknown[] = [value];
    const seen = new Set<unknown>();
    while (stack.length) {
      const node = stack.pop();
      if (typeof node !== 'object' || node === null || seen.has(node)) continue;
      seen.add(node);
      const obj = node as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const v = obj[key];
        if (typeof v === 'string') {
          const r = this.redact(v);
          if (r !== v) obj[key] = r;
        } else if (typeof v === 'object' && v !== null) {
          stack.push(v);
        }
      }
    }
    return value;
  }
}

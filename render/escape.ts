/**
 * Making untrusted text safe to show.
 *
 * Anything a server said (tool names, error messages, wire frames, stderr,
 * its own name) may contain terminal control sequences. Printed raw, an
 * `ESC [ 32 m PASS` could paint a fake green result, `\r` could overwrite a
 * line, and an OSC sequence could retitle the window or plant a hyperlink.
 * Every renderer passes such text through `safeText()` before output, which
 * replaces each dangerous character with a visible escape (`\x1b`, `\r`,
 * `\u202e`) so the reader still sees that it was there.
 */

export interface SafeTextOptions {
  /**
   * Keep `\n` as a real line break (the caller is expected to indent or
   * prefix every resulting line). Default: `\n` is shown as the text `\n`.
   */
  multiline?: boolean;
}

/*
 * Escaped characters:
 *  - C0 controls U+0000..U+001F (including ESC, CR, TAB, BS, BEL), DEL U+007F
 *    and C1 controls U+0080..U+009F (U+009B is a one-byte CSI on some terminals);
 *  - bidirectional formatting marks and overrides (U+061C, U+200E, U+200F,
 *    U+202A..U+202E, U+2066..U+2069), which can reorder what is displayed;
 *  - the line and paragraph separators U+2028, U+2029;
 *  - the noncharacters U+FFFE, U+FFFF and lone surrogates, which are not
 *    allowed in XML 1.0 and cannot be encoded as UTF-8.
 * Lookbehind is used for lone low surrogates (supported since Node 10).
 */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Characters XML 1.0 does not allow at all (tab, LF and CR are allowed). */
const XML_INVALID =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The visible text that stands for one unsafe UTF-16 code unit. */
export function escapeChar(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = ch.charCodeAt(0);
      return code <= 0xff ? '\\x' + code.toString(16).padStart(2, '0') : '\\u' + code.toString(16).padStart(4, '0');
    }
  }
}

/** Turns any value into display text without throwing. */
function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  try {
    const json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Text that is safe to print to a terminal and to place in XML 1.0: every
 * control character, bidi override, lone surrogate and noncharacter becomes
 * its escape text (`\x1b`, `\r`, `\u202e`, ...). With `multiline`, `\n` is
 * kept (and a `\r\n` pair is kept as a plain line break).
 */
export function safeText(value: unknown, opts: SafeTextOptions = {}): string {
  let s = toText(value);
  if (opts.multiline) s = s.replace(/\r\n/g, '\n');
  return s.replace(UNSAFE, (ch) => (opts.multiline && ch === '\n' ? ch : escapeChar(ch)));
}

/**
 * Like `safeText`, but first cuts the raw text to at most `max` UTF-16 code
 * units (never splitting a surrogate pair) and marks a cut with `…`.
 * `alreadyCut` adds the mark even when no cut happens here (e.g. a wire frame
 * the harness already shortened).
 */
export function safeClip(value: unknown, max: number, opts: SafeTextOptions & { alreadyCut?: boolean } = {}): string {
  let s = toText(value);
  let cut = opts.alreadyCut === true;
  if (s.length > max) {
    let end = Math.max(0, max);
    const last = s.charCodeAt(end - 1);
    if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
    s = s.slice(0, end);
    cut = true;
  }
  return safeText(s, opts) + (cut ? '…' : '');
}

/**
 * Replaces only the characters XML 1.0 forbids, with the same escape text as
 * `safeText`. A last line of defence for strings headed into an XML builder.
 */
export function xmlSafe(value: unknown): string {
  return toText(value).replace(XML_INVALID, escapeChar);
}

/**
 * Secret redaction. Every value the user hands over as a secret (header values,
 * environment values passed to the server) is replaced by a marker in anything
 * the suite records: wire frames, stderr, error messages.
 */
export const REDACTED = '[REDACTED]';

export class Redactor {
  private readonly secrets: string[] = [];

  /** Register a secret; values shorter than 4 characters are too common to redact safely. */
  add(value: string | undefined): void {
    if (!value || value.length < 4 || this.secrets.includes(value)) return;
    this.secrets.push(value);
    // Longest first, so a secret containing another is replaced whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return out;
  }
}

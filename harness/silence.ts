/**
 * What a run says when the server answered nothing at all on its first
 * connection (neither the server/discover probe nor the initialize
 * fallback): what to try, and, when the server's own output says it listens
 * on a URL (an HTTP server launched without --url), `--url` with that URL.
 */
import type { TransportKind } from '../model/wire.js';
import { formatSeconds } from './errors.js';

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'`<>]+/i;
/** Words a server's startup line uses around the address it listens on. */
const LISTENING = /\b(listen\w*|serv(?:er|ing)|running|started|ready|available|bound|up)\b|\bon\s+https?:/i;

/** A URL the server says it listens on, and the line that says so, from its own output (first match). */
export function listeningUrl(lines: readonly string[]): { url: string; line: string } | undefined {
  for (const raw of lines) {
    const line = raw.trim();
    const m = URL_IN_TEXT.exec(line);
    if (!m || !LISTENING.test(line)) continue;
    const url = m[0].replace(/[.,;:!?)\]}]+$/, '');
    try {
      new URL(url);
    } catch {
      continue;
    }
    return { url, line: line.length > 200 ? `${line.slice(0, 200)}…` : line };
  }
  return undefined;
}

/** The one-line cause for a server that answered nothing within `waitedMs` in all. */
export function silentServer(kind: TransportKind, waitedMs: number, heard?: { url: string; line: string }): string {
  const within = `within ${formatSeconds(waitedMs)} (server/discover, then initialize on a fresh connection)`;
  if (kind === 'http') return `the server answered nothing ${within}: is the URL its MCP endpoint? try a longer --timeout`;
  if (heard) {
    return (
      `the server answered nothing on stdio ${within}, and it says ${JSON.stringify(heard.line)}: ` +
      `it looks like a Streamable HTTP server; run with --url ${heard.url} (with --server, the suite launches it and tests that URL)`
    );
  }
  return `the server answered nothing ${within}: is it an MCP stdio server? does it need --url (it may be an HTTP server)? try a longer --timeout`;
}

/** `; run with --url …`: the hint for a server that wrote something, but names the URL it listens on. */
export function urlHint(kind: TransportKind, heard?: { url: string; line: string }): string {
  if (kind !== 'stdio' || !heard) return '';
  return `; it says ${JSON.stringify(heard.line)}: if it is a Streamable HTTP server, run with --url ${heard.url}`;
}

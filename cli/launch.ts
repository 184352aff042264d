/**
 * How the command line names a server, shared by the run and `init`: the
 * `reference` shorthand, `--header` and `--env` values. A bad value
 * throws one line (the caller reports it as a usage error).
 */
// The `reference` shorthand has one home, the engine's (the matrix's targets file names it too).
export { expandServer } from '../engine/reference.js';

/** `--header "Name: value"` values. */
export function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(':');
    if (i <= 0) throw new Error(`--header must look like "Name: value", got ${JSON.stringify(h.split(':')[0])}`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/** `--env KEY=VALUE` values. */
export function parseEnv(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of list) {
    const i = e.indexOf('=');
    if (i <= 0) throw new Error(`--env must look like KEY=VALUE, got ${JSON.stringify(e.split('=')[0])}`);
    out[e.slice(0, i)] = e.slice(i + 1);
  }
  return out;
}

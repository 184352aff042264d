/**
 * How the command line names a server, shared by the run and `init`: the
 * `reference` shorthand, `--header` and `--env` values. A bad value
 * throws one line (the caller reports it as a usage error).
 */
import { join } from 'node:path';
import { packageRoot, splitCommand } from '../engine/host.js';
import { shellWord } from '../render/text.js';

/** `reference [args]`: the bundled reference server. */
export function expandServer(command: string): string {
  const words = splitCommand(command);
  if (words[0] !== 'reference') return command;
  const server = join(packageRoot(), 'fixtures', 'servers', 'reference', 'server.js');
  return [process.execPath, server, ...words.slice(1)].map(shellWord).join(' ');
}

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

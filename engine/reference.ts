/**
 * `reference [args]` as a server command: the bundled reference server
 * (fixtures/servers/reference), run by this Node. The command line and the
 * targets file of `matrix` both name it so.
 */
import { join } from 'node:path';
import { splitCommand } from '../harness/argv.js';
import { packageRoot } from '../harness/paths.js';
import { shellWord } from '../render/text.js';

/** `reference [args]` → `<node> <package>/fixtures/servers/reference/server.js [args]`; any other command unchanged. */
export function expandServer(command: string): string {
  const words = splitCommand(command);
  if (words[0] !== 'reference') return command;
  const server = join(packageRoot(), 'fixtures', 'servers', 'reference', 'server.js');
  return [process.execPath, server, ...words.slice(1)].map(shellWord).join(' ');
}

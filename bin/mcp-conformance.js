#!/usr/bin/env node
// Entry point: runs the compiled CLI. Any internal failure ends every server
// process the run started, says so in one line, and exits 2.
import { killAllServers } from '../dist/harness/process.js';

const fatal = (err) => {
  killAllServers();
  process.stderr.write(`mcp-conformance: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
};
process.on('uncaughtException', fatal);
// A reader that went away (`| head`) ends the console output, not the run: the reports are still written.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') fatal(err);
  });
}
process.on('unhandledRejection', fatal);

const { main } = await import('../dist/cli/main.js');
const code = await main(process.argv.slice(2));
killAllServers();
process.exitCode = code;
// Nothing is left to do; a file system call that never returns (a hung mount) must not keep the suite alive.
setTimeout(() => process.exit(code), 2000).unref();

/**
 * What the command line needs of the machine beside a run, named here so that
 * cli/ imports the engine (and lib/) and never the harness: where the package
 * is installed, how a `--server` command line is split, and stopping every
 * server process the run started (on an interrupt, a crash, or the watchdog's
 * timeout). The harness keeps the one implementation of each.
 */
export { packageRoot } from '../harness/paths.js';
export { splitCommand } from '../harness/argv.js';
export { killAllServers, killServersOfThisProcess } from '../harness/process.js';

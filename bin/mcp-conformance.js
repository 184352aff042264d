#!/usr/bin/env node
// Entry point. The main thread is the watchdog (dist/cli/watchdog.js): it runs
// the compiled CLI on a worker thread, so a signal is honoured within 2 s
// whatever the run is doing. Any internal failure ends every server process
// the run started, says so in one line, and exits 2.
import { supervise } from '../dist/cli/watchdog.js';

supervise(process.argv.slice(2), new URL('../dist/cli/worker.js', import.meta.url));

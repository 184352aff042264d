/**
 * The watchdog: signals are honoured within 2 s whatever the run is doing.
 *
 * The CLI runs on a worker thread (cli/worker.ts); this, the main thread,
 * does nothing but wait, so it always receives SIGINT, SIGTERM and SIGHUP
 * however busy the run thread is. A first signal is passed on to the run,
 * which stops the way an interrupt always does (the checks in flight are
 * not-observed, the reports are written, the servers stopped). If the run
 * has not ended 1.5 s later (its thread is CPU-bound, or stopping a server
 * takes too long), or on a second signal, the watchdog stops the run thread,
 * writes the reports from what it was told so far (every finished check, see
 * engine/progress.ts), kills every server this process launched, and exits 2.
 */
import { Worker } from 'node:worker_threads';
import { killServersOfThisProcess } from '../engine/host.js';
import { summarize, type CheckResult, type RunResult } from '../model/results.js';
import type { Progress } from '../engine/progress.js';
import { DEFAULT_JSON, DEFAULT_JUNIT, flagValue } from './flags.js';

// This thread only waits: the CLI, the engine and the renderers load on the run thread, and here
// only when the watchdog has to write the reports itself (stopNow), so a run loads them once.
const later = (header: Progress['run'] | undefined) =>
  Promise.all([
    import('../render/index.js'),
    // The tool's name and version come with the run's header; without one (the run never started) from the engine.
    header ? { toolVersion: () => header.tool } : import('../engine/run.js'),
  ]);

/** How long the run may take to stop on its own after a signal. */
export const GRACE_MS = 1500;
/** How long the watchdog's own report writing may take. */
const WRITE_MS = 400;

export type WorkerMessage = ({ type: 'progress' } & Progress) | { type: 'done'; code: number } | { type: 'fatal'; message: string };

/** Run the CLI with `argv` on a worker thread, watched; never returns (the process exits with the run's code). */
export function supervise(argv: string[], workerUrl: URL): void {
  let header: Progress['run'] | undefined;
  const checks: CheckResult[] = [];
  let code: number | undefined;
  let stopping = false;
  let emergency = false;

  const worker = new Worker(workerUrl, {
    workerData: { argv, tty: !!process.stdout.isTTY, columns: process.stdout.columns },
  });

  const fatal = (message: string) => {
    if (emergency) return;
    emergency = true;
    killServersOfThisProcess();
    process.stderr.write(`mcp-conformance: internal error: ${message}\n`);
    process.exit(2);
  };

  worker.on('message', (m: WorkerMessage) => {
    if (m.type === 'progress') {
      header = m.run;
      checks.push(m.check);
    } else if (m.type === 'done') {
      code = m.code;
      // The run is over and its reports are written: a handle the run thread leaves behind does not keep the suite alive.
      setTimeout(() => void worker.terminate().catch(() => {}), 1000).unref();
    } else if (m.type === 'fatal') fatal(m.message);
  });
  worker.on('error', (err) => fatal(err instanceof Error ? err.message : String(err)));
  worker.on('exit', (exitCode) => {
    if (emergency) return;
    killServersOfThisProcess();
    process.exitCode = code ?? (exitCode === 0 ? 2 : exitCode);
    // Nothing else should hold the process; if something does, it still ends.
    setTimeout(() => process.exit(process.exitCode ?? 2), 2000).unref();
  });

  const onSignal = (sig: NodeJS.Signals) => {
    if (emergency) return;
    if (stopping) {
      void stopNow(sig);
      return;
    }
    stopping = true;
    worker.postMessage({ type: 'signal', signal: sig });
    setTimeout(() => void stopNow(sig), GRACE_MS).unref();
  };

  const stopNow = async (sig: NodeJS.Signals) => {
    if (emergency || code !== undefined) return;
    emergency = true;
    void worker.terminate().catch(() => {});
    killServersOfThisProcess();
    const [{ renderConsole, writeReports }, { toolVersion }] = await later(header);
    const run = knownRun(header, checks, `interrupted by ${sig}`, toolVersion);
    const color = !argv.includes('--no-color') && !process.env.NO_COLOR && !!process.stdout.isTTY;
    try {
      process.stdout.write(renderConsole(run, { color }));
    } catch {
      // The console may be gone; the files still matter.
    }
    const paths = { junitPath: flagValue(argv, '--junit') ?? DEFAULT_JUNIT, jsonPath: flagValue(argv, '--json') ?? DEFAULT_JSON };
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      writeReports(run, paths).catch((err: Error) => process.stderr.write(`mcp-conformance: cannot write reports: ${err.message}\n`)),
      new Promise((resolve) => (timer = setTimeout(resolve, WRITE_MS))),
    ]);
    clearTimeout(timer);
    process.stderr.write(`mcp-conformance: ${run.aborted}\n`);
    process.exit(2);
  };

  // A reader that went away (`| head`) ends the console output, not the run: the reports are still written.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') fatal(err.message);
    });
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('uncaughtException', (err) => fatal(err instanceof Error ? err.message : String(err)));
  process.on('unhandledRejection', (err) => fatal(err instanceof Error ? err.message : String(err)));
}

/** The run as the watchdog knows it: the checks reported so far, aborted with `cause`. */
export function knownRun(
  header: Progress['run'] | undefined,
  checks: CheckResult[],
  cause: string,
  toolVersion: () => RunResult['tool'],
): RunResult {
  const base: Omit<RunResult, 'checks'> = header ?? {
    tool: toolVersion(),
    startedAt: new Date().toISOString(),
    durationMs: 0,
    target: { transport: 'stdio' },
    revision: 'auto',
    strict: false,
    summary: summarize([]),
    stderr: '',
    harnessErrors: [],
    exitCode: 2,
  };
  const started = Date.parse(base.startedAt);
  return {
    ...base,
    durationMs: Number.isFinite(started) ? Date.now() - started : base.durationMs,
    checks,
    summary: summarize(checks),
    aborted: `${cause} (the run did not stop within ${GRACE_MS / 1000} s: reports hold the ${checks.length} check(s) finished before)`,
    exitCode: 2,
  };
}

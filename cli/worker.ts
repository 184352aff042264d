/**
 * The run thread of the CLI (see cli/watchdog.ts): runs `main` with the
 * watchdog's argv, reports progress and the exit code to it, and takes the
 * signals it passes on as if they had reached this thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { onProgress } from '../engine/progress.js';
import { killAllServers } from '../engine/host.js';
import type { WorkerMessage } from './watchdog.js';

const port = parentPort!;
const data = workerData as { argv: string[]; tty: boolean; columns?: number };
const post = (m: WorkerMessage) => port.postMessage(m);

// The console report decides on colour and width as on the main thread.
if (data.tty) Object.defineProperty(process.stdout, 'isTTY', { value: true });
if (data.columns) Object.defineProperty(process.stdout, 'columns', { value: data.columns });

const fatal = (err: unknown) => {
  killAllServers();
  post({ type: 'fatal', message: err instanceof Error ? err.message : String(err) });
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

port.on('message', (m: { type: string; signal?: NodeJS.Signals }) => {
  if (m.type === 'signal' && m.signal) process.emit(m.signal, m.signal);
});
onProgress((p) => post({ type: 'progress', ...p }));

const { main } = await import('./main.js');
const code = await main(data.argv);
killAllServers();
post({ type: 'done', code });
onProgress(undefined);
port.unref();

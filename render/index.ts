/**
 * Renderers for a RunResult, and writing the report files.
 */
import { randomBytes } from 'node:crypto';
import { constants, fstat, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunResult } from '../model/results.js';
import { renderHtml } from './html.js';
import { renderJUnit } from './junit.js';
import { renderJson } from './json.js';

export { renderConsole } from './console.js';
export type { ConsoleOptions } from './console.js';
export { renderJUnit } from './junit.js';
export { renderHtml } from './html.js';
export { renderAnnotations, renderStepSummary } from './github.js';
export { liveConsole } from './console.js';
export { renderJson, JSON_SCHEMA_VERSION } from './json.js';
export type { JsonReport } from './json.js';
export { safeText, safeClip, xmlSafe } from './escape.js';
export type { SafeTextOptions } from './escape.js';

export interface ReportPaths {
  junitPath?: string;
  jsonPath?: string;
  htmlPath?: string;
}

/**
 * Creates `dir` and its missing parents one level at a time. (Node's
 * recursive mkdir spins forever on some paths under /proc; a plain mkdir
 * of each level fails there at once.)
 */
async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let d = resolve(dir);
  for (;;) {
    try {
      if ((await stat(d)).isDirectory()) break;
      throw Object.assign(new Error(`${d} is not a folder`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.unshift(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing) {
    await mkdir(m).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/**
 * Writes `text` to `path` atomically: parent folders are created, the text
 * goes to a temporary file in the same folder, is flushed to disk, and is
 * then renamed over `path`. A killed run leaves either the old file or the
 * new one, never half of one (at worst a stray `.*.tmp` file).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await ensureDir(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** What is at a report path: nothing, a regular file, or something to write through (a device, a FIFO, a socket). */
async function pathKind(path: string): Promise<'none' | 'file' | 'other'> {
  try {
    const st = await stat(path);
    return st.isFile() ? 'file' : 'other';
  } catch (err) {
    // ENOTDIR: a parent is a file; the atomic path names that.
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return 'none';
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // A dangling symlink: write through it, which creates its target.
    return (await lstat(path).catch(() => undefined))?.isSymbolicLink() ? 'other' : 'none';
  }
}

/**
 * Writes into what is already there, never replacing it. A FIFO is first
 * opened without blocking, so one nobody reads fails at once (ENXIO) rather
 * than hanging the run.
 */
/**
 * This process's stdout or stderr, when `path` is the very file it writes to
 * (`/dev/stdout`, or the file the shell redirected it to). The CLI runs on a
 * worker thread whose console text reaches the file through the main thread,
 * later: a report written through a second handle would land in the middle of
 * it. Written through the same stream, it follows the console text in order.
 */
async function consoleStreamOf(path: string): Promise<NodeJS.WriteStream | undefined> {
  const st = await stat(path).catch(() => undefined);
  if (!st) return undefined;
  for (const [fd, stream] of [
    [1, process.stdout],
    [2, process.stderr],
  ] as const) {
    const own = await new Promise<Stats | undefined>((done) => fstat(fd, (err, s) => done(err ? undefined : s)));
    if (own && own.dev === st.dev && own.ino === st.ino) return stream;
  }
  return undefined;
}

function writeToStream(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((done, fail) => stream.write(text, (err) => (err ? fail(err) : done())));
}

async function writeThrough(path: string, text: string): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  if (st?.isFIFO()) {
    const probe = await open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENXIO' ? Object.assign(new Error(`${path} is a FIFO nobody reads`), { code: 'ENXIO' }) : err;
    });
    // The reader is there: a blocking handle writes all of a large report.
    const fh = await open(path, constants.O_WRONLY);
    await probe.close();
    try {
      await fh.writeFile(text, 'utf8');
    } finally {
      await fh.close();
    }
    return;
  }
  // Appending, not truncating: /dev/stdout redirected to a file keeps what the console wrote before.
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o666);
  try {
    await fh.writeFile(text, 'utf8');
  } finally {
    await fh.close();
  }
}

/**
 * Writes one report to `path`. A regular file (or a new one) is replaced
 * atomically (writeFileAtomic); a symlink is followed and its target written
 * as that target would be; anything else (a device such as /dev/null, a
 * FIFO) is written through and stays what it is, and so is every path
 * under /dev or /proc: a report path is never turned into something else.
 */
export async function writeReportFile(path: string, text: string): Promise<void> {
  const own = await consoleStreamOf(path);
  if (own) return writeToStream(own, text);
  // /dev/stdout and its kin are links into /proc that may resolve to the shell's redirect target: never replace that.
  if (/^\/(dev|proc)\//.test(resolve(path))) return writeThrough(path, text);
  const isLink = (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true;
  const target = isLink ? await realpath(path).catch(() => path) : path;
  const kind = await pathKind(target);
  if (kind === 'other') return writeThrough(target, text);
  return writeFileAtomic(target, text);
}

/** Writes the requested reports; returns the paths written, JUnit first. */
export async function writeReports(run: RunResult, paths: ReportPaths): Promise<string[]> {
  const jobs = reportJobs(run, paths);
  // Rendered one after the other (CPU), written at once (each waits on its own flush to disk).
  const texts = jobs.map(([, render]) => render());
  await Promise.all(jobs.map(([path], i) => writeReportFile(path, texts[i]!)));
  return jobs.map(([path]) => path);
}

/** The requested reports, JUnit first: each path with its renderer. */
function reportJobs(run: RunResult, paths: ReportPaths): Array<[string, () => string]> {
  const jobs: Array<[string | undefined, () => string]> = [
    [paths.junitPath, () => renderJUnit(run)],
    [paths.jsonPath, () => renderJson(run)],
    [paths.htmlPath, () => renderHtml(run)],
  ];
  return jobs.filter((j): j is [string, () => string] => j[0] !== undefined && j[0] !== '');
}

/** Where a report went when its own path did not work. */
export interface ReportFallback {
  path: string;
  fallback: string;
  cause: string;
}

export interface WriteOutcome {
  written: string[];
  /** Reports written to the fallback folder instead (the run then exits 2). */
  fallbacks: ReportFallback[];
  /** Reports written nowhere: the path and the fallback both failed. */
  lost: ReportFallback[];
}

/** The folder reports go to when their own path does not work. */
export function fallbackDir(): string {
  return join(tmpdir(), `mcp-conformance-reports-${process.pid}`);
}

/** `work`, or a rejection naming `what` once `ms` have passed. */
export function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 100) / 10} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Writes every requested report within `timeoutMs` in all. A report whose
 * path fails or hangs (a read-only folder, a path under /proc) goes to the
 * fallback folder under the same file name; the outcome names both.
 */
export async function writeReportsWithin(
  run: RunResult,
  paths: ReportPaths,
  timeoutMs: number,
  fallback = fallbackDir(),
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = { written: [], fallbacks: [], lost: [] };
  const started = Date.now();
  const jobs = reportJobs(run, paths);
  const texts = jobs.map(([, render]) => render());
  // Written at once: each report gets what is left of the time, and its fallback half of it.
  const share = Math.max(200, timeoutMs - (Date.now() - started));
  const ends = await Promise.all(jobs.map(([path], i) => writeOne(path, texts[i]!, share, fallback)));
  for (const [i, end] of ends.entries()) {
    if (end === 'written') outcome.written.push(jobs[i]![0]);
    else if ('lost' in end) outcome.lost.push(end.lost);
    else outcome.fallbacks.push(end.fallback);
  }
  return outcome;
}

/** One report: to its path within half of `share`, else to the fallback folder within the other half. */
async function writeOne(
  path: string,
  text: string,
  share: number,
  fallback: string,
): Promise<'written' | { fallback: ReportFallback } | { lost: ReportFallback }> {
  try {
    await within(share / 2, `writing ${path}`, writeReportFile(path, text));
    return 'written';
  } catch (err) {
    const cause = (err as Error).message;
    const other = join(fallback, basename(path));
    try {
      await within(share / 2, `writing ${other}`, writeFileAtomic(other, text));
      return { fallback: { path, fallback: other, cause } };
    } catch (err2) {
      return { lost: { path, fallback: other, cause: `${cause}; fallback: ${(err2 as Error).message}` } };
    }
  }
}

/**
 * Renderers for a RunResult, and writing the report files.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RunResult } from '../model/results.js';
import { renderJUnit } from './junit.js';
import { renderJson } from './json.js';

export { renderConsole } from './console.js';
export type { ConsoleOptions } from './console.js';
export { renderJUnit } from './junit.js';
export { renderJson, JSON_SCHEMA_VERSION } from './json.js';
export type { JsonReport } from './json.js';
export { safeText, safeClip, xmlSafe } from './escape.js';
export type { SafeTextOptions } from './escape.js';

export interface ReportPaths {
  junitPath?: string;
  jsonPath?: string;
}

/**
 * Writes `text` to `path` atomically: parent folders are created, the text
 * goes to a temporary file in the same folder, is flushed to disk, and is
 * then renamed over `path`. A killed run leaves either the old file or the
 * new one, never half of one (at worst a stray `.*.tmp` file).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
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

/** Writes the requested reports; returns the paths written, JUnit first. */
export async function writeReports(run: RunResult, paths: ReportPaths): Promise<string[]> {
  const written: string[] = [];
  if (paths.junitPath !== undefined && paths.junitPath !== '') {
    await writeFileAtomic(paths.junitPath, renderJUnit(run));
    written.push(paths.junitPath);
  }
  if (paths.jsonPath !== undefined && paths.jsonPath !== '') {
    await writeFileAtomic(paths.jsonPath, renderJson(run));
    written.push(paths.jsonPath);
  }
  return written;
}

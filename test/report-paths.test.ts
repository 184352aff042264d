/**
 * Report paths that are not regular files: a symlink is written through to
 * its target, a FIFO and a device node are written into and stay what they
 * are, and a device that refuses the write (like /dev/full) gets the
 * fallback path, named, with exit 2. Each case runs as the current user
 * and, when the tests run as root, again as `nobody` (through setpriv).
 *
 * The device nodes are made with mknod in the test's own temp folder
 * (root only); the real /dev/null is written only by an ordinary user,
 * who cannot replace it.
 */
import { chmodSync, createReadStream, lstatSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, tempDir } from './helpers.js';

const isRoot = process.getuid?.() === 0;
const hasSetpriv = (() => {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Who runs the CLI: the test's own user, and `nobody` when that user is root. */
const USERS: Array<{ name: string; prefix: string[] }> = [
  { name: isRoot ? 'root' : 'an ordinary user', prefix: [] },
  ...(isRoot && hasSetpriv
    ? [{ name: 'nobody (an ordinary user)', prefix: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] }]
    : []),
];

/** A fast selection on the bundled reference server. */
const RUN = ['--server', 'reference', '--check', 'tools-list/unique-names'];

async function runAs(prefix: string[], args: string[], stdoutFile?: string) {
  const argv = [...prefix, process.execPath, CLI, ...RUN, ...args];
  // A shell's own redirect (`> file`), so the CLI's stdout is that file, as in a user's shell.
  const [cmd, ...rest] = stdoutFile ? ['sh', '-c', 'exec "$@" > "$OUT"', 'sh', ...argv] : argv;
  const env = { ...process.env, NO_COLOR: '1', ...(stdoutFile ? { OUT: stdoutFile } : {}) };
  const r = await execa(cmd!, rest, { cwd: ROOT, reject: false, timeout: 60_000, env });
  return { code: r.exitCode, out: `${String(r.stdout)}\n${String(r.stderr)}` };
}

/** A folder everyone may write (the `nobody` run writes here too). */
function sharedDir(): string {
  const dir = tempDir();
  chmodSync(dir, 0o777);
  return dir;
}

/** A character device made in `dir` (root only): 1,3 reads as /dev/null, 1,7 as /dev/full. */
function deviceNode(dir: string, name: string, major: number, minor: number): string {
  const path = join(dir, name);
  execFileSync('mknod', ['-m', '666', path, 'c', String(major), String(minor)]);
  return path;
}

/** The text a FIFO receives, read by this process while the CLI writes it. */
function readFifo(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    createReadStream(path, 'utf8')
      .on('data', (chunk) => (text += String(chunk)))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

describe.each(USERS)('report paths that are not regular files, as $name', ({ prefix }) => {
  it('a symlink is written through to its target and stays a link', async () => {
    const dir = sharedDir();
    const target = join(dir, 'target.json');
    const link = join(dir, 'link.json');
    symlinkSync(target, link);
    const r = await runAs(prefix, ['--json', link, '--junit', '', '--html', '']);
    expect(r.code, r.out).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(JSON.parse(readFileSync(target, 'utf8')).checks[0].id).toBe('tools-list/unique-names');
  });

  it('a FIFO is written into (its reader gets the report) and stays a FIFO', async () => {
    const dir = sharedDir();
    const fifo = join(dir, 'junit.fifo');
    execFileSync('mkfifo', ['-m', '666', fifo]);
    const read = readFifo(fifo);
    const r = await runAs(prefix, ['--junit', fifo, '--json', '', '--html', '']);
    expect(r.code, r.out).toBe(0);
    expect(await read).toContain('<testsuites');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('a FIFO nobody reads gets the fallback path, named, exit 2, at once', async () => {
    const dir = sharedDir();
    const fifo = join(dir, 'results.fifo');
    execFileSync('mkfifo', ['-m', '666', fifo]);
    const r = await runAs(prefix, ['--json', fifo, '--junit', '', '--html', '']);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/cannot write .*results\.fifo \(.*FIFO nobody reads\); wrote .*results\.fifo instead/);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('--json /dev/stdout redirected to a file: the file is written into, after the console report, not replaced', async () => {
    const dir = sharedDir();
    const out = join(dir, 'out.txt');
    writeFileSync(out, '');
    chmodSync(out, 0o666);
    const inode = statSync(out).ino;
    const r = await runAs(prefix, ['--json', '/dev/stdout', '--junit', '', '--html', ''], out);
    expect(r.code, r.out).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(statSync(out).ino).toBe(inode);
    expect(text).toContain('Result: PASSED');
    expect(text).toContain('"schemaVersion"');
  });

  it.runIf(isRoot)('a device node like /dev/null is written into and stays a device; a full one gets the fallback', async () => {
    const dir = sharedDir();
    const nul = deviceNode(dir, 'null', 1, 3);
    const full = deviceNode(dir, 'full', 1, 7);
    const ok = await runAs(prefix, ['--json', nul, '--junit', nul, '--html', nul]);
    expect(ok.code, ok.out).toBe(0);
    expect(statSync(nul).isCharacterDevice()).toBe(true);
    const bad = await runAs(prefix, ['--json', full, '--junit', '', '--html', '']);
    expect(bad.code, bad.out).toBe(2);
    expect(bad.out).toMatch(/cannot write .*full \(ENOSPC[^)]*\); wrote \S+ instead/);
    expect(statSync(full).isCharacterDevice()).toBe(true);
  });

  // Only an ordinary user writes the real /dev/null: root never gets the chance to replace it.
  it.runIf(!isRoot || prefix.length > 0)('--json /dev/null: a passing run exits 0 and /dev/null stays a device', async () => {
    const r = await runAs(prefix, ['--json', '/dev/null', '--junit', '/dev/null', '--html', '/dev/null']);
    expect(r.code, r.out).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});

describe('the ordinary-user cases', () => {
  it.runIf(isRoot && !hasSetpriv)('are skipped: running as root and setpriv is not installed to become nobody', () => {
    expect(hasSetpriv).toBe(false);
  });
});

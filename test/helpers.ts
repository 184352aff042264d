/**
 * Shared test helpers: the reference server command, free loopback ports, the
 * CLI as a user runs it, and a process scan that proves nothing survived.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { chromium, type Browser } from 'playwright-core';
import { quote } from 'shell-quote';
import type { ExpectStatic } from 'vitest';
import type { CheckResult, RunResult, Verdict } from '../model/results.js';
import type { Era } from '../model/wire.js';
import { quoteFor, type Check, type Rule } from '../suites/check.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE = join(ROOT, 'fixtures/servers/reference/server.js');
export const HOSTILE = join(ROOT, 'fixtures/servers/hostile');
export const CLI = join(ROOT, 'bin/mcp-conformance.js');

/** The reference server's command line, each word quoted for the `--server` splitter. */
export function referenceCommand(...args: string[]): string {
  return quote(['node', REFERENCE, ...args]);
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => res(port));
    });
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mcpc-test-'));
}

/** Run the built CLI; never rejects. */
export async function runCli(args: string[], opts: { timeoutMs?: number; cwd?: string } = {}) {
  const r = await execa('node', [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    reject: false,
    timeout: opts.timeoutMs ?? 60_000,
    env: { NO_COLOR: '1' },
  });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** PIDs of live processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes(marker) && !/^\s*\d+\s+Z/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid !== process.pid);
}

export function verdictsOf(check: CheckResult): Verdict[] {
  return check.results.map((r) => r.verdict);
}

/**
 * The reference server's part variants: a break id `check/id#part` switches on
 * a defect of one part of a check (a further sentence it judges), so every
 * part has a variant that makes it fail, as every check has.
 */
export function partBreaks(breaks: readonly string[]): Array<{ id: string; check: string; part: string }> {
  return breaks.filter((b) => b.includes('#')).map((id) => ({ id, check: id.split('#')[0]!, part: id.split('#')[1]! }));
}

/**
 * A part variant's run: caught by its check alone, with a finding that quotes the part's sentence in the era's
 * words and shows the wire. `expect` is the test's own (concurrent tests assert through their context).
 */
export function expectPartCaught(expect: ExpectStatic, result: RunResult, check: Check, part: string, era: Era): void {
  const info = describeRun(result);
  expect(result.aborted, info).toBeUndefined();
  expect(brokenChecks(result), info).toEqual([check.id]);
  expectQuoted(expect, result, check, check.parts![part]!, era);
}

/**
 * The defect is proven on its sentence: a finding of `check` quotes `rule`
 * (the check's own, or a part) word for word, at the rule's level, with the
 * expected, the seen and the wire. `coverage` counts a sentence proven on
 * this assertion (engine/coverage.ts).
 */
export function expectQuoted(expect: ExpectStatic, result: RunResult, check: Check, rule: Rule, era: Era): void {
  const info = describeRun(result);
  const findings = result.checks.find((c) => c.id === check.id)!.results.flatMap((r) => r.findings);
  const quote = quoteFor(rule, era);
  expect(
    findings.map((f) => f.requirement),
    info,
  ).toContain(quote);
  const finding = findings.find((f) => f.requirement === quote && (f.level ?? check.level) === rule.level);
  expect(finding, `${check.id}: a finding quoting the sentence at its level ${rule.level}\n${info}`).toBeDefined();
  expect(finding!.expected.length).toBeGreaterThan(0);
  expect(finding!.actual.length).toBeGreaterThan(0);
  expect(finding!.wire.length, 'a finding shows the wire').toBeGreaterThan(0);
}

/** Checks with any subject at fail or warn. */
export function brokenChecks(run: RunResult): string[] {
  return run.checks.filter((c) => c.results.some((r) => r.verdict === 'fail' || r.verdict === 'warn')).map((c) => c.id);
}

/** A one-line summary of a run, for assertion messages. */
export function describeRun(run: RunResult): string {
  const lines = run.checks.map(
    (c) =>
      `${c.id}: ${c.results.map((r) => `${r.subject}=${r.verdict}${r.reason ? ` (${r.reason})` : ''}${r.findings[0] ? ` [${r.findings[0].actual}]` : ''}`).join(', ')}`,
  );
  return [`aborted=${run.aborted ?? '-'} harnessErrors=${run.harnessErrors.join('|') || '-'}`, ...lines].join('\n');
}

/**
 * The kill-matrix cases to define: every check's, or with KILL_MATRIX_CHECKS
 * set (by `npm run test:fast`), only those of the listed check ids
 * (comma-separated; empty: none), so a developer's loop proves the checks the
 * working tree changed.
 */
export function inKillMatrix(checkId: string): boolean {
  const only = process.env.KILL_MATRIX_CHECKS;
  if (only === undefined) return true;
  return only.split(',').includes(checkId);
}

/** The kill matrix is filtered (KILL_MATRIX_CHECKS is set): test:fast's one pass of the catalogue is the modern one. */
export const killMatrixFiltered = process.env.KILL_MATRIX_CHECKS !== undefined;

/** Debian's Chromium, headless, with the flags this closed network needs (no background connections). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: apt-get install -y chromium (.ci/run does this)`);
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ];
  return chromium.launch({ executablePath, args, headless: true });
}

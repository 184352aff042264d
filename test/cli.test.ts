/**
 * The CLI as a user runs it: the three documented invocations, the JUnit and
 * JSON reports, and every kind of bad input (one-line error, exit 2, reports
 * still written, no process left behind).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../model/results.js';
import { freePort, HOSTILE, processesWith, REFERENCE, referenceCommand, runCli, tempDir } from './helpers.js';

function reportsIn(dir: string) {
  return ['--junit', join(dir, 'junit.xml'), '--json', join(dir, 'results.json')];
}

function readRun(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;
}

function testcases(xml: string): Array<Record<string, unknown>> {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml);
  return (doc.testsuites.testsuite as Array<{ testcase?: Array<Record<string, unknown>> }>).flatMap((s) => s.testcase ?? []);
}

describe('CLI against the reference server', () => {
  it('stdio: passes, exits 0, writes valid JUnit with one testcase per check × subject', async () => {
    const dir = tempDir();
    const r = await runCli(['--server', referenceCommand(), ...reportsIn(dir)]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Result: PASSED');
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const run = readRun(dir);
    const subjects = run.checks.reduce((n, c) => n + c.results.length, 0);
    expect(testcases(xml)).toHaveLength(subjects);
    expect(subjects).toBeGreaterThan(run.checks.length);
  });

  it('HTTP server launched by the suite: waits until it answers, tests it, stops it', async () => {
    const dir = tempDir();
    const port = await freePort();
    const marker = `m${randomUUID()}`;
    const r = await runCli([
      '--server',
      referenceCommand('--http', String(port), '--tag', marker),
      '--url',
      `http://127.0.0.1:${port}/mcp`,
      ...reportsIn(dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readRun(dir).target.transport).toBe('http');
    expect(processesWith(marker)).toEqual([]);
  });

  it('HTTP server already running: tests it by URL', async () => {
    const { execa } = await import('execa');
    const port = await freePort();
    const server = execa('node', [REFERENCE, '--http', String(port)], { reject: false });
    try {
      await new Promise<void>((resolve) => server.stderr!.on('data', (d: Buffer) => String(d).includes('listening') && resolve()));
      const dir = tempDir();
      const r = await runCli(['--url', `http://127.0.0.1:${port}/mcp`, ...reportsIn(dir)]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  });

  it('a broken server exits 1 and the failure says Requirement / Expected / Actual with the wire', async () => {
    const dir = tempDir();
    const r = await runCli(['--server', referenceCommand('--break', 'tools-list/stable-across-connections'), ...reportsIn(dir)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Requirement:[\s\S]*Expected:[\s\S]*Actual:/);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml).toContain('<failure');
  });

  it('--check selects by glob and `list` prints the catalogue with spec references', async () => {
    const dir = tempDir();
    const r = await runCli(['--server', referenceCommand(), '--check', 'discover/*', ...reportsIn(dir)]);
    expect(r.code).toBe(0);
    expect(readRun(dir).checks.map((c) => c.id)).toEqual(['discover/result', 'discover/server-info', 'discover/tools-capability']);
    const list = await runCli(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/tools-list\/deterministic-order\s+SHOULD\s+server\/tools#Capabilities/);
  });

  it('--strict turns a SHOULD violation into exit 1', async () => {
    const dir = tempDir();
    const args = ['--server', referenceCommand('--break', 'tools-list/unique-names'), ...reportsIn(dir)];
    expect((await runCli(args)).code).toBe(0);
    expect((await runCli([...args, '--strict'])).code).toBe(1);
  });

  it('header values never appear in any report', async () => {
    const dir = tempDir();
    const port = await freePort();
    const secret = `sk-${randomUUID()}`;
    const r = await runCli([
      '--server',
      referenceCommand('--http', String(port)),
      '--url',
      `http://127.0.0.1:${port}/mcp`,
      '--header',
      `Authorization: Bearer ${secret}`,
      ...reportsIn(dir),
    ]);
    expect(r.code).toBe(0);
    for (const f of ['junit.xml', 'results.json']) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain(secret);
  });
});

describe('configuration file', () => {
  it('supplies the server command, with paths relative to the file', async () => {
    const dir = tempDir();
    const r = await runCli(['--config', 'fixtures/reference.config.yaml', ...reportsIn(dir)]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('rejects an inline secret with the path and the reason', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.config.yaml');
    writeFileSync(file, 'server:\n  command: node x.js\n  env:\n    API_KEY: hunter2-inline\n');
    const r = await runCli(['--config', file, ...reportsIn(dir)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is invalid at \/server\/env\/API_KEY: .*never inline/);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
  });
});

describe('bad input: one-line error, exit 2, reports written, nothing left running', () => {
  const cases: Array<{ name: string; args: (marker: string) => string[]; message: RegExp }> = [
    { name: 'an unknown flag', args: () => ['--bogus'], message: /unknown option '--bogus'/ },
    { name: 'no server and no URL', args: () => [], message: /nothing to test/ },
    { name: 'a bad flag value', args: () => ['--server', 'x', '--timeout', 'soon'], message: /--timeout must be a positive whole number/ },
    { name: 'a command that is not found', args: () => ['--server', 'no-such-mcp-server-xyz'], message: /command not found: no-such-mcp-server-xyz/ },
    {
      name: 'a server that exits at once',
      args: (m) => ['--server', `node ${join(HOSTILE, 'exits.js')} ${m}`],
      message: /exited with code 3.*missing configuration file/,
    },
    {
      name: 'a server that prints garbage on stdout',
      args: (m) => ['--server', `node ${join(HOSTILE, 'garbage.js')} ${m}`, '--timeout', '1000'],
      message: /did not answer server\/discover.*not JSON: Welcome to my server!/,
    },
    {
      name: 'a hung server',
      args: (m) => ['--server', `node ${join(HOSTILE, 'silent.js')} ${m}`, '--timeout', '1000'],
      message: /no answer within 1 s to server\/discover/,
    },
    {
      name: 'an unreachable URL',
      args: () => ['--url', 'http://127.0.0.1:9/mcp'],
      message: /cannot connect to http:\/\/127\.0\.0\.1:9\/mcp: connection refused/,
    },
    {
      name: 'a launched HTTP server that never listens',
      args: (m) => ['--server', `node ${join(HOSTILE, 'silent.js')} ${m}`, '--url', 'http://127.0.0.1:9/mcp', '--startup-timeout', '1000'],
      message: /did not accept connections on 127\.0\.0\.1:9 within 1 s/,
    },
    {
      name: 'a server that ignores stdin close and SIGTERM and spawns children',
      args: (m) => ['--server', `node ${join(HOSTILE, 'stubborn.js')} ${m}`, '--timeout', '1000'],
      message: /no answer within 1 s to server\/discover/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      const marker = `m${randomUUID()}`;
      const r = await runCli([...c.args(marker), ...reportsIn(dir)]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^mcp-conformance: /);
      expect(lines[0]).toMatch(c.message);
      expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
      const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(xml).toContain('run/aborted');
      expect(readRun(dir).exitCode).toBe(2);
      expect(processesWith(marker)).toEqual([]);
    });
  }
});

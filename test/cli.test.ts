/**
 * The CLI as a user runs it: the three documented invocations, the JUnit and
 * JSON reports, and every kind of bad input (one-line error, exit 2, reports
 * still written, no process left behind).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../model/results.js';
import { CLI, freePort, HOSTILE, processesWith, REFERENCE, referenceCommand, runCli, tempDir } from './helpers.js';

function reportsIn(dir: string) {
  return ['--junit', join(dir, 'junit.xml'), '--json', join(dir, 'results.json')];
}

function readRun(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;
}

function testcases(xml: string): Array<Record<string, unknown>> {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(
    xml,
  );
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
    expect(testcases(xml).filter((c) => c['@_classname'] !== 'run')).toHaveLength(subjects);
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

describe('bad input: one-line error (usage errors: cause and hint), exit 2, reports written, nothing left running', () => {
  const cases: Array<{ name: string; args: (marker: string) => string[]; message: RegExp; usage?: boolean }> = [
    { name: 'an unknown flag', args: () => ['--bogus'], message: /unknown option '--bogus'/, usage: true },
    { name: 'no server and no URL', args: () => [], message: /nothing to test/, usage: true },
    {
      name: 'a bad flag value',
      args: () => ['--server', 'x', '--timeout', 'soon'],
      message: /--timeout must be a positive whole number/,
      usage: true,
    },
    {
      name: 'a shell operator in --server',
      args: () => ['--server', 'node a.js | tee log'],
      message: /the --server command contains the shell operator "\|"/,
      usage: true,
    },
    { name: 'a bad --shard', args: () => ['--server', 'x', '--shard', '3/2'], message: /--shard must look like i\/n/, usage: true },
    {
      name: 'a command that is not found',
      args: () => ['--server', 'no-such-mcp-server-xyz'],
      message: /command not found: no-such-mcp-server-xyz/,
    },
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
      message: /the server answered nothing within 2 s .*: is it an MCP stdio server\? does it need --url .*\? try a longer --timeout$/,
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
      message: /the server answered nothing within 2 s .*: is it an MCP stdio server\? does it need --url .*\? try a longer --timeout$/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      const marker = `m${randomUUID()}`;
      const r = await runCli([...c.args(marker), ...reportsIn(dir)]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(c.usage ? 2 : 1);
      expect(lines[0]).toMatch(/^mcp-conformance: /);
      expect(lines[0]).toMatch(c.message);
      if (c.usage) {
        // A usage error prints its cause and a hint: no header, no summary block.
        expect(lines[1]).toMatch(/^hint: /);
        expect(r.stdout).toBe('');
      }
      expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
      const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(xml).toContain('run/aborted');
      expect(readRun(dir).exitCode).toBe(2);
      expect(processesWith(marker)).toEqual([]);
    });
  }
});

describe('a server that answers nothing', () => {
  it('an HTTP server launched without --url: its own "listening on" line gives the hint, --url <that url>; exit 2, nothing left running', async () => {
    const dir = tempDir();
    const port = await freePort();
    const marker = `m${randomUUID()}`;
    const server = referenceCommand('--http', String(port), '--tag', marker);
    const r = await runCli(['--server', server, '--timeout', '1000', '--shutdown-timeout', '300', ...reportsIn(dir)]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const url = `http://127.0.0.1:${port}/mcp`;
    expect(lines[0]).toContain(`mcp-conformance: the server answered nothing on stdio within 2 s`);
    expect(lines[0]).toContain(`it says "listening on ${url}": it looks like a Streamable HTTP server; run with --url ${url} (`);
    expect(readRun(dir).aborted).toContain(`run with --url ${url}`);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('run/aborted');
    expect(processesWith(marker)).toEqual([]);
  });
});

describe('CLI hygiene', () => {
  it('list --json exits 0 with JSON, list --check filters, help list prints help and runs nothing', async () => {
    const json = await runCli(['list', '--json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as unknown[]).length).toBeGreaterThan(50);
    const some = await runCli(['list', '--check', 'discover/*']);
    expect(some.code).toBe(0);
    expect(some.stdout.trim().split('\n').at(-1)).toBe('3 checks');
    const help = await runCli(['help', 'list']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mcp-conformance list/);
    expect(help.stdout).not.toContain('Summary:');
  });

  it('--server is split like a POSIX shell: quotes, and a quoted path with a space', async () => {
    const dir = tempDir();
    const spaced = join(dir, 'my server');
    mkdirSync(spaced);
    writeFileSync(join(spaced, 'srv.mjs'), `import ${JSON.stringify(pathToFileURL(REFERENCE).href)};\n`);
    const r = await runCli(['--server', `node '${join(spaced, 'srv.mjs')}'`, '--check', 'discover/*', ...reportsIn(dir)]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const quoted = await runCli([
      '--server',
      'node -e "process.stderr.write(\'Error: quoted \\"words\\" kept\\n\'); process.exit(5)"',
      ...reportsIn(dir),
    ]);
    expect(quoted.code).toBe(2);
    expect(quoted.stderr.trim()).toMatch(/exited with code 5; the server said: Error: quoted "words" kept\)$/);
  });

  it("a failed start shows the server's own first error line, and its stderr goes into the reports", async () => {
    const dir = tempDir();
    const r = await runCli(['--server', 'node -e "throw new TypeError(\'boom at start\')"', ...reportsIn(dir)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/exited with code 1; the server said: TypeError: boom at start\)$/),
    ]);
    // The console's ABORTED lines keep their line breaks (no literal \n).
    const aborted = r.stdout.split('\n').filter((l) => l.startsWith('ABORTED:'));
    expect(aborted).toHaveLength(1);
    expect(r.stdout).not.toMatch(/ABORTED:.*\\n/);
    expect(readRun(dir).stderr).toContain('TypeError: boom at start');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('TypeError: boom at start');
  });

  it('live: each check line is printed as its result is known, in run order; a legend; a long reason once', async () => {
    const { execa } = await import('execa');
    const dir = tempDir();
    const started = Date.now();
    const child = execa('node', [CLI, '--server', referenceCommand(), '--seed', '3', ...reportsIn(dir)], {
      reject: false,
      env: { NO_COLOR: '1' },
    });
    let firstLineAt = 0;
    child.stdout!.on('data', (d: Buffer) => {
      if (!firstLineAt && String(d).includes('discover/result')) firstLineAt = Date.now();
    });
    const r = await child;
    const endedAt = Date.now();
    expect(r.exitCode).toBe(0);
    expect(firstLineAt).toBeGreaterThan(started);
    // The first result was on screen well before the run ended (a full run takes seconds).
    expect(endedAt - firstLineAt).toBeGreaterThan(1000);
    const out = String(r.stdout);
    const run = readRun(dir);
    // The other era's checks, skipped for that alone, collapse into one summary line.
    const otherEra = run.checks.filter((c) => !c.revisions.includes(run.era!.era));
    expect(otherEra.length).toBeGreaterThan(0);
    expect(out).toContain(`${otherEra.length} checks of the 2025-11-25 (legacy) era skipped`);
    const order = run.checks.filter((c) => !otherEra.includes(c)).map((c) => c.id);
    const printed = out
      .split('\n')
      .map((l) => /^  \S (\S+)  /.exec(l)?.[1])
      .filter((id): id is string => !!id && order.includes(id));
    expect(printed).toEqual(order);
    expect(out).toContain('Legend: ✓ pass  ✗ fail  ! warn  - skip (does not apply)  ? not observed (applies, but could not be exercised)');
    // Each long reason once (valid and invalid calls of a held-back tool have one each), then "the same reason as … above".
    expect(out.match(/not called with valid arguments: a call executes the tool for real/g)).toHaveLength(1);
    expect(out.match(/not called with invalid arguments: a call executes the tool for real/g)).toHaveLength(1);
    expect(out).toMatch(/the same reason as tools-call\/\S+ above/);
  });

  it('an unwritable --junit path (under /proc) falls back, names both paths and exits 2 promptly', async () => {
    const dir = tempDir();
    const started = Date.now();
    const r = await runCli(
      [
        '--server',
        referenceCommand(),
        '--check',
        'discover/*',
        '--junit',
        '/proc/mcpc-nope/junit.xml',
        '--json',
        join(dir, 'results.json'),
        '--html',
        join(dir, 'r.html'),
      ],
      { timeoutMs: 30_000 },
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(2);
    const m = /^mcp-conformance: cannot write \/proc\/mcpc-nope\/junit\.xml \(.*\); wrote (\S+junit\.xml) instead$/m.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(XMLValidator.validate(readFileSync(m![1]!, 'utf8'))).toBe(true);
    expect(readRun(dir).exitCode).toBe(0);
  });

  it('--server reference is the bundled reference server', async () => {
    const dir = tempDir();
    const r = await runCli(['--server', 'reference', '--check', 'discover/*', ...reportsIn(dir)]);
    expect(r.code, r.stderr).toBe(0);
    expect(readRun(dir).server?.name).toBe('mcp-conformance-reference');
  });
});

describe('report writing that hangs', () => {
  /** A preload that makes every rename hang: a report write that never ends (as on a hung mount). */
  function hangingRenames(dir: string): string {
    const file = join(dir, 'hang.mjs');
    writeFileSync(
      file,
      "import fs from 'node:fs';\nimport { syncBuiltinESMExports } from 'node:module';\nfs.promises.rename = () => new Promise(() => {});\nsyncBuiltinESMExports();\n",
    );
    return file;
  }

  it('is bounded by --deadline: both paths named, exit 2', async () => {
    const { execa } = await import('execa');
    const dir = tempDir();
    const started = Date.now();
    const r = await execa(
      'node',
      [
        '--import',
        hangingRenames(dir),
        CLI,
        '--server',
        referenceCommand(),
        '--check',
        'discover/*',
        '--deadline',
        '3000',
        ...reportsIn(dir),
      ],
      {
        reject: false,
        env: { NO_COLOR: '1' },
        timeout: 30_000,
      },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.exitCode).toBe(2);
    expect(String(r.stdout)).toContain('Result: PASSED');
    expect(String(r.stderr)).toMatch(
      new RegExp(
        `cannot write ${join(dir, 'junit.xml').replace(/[/.]/g, '\\$&')}, nor the fallback \\S+junit\\.xml: writing .* did not finish within`,
      ),
    );
  });

  it('a SIGTERM while reports are written ends the suite at once', async () => {
    const { execa } = await import('execa');
    const dir = tempDir();
    const child = execa(
      'node',
      ['--import', hangingRenames(dir), CLI, '--server', referenceCommand(), '--check', 'discover/*', ...reportsIn(dir)],
      {
        reject: false,
        env: { NO_COLOR: '1' },
        timeout: 30_000,
      },
    );
    await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => String(d).includes('Result: PASSED') && resolve()));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const r = await child;
    expect(Date.now() - signalled).toBeLessThan(2000);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr).trim()).toBe('mcp-conformance: interrupted while writing reports by SIGTERM');
  });
});

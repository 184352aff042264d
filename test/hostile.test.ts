/**
 * Hostile and broken servers never break the suite. For each behaviour of
 * fixtures/servers/hostile/hostile.js: the run ends on its own, the reports
 * exist and are valid, the verdict names the behaviour, and no process of
 * the server is left (a process scan by the marker on its command line).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { runConformance, type RunOptions } from '../engine/run.js';
import { renderConsole, writeReports } from '../render/index.js';
import type { CheckResult, RunResult, SubjectResult } from '../model/results.js';
import { listeningUrl, silentServer, urlHint } from '../harness/silence.js';
import { CLI, freePort, HOSTILE, processesWith, ROOT, tempDir } from './helpers.js';

const SERVER = join(HOSTILE, 'hostile.js');

interface Outcome {
  result: RunResult;
  json: RunResult;
  xml: string;
  text: string;
}

/**
 * Small limits so every behaviour ends quickly; the run deadline bounds whatever is left.
 * The hostile server is a small conformant core plus one misbehaviour: the areas below
 * are the ones it answers in full (the wire as a whole, server/discover, tools/list).
 */
const FAST: RunOptions = {
  requestTimeoutMs: 1000,
  checkTimeoutMs: 8000,
  runTimeoutMs: 30_000,
  shutdownGraceMs: 300,
  checks: ['discover/*', 'tools-list/*', 'transport/*', 'protocol/*'],
};

/**
 * Run the suite against one behaviour, write and read back every report, and
 * prove that no process carrying the run's marker survived.
 */
async function hostile(behaviour: string, opts: { http?: boolean; serverArgs?: string[]; run?: RunOptions } = {}): Promise<Outcome> {
  const marker = `m${randomUUID()}`;
  const command = ['node', SERVER, '--behaviour', behaviour, '--tag', marker, ...(opts.serverArgs ?? [])];
  let target: RunOptions;
  if (opts.http) {
    const port = await freePort();
    target = { command: [...command, '--http', String(port)].join(' '), url: `http://127.0.0.1:${port}/mcp` };
  } else {
    target = { command: command.join(' ') };
  }
  const result = await runConformance({ ...FAST, ...target, ...opts.run });
  // The run ended on its own (the engine returned, within the deadline or cut by it), and nothing broke inside the suite.
  expect(result.durationMs).toBeGreaterThan(0);
  expect(result.harnessErrors).toEqual([]);
  const dir = tempDir();
  const junitPath = join(dir, 'junit.xml');
  const jsonPath = join(dir, 'results.json');
  await writeReports(result, { junitPath, jsonPath });
  const xml = readFileSync(junitPath, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as RunResult;
  expect(json.exitCode).toBe(result.exitCode);
  const text = renderConsole(result, { color: false });
  expect(processesWith(marker)).toEqual([]);
  return { result, json, xml, text };
}

function check(run: RunResult, id: string): CheckResult {
  const c = run.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no result for ${id}`);
  return c;
}

function only(run: RunResult, id: string): SubjectResult {
  return check(run, id).results[0]!;
}

/** Checks with a fail or warn. */
function broken(run: RunResult): string[] {
  return run.checks.filter((c) => c.results.some((r) => r.verdict === 'fail' || r.verdict === 'warn')).map((c) => c.id);
}

interface JunitCase {
  name: string;
  failure: boolean;
  error: boolean;
  /** The failure body and system-out, as text. */
  text: string;
}

/** The JUnit testcases. */
function junitCases(xml: string): JunitCase[] {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml);
  return (doc.testsuites.testsuite as Array<{ testcase?: Array<Record<string, unknown>> }>)
    .flatMap((s) => s.testcase ?? [])
    .map((t) => ({
      name: String(t['@_name']),
      failure: 'failure' in t,
      error: 'error' in t,
      text: strings([t.failure, t['system-out']]).join('\n'),
    }));
}

/** Every string inside a parsed XML fragment. */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (typeof node !== 'object' || node === null) return [];
  return Object.values(node).flatMap(strings);
}

/** The behaviour's verdict shows in the console, the JUnit file and the JSON report alike. */
function inEveryReport(o: Outcome, id: string, message: RegExp): void {
  const results = check(o.json, id).results;
  expect(results.some((r) => r.findings.some((f) => message.test(f.actual)) || message.test(r.reason ?? ''))).toBe(true);
  expect(o.text).toMatch(message);
  const verdicts = new Set(results.map((r) => r.verdict));
  const cases = junitCases(o.xml).filter((t) => t.name.startsWith(`${id} [`));
  if (verdicts.has('fail')) expect(cases.some((t) => t.failure)).toBe(true);
  else expect(cases.some((t) => t.text.includes('WARNING: requirement not fully met'))).toBe(true);
  expect(cases.some((t) => message.test(t.text))).toBe(true);
}

describe('silence', () => {
  it('a server that never answers ends the run with exit 2, named as such after one wait, with what to try', async () => {
    const o = await hostile('silent');
    expect(o.result.exitCode).toBe(2);
    // --timeout 1 s: the probe and the initialize fallback each wait 1 s (together one request timeout, each at least the probe's).
    const cause =
      'the server answered nothing within 2 s (server/discover, then initialize on a fresh connection): ' +
      'is it an MCP stdio server? does it need --url (it may be an HTTP server)? try a longer --timeout';
    expect(o.result.aborted).toBe(cause);
    expect(junitCases(o.xml).find((t) => t.name === 'run/aborted')?.error).toBe(true);
    expect(o.text).toContain(`ABORTED: ${cause}`);
  });

  it('an HTTP endpoint that answers nothing is named as such, asking whether the URL is the MCP endpoint', async () => {
    const o = await hostile('silent', { http: true });
    expect(o.result.exitCode).toBe(2);
    expect(o.result.aborted).toBe(
      'the server answered nothing within 2 s (server/discover, then initialize on a fresh connection): is the URL its MCP endpoint? try a longer --timeout',
    );
  });

  it('an HTTP server launched without --url is recognised from its own output, and the hint names --url with its URL', async () => {
    const port = await freePort();
    // Launched as a stdio server, the hostile server in HTTP mode prints "listening on <url>" to stderr and reads nothing on stdin.
    const o = await hostile('silent', { serverArgs: ['--http', String(port)] });
    expect(o.result.exitCode).toBe(2);
    expect(o.result.aborted).toMatch(
      new RegExp(
        `^the server answered nothing on stdio within 2 s .*, and it says "listening on http://127\\.0\\.0\\.1:${port}/mcp": ` +
          `it looks like a Streamable HTTP server; run with --url http://127\\.0\\.0\\.1:${port}/mcp \\(`,
      ),
    );
  });

  it('a server silent on tools/list fails the checks that need it, and the others still run', async () => {
    const o = await hostile('silent-tools-list');
    expect(o.result.exitCode).toBe(1);
    expect(only(o.result, 'tools-list/result-schema').findings[0]!.actual).toBe('no answer within 1 s to tools/list');
    expect(only(o.result, 'tools-list/name-format')).toMatchObject({
      verdict: 'not-observed',
      reason: expect.stringMatching(/no answer within 1 s to tools\/list/),
    });
    expect(only(o.result, 'discover/result').verdict).toBe('pass');
    expect(only(o.result, 'protocol/no-response-to-notification').verdict).toBe('pass');
    inEveryReport(o, 'tools-list/result-schema', /no answer within 1 s to tools\/list/);
  });

  it('a check that overruns its budget is not-observed and says what it waited for; the run deadline cuts the rest', async () => {
    const o = await hostile('silent-tools-list', { run: { requestTimeoutMs: 60_000, checkTimeoutMs: 1000, runTimeoutMs: 3000 } });
    expect(o.result.exitCode).toBe(2);
    expect(only(o.result, 'tools-list/result-schema')).toMatchObject({
      verdict: 'not-observed',
      reason: 'the check did not finish within its budget of 1 s (still waiting for tools/list)',
    });
    expect(o.result.aborted).toBe('the run deadline of 3 s was reached');
    const notRun = o.result.checks.flatMap((c) => c.results).filter((r) => r.reason === 'not run: the run deadline of 3 s was reached');
    expect(notRun.length).toBeGreaterThan(0);
    // Observers still judge what the run saw.
    expect(only(o.result, 'transport/stdout-json-rpc-only').verdict).toBe('pass');
  });
});

describe('crashes', () => {
  it('a server that exits at start: exit 2 and the cause in one line', async () => {
    const o = await hostile('exit-at-start');
    expect(o.result.exitCode).toBe(2);
    expect(o.result.aborted).toMatch(/exited with code 3; stderr ends: fatal: cannot open database/);
    expect(o.result.aborted!.match(/cannot open database/g)).toHaveLength(1);
  });

  it('a crash on tools/list fails the check in flight with the exit code, the request and stderr, and restarts the server', async () => {
    const o = await hostile('crash-tools-list', { run: { maxRestarts: 1 } });
    expect(o.result.exitCode).toBe(1);
    const first = only(o.result, 'tools-list/result-schema');
    expect(first.verdict).toBe('fail');
    expect(first.findings[0]!.actual).toMatch(
      /connection closed before tools\/list was answered: server process exited with code 70; stderr ends: panic: runtime error/,
    );
    expect(first.findings[0]!.wire.some((f) => f.dir === 'out' && f.text.includes('"method":"tools/list"'))).toBe(true);
    expect(first.reason).toMatch(/restarted for the remaining checks \(restart 1 of at most 1\)/);
    // The restarted server crashed again on the next check; then no restart was left.
    expect(only(o.result, 'tools-list/deterministic-order').findings[0]!.actual).toMatch(/exited with code 70/);
    expect(only(o.result, 'tools-list/unique-names').reason).toMatch(
      /^not run: the server process stopped 2 time\(s\) and no restart is left \(--max-restarts 1\)/,
    );
    expect(only(o.result, 'protocol/messages-schema-valid').verdict).toBe('pass');
    inEveryReport(o, 'tools-list/result-schema', /exited with code 70/);
  });
});

describe('garbage on the wire is a transport violation, never a crash', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['banner', 'transport/stdout-json-rpc-only', /a line that is not JSON: Hostile MCP server v1\.0/],
    ['not-jsonrpc', 'transport/stdout-json-rpc-only', /JSON that is not a JSON-RPC 2\.0 message: \{"status":"ok"/],
    ['unknown-id', 'protocol/response-ids', /a response with id "hostile-\d+", which the suite never used/],
    ['duplicate', 'protocol/response-ids', /answered request .* a second time/],
    ['notification-response', 'protocol/no-response-to-notification', /a response with a null id that answers no request/],
    ['server-request', 'protocol/no-server-requests', /a JSON-RPC request \(sampling\/createMessage, id "srv-1"\)/],
  ];
  for (const [behaviour, id, message] of cases) {
    it(`${behaviour}: ${id} fails, everything else passes`, async () => {
      const o = await hostile(behaviour);
      expect(o.result.exitCode, o.text).toBe(1);
      expect(broken(o.result)).toEqual([id]);
      inEveryReport(o, id, message);
    });
  }

  it('HTTP: an SSE event that is not JSON fails transport/http-json-rpc-only', async () => {
    const o = await hostile('banner', { http: true });
    expect(broken(o.result)).toEqual(['transport/http-json-rpc-only']);
    inEveryReport(o, 'transport/http-json-rpc-only', /not JSON: \[info\] handled/);
  });
});

describe('size and floods', () => {
  // Moving 50 MB through a pipe takes a while on a busy machine: the answer behind it gets a longer timeout.
  // The spec sets no size limit: a message over --max-message-size is no finding, only unread (not observed).
  it('a 50 MB line is dropped unbuffered and reported; the run goes on', async () => {
    const o = await hostile('huge-line', { run: { requestTimeoutMs: 15_000 } });
    expect(o.result.exitCode).toBe(0);
    expect(broken(o.result)).toEqual([]);
    const r = only(o.result, 'protocol/messages-schema-valid');
    expect(r.verdict).toBe('not-observed');
    expect(r.reason).toMatch(/a stdout line exceeded the maximum message size \(8388608 bytes.*--max-message-size/);
  });

  it('an endless line: reported once, later answers are lost and time out', async () => {
    const o = await hostile('endless-line', {
      run: { checks: ['discover/*', 'tools-list/result-schema', 'transport/*', 'protocol/messages-schema-valid'], jobs: 1 },
    });
    expect(o.result.exitCode).toBe(1);
    expect(only(o.result, 'protocol/messages-schema-valid').reason).toMatch(
      /^1 message\(s\) could not be validated: a stdout line exceeded/,
    );
    expect(only(o.result, 'tools-list/result-schema').findings[0]!.actual).toBe('no answer within 1 s to tools/list');
  });

  it('a flood of notifications: every one counted, the log bounded, the answers still come', async () => {
    const o = await hostile('flood', { run: { requestTimeoutMs: 10_000 } });
    expect(broken(o.result)).toEqual(['protocol/messages-schema-valid']);
    expect(only(o.result, 'tools-list/result-schema').verdict).toBe('pass');
    const first = only(o.result, 'protocol/messages-schema-valid').findings[0]!;
    expect(first.actual).toMatch(/required property 'level'.*\(([\d,]+) such messages in the run; the first 5 shown\)/);
    expect(Number(/\(([\d,]+) such/.exec(first.actual)![1]!.replace(/,/g, ''))).toBeGreaterThan(1000);
  });

  it('HTTP: a flood on an SSE stream and an SSE event that never ends', async () => {
    const flood = await hostile('flood', { http: true, run: { requestTimeoutMs: 10_000 } });
    expect(broken(flood.result)).toEqual(['protocol/messages-schema-valid']);
    expect(only(flood.result, 'tools-list/result-schema').verdict).toBe('pass');
    const endless = await hostile('endless-line', {
      http: true,
      run: { checks: ['tools-list/result-schema', 'protocol/messages-schema-valid'], maxMessageBytes: 1024 * 1024 },
    });
    expect(only(endless.result, 'protocol/messages-schema-valid').reason).toMatch(
      /an SSE event exceeded the maximum message size \(1048576 bytes\)/,
    );
    expect(only(endless.result, 'tools-list/result-schema').findings[0]!.actual).toBe('no answer within 1 s to tools/list');
  });
});

describe('process hygiene', () => {
  it('a server that ignores stdin close and SIGTERM is killed with its child and its grandchild in another session', async () => {
    const o = await hostile('stubborn');
    expect(o.result.exitCode).toBe(0);
    expect(broken(o.result)).toEqual(['transport/exits-on-stdin-close']);
    inEveryReport(
      o,
      'transport/exits-on-stdin-close',
      /exited neither within 0\.3 s after its stdin was closed nor within 0\.3 s of SIGTERM; it was killed with SIGKILL/,
    );
  });

  it('HTTP: a launched server that ignores SIGTERM is killed with everything it started', async () => {
    const o = await hostile('stubborn', { http: true });
    expect(o.result.exitCode).toBe(0);
    expect(broken(o.result)).toEqual([]);
  });
});

describe('hostile schemas', () => {
  it('too deep, too large, cyclic or remote: judged within bounds, never fetched, never overflowing', async () => {
    const o = await hostile('schemas');
    const byTool = new Map(check(o.result, 'tools-list/input-schema-valid').results.map((r) => [r.subject, r]));
    expect(byTool.get('tool:deep')).toMatchObject({
      verdict: 'not-observed',
      reason: expect.stringMatching(/nested more than 128 levels deep/),
    });
    expect(byTool.get('tool:huge_enum')).toMatchObject({
      verdict: 'not-observed',
      reason: expect.stringMatching(/an enum of 200,000 values/),
    });
    expect(byTool.get('tool:cycle')).toMatchObject({ verdict: 'not-observed', reason: expect.stringMatching(/recurses without end/) });
    expect(byTool.get('tool:remote_ref')!.findings[0]!.actual).toBe(
      'unresolved $ref "https://schemas.example.invalid/point.json": network URIs are never dereferenced',
    );
    // The pattern is valid JSON Schema; matching it is what is bounded (see limits.test.ts).
    expect(byTool.get('tool:redos')!.verdict).toBe('pass');
    expect(o.result.harnessErrors).toEqual([]);
    inEveryReport(o, 'tools-list/input-schema-valid', /network URIs are never dereferenced/);
  });
});

describe('passive subscription observers', () => {
  it('a notification type nobody asked for, 50 ms after the acknowledgment, fails subscriptions/only-requested with no trigger configured', async () => {
    const o = await hostile('unrequested-notification', { run: { checks: ['subscriptions/*'] } });
    expect(o.result.exitCode).toBe(1);
    expect(broken(o.result)).toEqual(['subscriptions/only-requested']);
    const r = only(o.result, 'subscriptions/only-requested');
    expect(r.verdict).toBe('fail');
    const f = r.findings[0]!;
    expect(f.actual).toMatch(/^notifications\/resources\/list_changed .*arrived for /);
    // The wire: the listen request with its filter, and the notification.
    expect(f.wire.map((w) => w.dir)).toEqual(['out', 'in']);
    expect(f.wire[0]!.text).toContain('"toolsListChanged":true');
    expect(f.wire[1]!.text).toContain('notifications/resources/list_changed');
    inEveryReport(o, 'subscriptions/only-requested', /notifications\/resources\/list_changed .*arrived for /);
  });
});

/** Every behaviour of the hostile server, for the whole-catalogue sweep. */
const BEHAVIOURS = execFileSync('node', [SERVER, '--list-behaviours'], { encoding: 'utf8' }).trim().split('\n');

describe('the whole catalogue against every hostile behaviour', () => {
  const WHOLE: RunOptions = { checks: [], runTimeoutMs: 60_000, checkTimeoutMs: 15_000, runs: 6 };

  it('knows every behaviour', () => {
    expect(BEHAVIOURS).toEqual(
      expect.arrayContaining(['schemas', 'redos-input', 'redos-output', 'redos-pattern-properties', 'deep', 'flood', 'stubborn']),
    );
  });

  describe.concurrent('each ends by itself within the deadline, with reports, no internal error and no process left', () => {
    for (const behaviour of BEHAVIOURS) {
      it(behaviour, async () => {
        const o = await hostile(behaviour, { run: WHOLE });
        expect(o.result.durationMs).toBeLessThan(WHOLE.runTimeoutMs! + 10_000);
        expect(o.text).not.toMatch(/internal error of the suite|internal error: |Maximum call stack/);
        if (o.result.exitCode === 2) expect(o.result.aborted).toBeTruthy();
        if (o.result.exitCode === 1) expect(broken(o.result).length).toBeGreaterThan(0);
      });
    }
  });

  /** The Done-when cases: each ends within --deadline, exits 1 or 2 with a clear cause, and leaves no process. */
  const cases: Array<[string, string, string, RegExp]> = [
    [
      'redos-input',
      'tools-call/valid-result',
      'tool:match',
      /^no arguments are generated for this inputSchema: pattern "\^\(a\+\)\+\$" backtracks catastrophically/,
    ],
    [
      'redos-output',
      'tools-call/structured-content-valid',
      'tool:report',
      /pattern "\^\(a\+\)\+\$" could not be evaluated within 500 ms \(catastrophic backtracking\)/,
    ],
    ['redos-pattern-properties', 'tools-call/valid-result', 'tool:keys', /pattern "\^\(a\+\)\+\$" (backtracks catastrophically|overran)/],
    ['deep', 'tools-list/input-schema-valid', 'tool:deep', /nested more than 128 levels deep/],
    ['schemas', 'tools-list/input-schema-valid', 'tool:deep', /nested more than 128 levels deep/],
  ];
  for (const [behaviour, id, subject, cause] of cases) {
    it(`${behaviour}: the whole catalogue ends within --deadline, exit 1 or 2, ${id} [${subject}] not-observed with the cause`, async () => {
      const o = await hostile(behaviour, { run: WHOLE });
      expect([1, 2]).toContain(o.result.exitCode);
      expect(o.result.durationMs).toBeLessThan(WHOLE.runTimeoutMs!);
      const r = check(o.result, id).results.find((x) => x.subject === subject)!;
      expect(r).toMatchObject({ verdict: 'not-observed', reason: expect.stringMatching(cause) });
      expect(o.text).not.toMatch(/internal error of the suite|internal error: |Maximum call stack/);
    });
  }

  it("--check 'statelessness/*' against the schemas behaviour: no stack overflow", async () => {
    const o = await hostile('schemas', { run: { checks: ['statelessness/*'] } });
    expect(o.result.harnessErrors).toEqual([]);
    expect(o.text).not.toMatch(/Maximum call stack|internal error of the suite|internal error: /);
    expect(o.result.exitCode).not.toBe(2);
  });

  it('a 5000-level result is judged without overflowing: structuredContent nested 5000 deep', async () => {
    const o = await hostile('deep', { run: { checks: ['tools-call/*'], runs: 4 } });
    expect(o.text).not.toMatch(/Maximum call stack|internal error of the suite|internal error: /);
    expect(o.result.harnessErrors).toEqual([]);
  });
});

describe('hostile strings', () => {
  it('terminal escapes, fake PASS lines, control characters and markup are escaped in every report', async () => {
    const o = await hostile('strings');
    // Console: no escape sequence, carriage return, bell or NUL reaches the terminal.
    expect(o.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\x9b\u202e]/);
    expect(o.text).toContain('\\x1b[32m✓ PASS\\x1b[0m');
    expect(o.text.split('\n').filter((l) => /^\s*✓ discover\/result\s+fake/.test(l))).toEqual([]);
    // stderr too, where the console shows it.
    expect(o.result.stderr).toContain('warning: \x1b[2K');
    const verbose = renderConsole(o.result, { color: false, verbose: true });
    expect(verbose).toContain('Server stderr');
    expect(verbose).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\x9b\u202e]/);
    // JUnit: valid XML, no injected testcase, no raw control character.
    expect(junitCases(o.xml).some((t) => t.name === 'fake')).toBe(false);
    expect(o.xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    // JSON: the strings survive exactly, as escapes.
    const names = check(o.json, 'tools-list/name-format').results.map((r) => r.subject);
    expect(names.some((n) => n.startsWith('tool:evil\x1b[2K'))).toBe(true);
    expect(broken(o.result).sort()).toEqual(['protocol/no-response-to-notification', 'tools-list/name-format']);
  });
});

describe('secrets', () => {
  const secret = `sk-live-${randomUUID()}`;

  function noSecret(o: Outcome): void {
    expect(o.text).not.toContain(secret);
    expect(o.xml).not.toContain(secret);
    expect(JSON.stringify(o.json)).not.toContain(secret);
    expect(JSON.stringify(o.json)).toContain('[REDACTED]');
  }

  it('an environment value echoed in messages and stderr never reaches a report', async () => {
    const o = await hostile('secrets', { run: { env: { HOSTILE_SECRET: secret } } });
    expect(o.result.exitCode).toBe(0);
    expect(o.result.stderr).toContain('my secret is [REDACTED]');
    noSecret(o);
  });

  it('HTTP: a header value echoed in messages never reaches a report', async () => {
    const o = await hostile('secrets', { http: true, run: { headers: { Authorization: `Bearer ${secret}` } } });
    expect(broken(o.result)).toEqual(['transport/http-json-rpc-only']);
    expect(only(o.result, 'transport/http-json-rpc-only').findings[0]!.actual).toContain('not JSON: hello [REDACTED]');
    expect(JSON.stringify(o.json)).not.toContain(secret.slice(8));
    noSecret(o);
  });
});

/** Resolves once `path` exists, or rejects after `ms`. */
function fileAppears(path: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const dir = join(path, '..');
    const watcher = watch(dir, () => {
      if (existsSync(path)) finish();
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${path} did not appear within ${ms} ms`));
    }, ms);
    const finish = () => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    if (existsSync(path)) finish();
  });
}

/** Resolves true once `cond` holds (checked every 50 ms), false when `ms` pass first. */
function until(cond: () => boolean, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const end = Date.now() + ms;
    const tick = () => {
      if (cond()) return resolve(true);
      if (Date.now() > end) return resolve(false);
      setTimeout(tick, 50);
    };
    tick();
  });
}

describe('the suite interrupted or failing itself', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} mid-run: exit 2, reports written with the cause, no process left`, async () => {
      const dir = tempDir();
      const marker = `m${randomUUID()}`;
      const ready = join(dir, 'ready');
      const cli = execa(
        'node',
        [
          CLI,
          '--server',
          `node ${SERVER} --behaviour silent-tools-list --stubborn --ready-file ${ready} --tag ${marker}`,
          '--timeout',
          '30000',
          '--shutdown-timeout',
          '300',
          '--junit',
          join(dir, 'junit.xml'),
          '--json',
          join(dir, 'results.json'),
        ],
        { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } },
      );
      await fileAppears(ready, 20_000);
      cli.kill(signal);
      const r = await cli;
      expect(r.exitCode).toBe(2);
      expect(String(r.stderr).trim()).toBe(`mcp-conformance: interrupted by ${signal}`);
      const run = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;
      expect(run.aborted).toBe(`interrupted by ${signal}`);
      expect(only(run, 'tools-list/result-schema').reason).toBe(`tools/list was abandoned: interrupted by ${signal}`);
      expect(only(run, 'tools-list/unique-names').reason).toBe(`not run: interrupted by ${signal}`);
      const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(junitCases(xml).find((t) => t.name === 'run/aborted')?.error).toBe(true);
      expect(processesWith(marker)).toEqual([]);
    });
  }

  it('SIGTERM while the run thread is CPU-bound: exit 2 within 2 s, reports written from the finished checks, no process left', async () => {
    const dir = tempDir();
    const marker = `m${randomUUID()}`;
    const ready = join(dir, 'ready');
    // Once the server has answered tools/list, the run thread (not the watchdog) spins for good.
    const busy = join(dir, 'busy.mjs');
    writeFileSync(
      busy,
      `import { isMainThread } from 'node:worker_threads';
import { existsSync, watch } from 'node:fs';
if (!isMainThread) {
  const w = watch(${JSON.stringify(dir)}, () => {
    if (existsSync(${JSON.stringify(ready)})) { w.close(); setImmediate(() => { for (;;) {} }); }
  });
}`,
    );
    const cli = execa(
      'node',
      [
        '--import',
        busy,
        CLI,
        '--server',
        `node ${SERVER} --behaviour none --stubborn --ready-file ${ready} --tag ${marker}`,
        '--junit',
        join(dir, 'j.xml'),
        '--json',
        join(dir, 'r.json'),
      ],
      { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } },
    );
    await fileAppears(ready, 20_000);
    const sent = Date.now();
    cli.kill('SIGTERM');
    const r = await cli;
    expect(Date.now() - sent).toBeLessThan(2000);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/^mcp-conformance: interrupted by SIGTERM \(the run did not stop within 1\.5 s/);
    const run = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as RunResult;
    expect(run.aborted).toMatch(/^interrupted by SIGTERM/);
    expect(run.exitCode).toBe(2);
    expect(XMLValidator.validate(readFileSync(join(dir, 'j.xml'), 'utf8'))).toBe(true);
    expect(processesWith(marker)).toEqual([]);
  });

  it('SIGKILL of the suite: a process scan finds no launched server within 5 s (the reaper ends them)', async () => {
    const dir = tempDir();
    const marker = `m${randomUUID()}`;
    const ready = join(dir, 'ready');
    const cli = execa(
      'node',
      [
        CLI,
        '--server',
        `node ${SERVER} --behaviour silent-tools-list --stubborn --ready-file ${ready} --tag ${marker}`,
        '--timeout',
        '30000',
        '--junit',
        join(dir, 'j.xml'),
        '--json',
        join(dir, 'r.json'),
      ],
      { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } },
    );
    await fileAppears(ready, 20_000);
    // The server, its child and its grandchild in a session of its own.
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(3);
    cli.kill('SIGKILL');
    const r = await cli;
    expect(r.signal).toBe('SIGKILL');
    expect(await until(() => processesWith(marker).length === 0, 5000)).toBe(true);
  });

  it('an internal error of the suite: exit 2, one line, no process left', async () => {
    const dir = tempDir();
    const marker = `m${randomUUID()}`;
    const ready = join(dir, 'ready');
    // A fault injected into the suite's own process once the server is up and has started its children.
    const fault = join(dir, 'fault.mjs');
    writeFileSync(
      fault,
      `import { existsSync, watch } from 'node:fs';
const w = watch(${JSON.stringify(dir)}, () => {
  if (existsSync(${JSON.stringify(ready)})) { w.close(); setImmediate(() => { throw new Error('injected fault'); }); }
});`,
    );
    const r = await execa(
      'node',
      [
        '--import',
        fault,
        CLI,
        '--server',
        `node ${SERVER} --behaviour silent-tools-list --stubborn --ready-file ${ready} --tag ${marker}`,
        '--timeout',
        '30000',
      ],
      { cwd: ROOT, reject: false, env: { NO_COLOR: '1' }, timeout: 60_000 },
    );
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr).trim()).toBe('mcp-conformance: internal error: injected fault');
    expect(processesWith(marker)).toEqual([]);
  });
});

describe('what a server that answers nothing says about itself', () => {
  it('recognises the URL of a startup line, trailing punctuation left off; a URL in other text is not taken', () => {
    expect(listeningUrl(['booting', 'Server running at http://localhost:3000/mcp.'])).toEqual({
      url: 'http://localhost:3000/mcp',
      line: 'Server running at http://localhost:3000/mcp.',
    });
    expect(listeningUrl(['MCP server listening on https://0.0.0.0:8443 (Ctrl-C to stop)'])?.url).toBe('https://0.0.0.0:8443');
    expect(listeningUrl(['docs: see http://example.com/help'])).toBeUndefined();
    expect(listeningUrl(['nothing here'])).toBeUndefined();
  });

  it('a server that wrote something gets what it wrote, plus --url when it named one; HTTP targets get no --url hint', () => {
    const heard = { url: 'http://127.0.0.1:3000/mcp', line: 'listening on http://127.0.0.1:3000/mcp' };
    expect(urlHint('stdio', heard)).toBe(
      '; it says "listening on http://127.0.0.1:3000/mcp": if it is a Streamable HTTP server, run with --url http://127.0.0.1:3000/mcp',
    );
    expect(urlHint('http', heard)).toBe('');
    expect(silentServer('http', 10_000)).toMatch(/^the server answered nothing within 10 s .*: is the URL its MCP endpoint\?/);
  });
});

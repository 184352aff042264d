/**
 * Helpers of the CI-gate tests: the CLI with a chosen environment, the
 * junit-10.xsd validator, and a result model holding every verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { validateXML } from 'xmllint-wasm';
import type { CheckResult, RunResult, SubjectResult } from '../model/results.js';
import { summarize } from '../model/results.js';
import { CLI, ROOT } from './helpers.js';

/** A check that fails on the reference server with exactly that defect (MUST). */
export const FAIL_BREAK = 'tools-list/stable-across-connections';
/** A check that warns on the reference server with exactly that defect (SHOULD). */
export const WARN_BREAK = 'tools-list/unique-names';

/** Run the built CLI with `env` added to a clean environment (no GitHub variables unless given); never rejects. */
export async function cli(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    GITHUB_ACTIONS: undefined,
    GITHUB_STEP_SUMMARY: undefined,
    ...opts.env,
  };
  const r = await execa('node', [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    reject: false,
    timeout: opts.timeoutMs ?? 60_000,
    env,
    extendEnv: false,
  });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const XSD = readFileSync(join(ROOT, 'test/data/junit/junit-10.xsd'), 'utf8');

/** Validates JUnit XML against the Jenkins xunit junit-10.xsd; returns the validator's messages. */
export async function junitErrors(xml: string): Promise<string[]> {
  const r = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] });
  return r.valid ? [] : r.errors.map((e) => e.message);
}

function subject(name: string, verdict: SubjectResult['verdict'], extra: Partial<SubjectResult> = {}): SubjectResult {
  return { subject: name, verdict, findings: [], durationMs: 12.3456, ...extra };
}

function check(id: string, level: CheckResult['level'], results: SubjectResult[]): CheckResult {
  const area = id.split('/')[0]!;
  return {
    id,
    area,
    title: `the ${id} rule`,
    level,
    spec: { revision: 'draft', page: 'server/tools', section: 'Error Handling' },
    requirement: `Servers ${level} do ${id}.`,
    transports: ['stdio', 'http'],
    revisions: ['modern'],
    results,
  };
}

/** A run with pass, fail, warn, skip, not-observed and an expected (baselined) fail. */
export function everyVerdict(over: Partial<RunResult> = {}): RunResult {
  const wire = [
    { seq: 1, at: 1, dir: 'out' as const, connection: 1, text: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
    { seq: 2, at: 2, dir: 'in' as const, connection: 1, text: '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"a"}]}}' },
  ];
  const checks: CheckResult[] = [
    check('tools-list/a-pass', 'MUST', [subject('server', 'pass')]),
    check('tools-list/b-fail', 'MUST', [
      subject('server', 'fail', {
        findings: [{ requirement: 'Servers MUST answer <tools/list>.', expected: 'a result', actual: 'an error & "junk"', wire }],
      }),
    ]),
    check('tools-list/c-warn', 'SHOULD', [
      subject('tool:a', 'warn', {
        findings: [{ requirement: 'Names SHOULD be unique.', expected: 'one tool named a', actual: 'two tools named a', wire }],
      }),
    ]),
    check('tools-call/d-skip', 'MUST', [subject('server', 'skip', { reason: 'the server does not declare the tools capability' })]),
    check('tools-call/e-not-observed', 'MUST', [subject('tool:slow', 'not-observed', { reason: 'not called: name it with --tools' })]),
    check('tools-call/f-expected', 'MUST', [
      subject('server', 'fail', {
        expected: { reason: 'issue #12' },
        findings: [{ requirement: 'Servers MUST do f.', expected: 'f', actual: 'not f', wire: [] }],
      }),
    ]),
  ];
  return {
    tool: { name: 'mcp-conformance', version: '0.1.0' },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 4321,
    target: { transport: 'stdio', command: 'node server.js' },
    revision: '2026-07-28',
    strict: false,
    seed: 7,
    checks,
    summary: summarize(checks),
    stderr: 'booting\nError: something <odd> & "quoted"\n',
    harnessErrors: [],
    baseline: {
      path: 'baseline.yaml',
      expected: 1,
      stale: [
        {
          check: 'tools-list/a-pass',
          reason: 'was broken',
          why: 'tools-list/a-pass no longer fails or warns: remove the entry from the baseline',
        },
      ],
      unconfirmed: [],
    },
    exitCode: 1,
    ...over,
  };
}

/**
 * The kill matrix: the reference server passes every check, and each broken
 * variant (`--break <check id>`) is caught by exactly that check, over stdio
 * and over Streamable HTTP. A check with no broken variant fails this file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { runConformance } from '../engine/run.js';
import { catalogue } from '../suites/index.js';
import type { RunResult } from '../model/results.js';
import {
  brokenChecks,
  describeRun,
  freePort,
  expectPartCaught,
  expectQuoted,
  inKillMatrix,
  partBreaks,
  REFERENCE,
  referenceCommand,
  ROOT,
} from './helpers.js';
import type { TransportKind } from '../model/wire.js';

const breaks = execFileSync('node', [REFERENCE, '--list-breaks'], { encoding: 'utf8' }).trim().split('\n');
/**
 * A folder the reference serves file:// resources from (`--file-root`), and a
 * canary file beside it, outside the root, for resources/path-traversal.
 */
const files = mkdtempSync(join(tmpdir(), 'mcp-conformance-files-'));
const fileRoot = join(files, 'root');
mkdirSync(fileRoot);
writeFileSync(join(fileRoot, 'hello.txt'), 'Hello from the file root.\n');
const canary = { path: join(files, 'canary.txt'), text: 'mcp-conformance canary: outside the file root' };
writeFileSync(canary.path, `${canary.text}\n`);

/**
 * The reference server's own fixture file: what generic probing cannot know
 * (trigger, slow tool, capability tool, fixtures), and where its files are.
 */
const config = { ...loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config, resources: { fileRoot, canary } };

/**
 * Server options every run uses: `--empty-cursor` makes the server give the
 * legal empty-string cursor, so the empty-cursor checks have something to judge;
 * `--file-root` serves the files of the root above.
 */
const SERVER_OPTIONS = ['--empty-cursor', '--file-root', fileRoot];

/**
 * Reference tools that are not read-only and that the configuration does not
 * allow to be called with generated arguments: set_extra_tool changes the
 * tool list (it is the list-changed trigger; set_extra_entry, the prompts and
 * resources ones), slow takes up to a minute,
 * needs_elicitation is the configuration's capabilityTool, end_subscriptions
 * ends every open subscription (the subscriptionEnd trigger). The
 * tools-call checks report them not-observed, with why; that is the verdict
 * a user sees for such tools, so the matrix accepts it for them alone.
 */
/** Generated tool calls are drawn from a fixed seed, so every matrix run sends the same calls. */
const SEED = 20261130;
/** Generated calls per tool and check: enough to hit every defect, few enough to keep the matrix quick. */
const RUNS = 5;

const SIDE_EFFECT_TOOLS = [
  'tool:set_extra_tool',
  'tool:set_extra_entry',
  'tool:slow',
  'tool:release_slow',
  'tool:needs_elicitation',
  'tool:end_subscriptions',
];

/**
 * The authorization checks (authorization/*) judge a protected server: they are proven below, with the
 * reference in authorization mode (--auth) and the run's embedded issuer; without it they skip, saying so.
 */
const isAuthorization = (id: string) => id.startsWith('authorization/');

/**
 * The reference in authorization mode over Streamable HTTP, trusting the run's embedded issuer
 * (MCP_CONFORMANCE_ISSUER); `checks` narrows the run (default: the whole catalogue).
 */
async function runAuthorized(serverArgs: string[], checks?: string[]): Promise<RunResult> {
  const port = await freePort();
  return runConformance({
    command: referenceCommand('--http', String(port), '--auth', ...SERVER_OPTIONS, ...serverArgs),
    url: `http://127.0.0.1:${port}/mcp`,
    authorization: { embedded: true },
    requestTimeoutMs: 5000,
    config,
    seed: SEED,
    runs: RUNS,
    ...(checks ? { checks } : {}),
  });
}

/**
 * Part defects that change only the answers to requests without a token or with a hostile one (which only
 * the authorization checks send) are proven on a run of the authorization checks; every other
 * authorization defect on a run of the whole catalogue (all-scopes changes the scopes the valid token needs).
 */
const WHOLE_CATALOGUE_PARTS = new Set(['authorization/insufficient-scope#all-scopes']);

async function run(transport: TransportKind, ...serverArgs: string[]): Promise<RunResult> {
  const args = [...SERVER_OPTIONS, ...serverArgs];
  if (transport === 'stdio')
    return runConformance({ command: referenceCommand(...args), requestTimeoutMs: 5000, config, seed: SEED, runs: RUNS });
  const port = await freePort();
  return runConformance({
    command: referenceCommand('--http', String(port), ...args),
    url: `http://127.0.0.1:${port}/mcp`,
    requestTimeoutMs: 5000,
    config,
    seed: SEED,
    runs: RUNS,
  });
}

/**
 * Areas whose judgement rests on the connection or its framing (a stdio
 * connection is a process of its own, with its own newline framing; an HTTP
 * one is a request and its stream): a check of one of them that applies to
 * both transports has its defect proven on both.
 */
const CONNECTION_AREAS = new Set([
  'subscriptions',
  'cancellation',
  'statelessness',
  'protocol',
  'encoding',
  'progress',
  'versioning',
  'meta',
  'logging',
]);

/**
 * Whether a check's own variant runs on `transport`: on every transport it applies to when its area is a
 * connection area (or it applies to one transport), else on Streamable HTTP only, one server process a run where a
 * stdio run starts one per fresh connection. The reference's passing run, the false-failure guard, runs on both.
 */
function provenOn(check: (typeof catalogue)[number], transport: TransportKind): boolean {
  if (transport === 'http' || !check.transports.includes('http')) return true;
  return CONNECTION_AREAS.has(check.area);
}

describe('kill matrix', () => {
  afterAll(() => rmSync(files, { recursive: true, force: true }));

  it('has exactly one broken variant per check in the catalogue, and part variants only of parts that exist', () => {
    expect(breaks.filter((b) => !b.includes('#')).sort()).toEqual(catalogue.map((c) => c.id).sort());
    for (const { id, check, part } of partBreaks(breaks)) expect(catalogue.find((c) => c.id === check)?.parts?.[part], id).toBeDefined();
  });

  // Each run is its own server process(es) and waits mostly on I/O: the runs go concurrently
  // (vitest's maxConcurrency), each asserting through its own test context's expect.
  for (const transport of ['stdio', 'http'] as const) {
    describe.concurrent(transport, () => {
      it('the reference server passes every check (skips only where the transport or the era does not apply)', async ({ expect }) => {
        const result = await run(transport);
        const info = describeRun(result);
        expect(result.aborted, info).toBeUndefined();
        expect(result.exitCode, info).toBe(0);
        for (const check of result.checks) {
          for (const r of check.results) {
            if (r.verdict === 'skip' && isAuthorization(check.id) && transport === 'http') {
              expect(r.reason, check.id).toMatch(/^authorization is not active/);
            } else if (r.verdict === 'skip') {
              const applies = check.transports.includes(transport) && check.revisions.includes('modern');
              expect(applies, `${check.id}: ${r.reason}`).toBe(false);
            } else if (r.verdict === 'not-observed' && SIDE_EFFECT_TOOLS.includes(r.subject)) {
              expect(r.reason).toMatch(/^not called with (valid|invalid) arguments/);
            } else expect(r.verdict, `${check.id} [${r.subject}] ${r.reason ?? ''}`).toBe('pass');
          }
        }
      });

      // Checks of the legacy era only are proven in kill-matrix-legacy.test.ts.
      for (const check of catalogue.filter(
        (c) =>
          c.transports.includes(transport) &&
          provenOn(c, transport) &&
          c.revisions.includes('modern') &&
          inKillMatrix(c.id) &&
          !isAuthorization(c.id),
      )) {
        it(`--break ${check.id} is caught by ${check.id} alone`, async ({ expect }) => {
          const result = await run(transport, '--break', check.id);
          const info = describeRun(result);
          expect(result.aborted, info).toBeUndefined();
          expect(brokenChecks(result), info).toEqual([check.id]);
          const verdicts = result.checks.find((c) => c.id === check.id)!.results.map((r) => r.verdict);
          expect(verdicts, info).toContain(check.level === 'MUST' ? 'fail' : 'warn');
          // Other checks may lose their subject to the defect (not-observed, with the reason), never fail or warn.
          expectQuoted(expect, result, check, check, 'modern');
          expect(result.exitCode).toBe(check.level === 'MUST' ? 1 : 0);
        });
      }

      // A part variant breaks one further sentence of a check: that check alone catches it, with the part's own quote.
      // It is proven on one transport, Streamable HTTP where the check applies there (one server process a run, where a
      // stdio run starts one per fresh connection), as the check's own variant is outside the connection areas (provenOn).
      for (const { id, check: checkId, part } of partBreaks(breaks)) {
        const check = catalogue.find((c) => c.id === checkId)!;
        if (!check.transports.includes(transport) || !check.revisions.includes('modern') || !inKillMatrix(checkId)) continue;
        if (isAuthorization(checkId)) continue;
        if (transport === 'stdio' && check.transports.includes('http')) continue;
        // A part only the 2025-11-25 pages state (e.g. the elicitation/create parameters) is the legacy era's: kill-matrix-legacy.test.ts.
        if (check.parts![part]!.spec.revision === '2025-11-25') continue;
        it(`--break ${id} is caught by ${checkId} alone, on its part ${part}`, async ({ expect }) => {
          expectPartCaught(expect, await run(transport, '--break', id), check, part, 'modern');
        });
      }
    });
  }
  // Authorization mode: the whole catalogue runs against a protected reference (the session layer sends the
  // valid token on every request); each authorization defect is caught by its check alone, with its quote.
  describe.concurrent('http, authorization mode (--auth, the embedded issuer)', () => {
    it('the reference server in authorization mode passes every check', async ({ expect }) => {
      const result = await runAuthorized([]);
      const info = describeRun(result);
      expect(result.aborted, info).toBeUndefined();
      expect(result.exitCode, info).toBe(0);
      expect(result.authorization, info).toMatchObject({ source: 'embedded', scopes: ['mcp'] });
      for (const check of result.checks) {
        for (const r of check.results) {
          if (r.verdict === 'skip') {
            const applies = check.transports.includes('http') && check.revisions.includes('modern');
            expect(applies, `${check.id}: ${r.reason}`).toBe(false);
          } else if (r.verdict === 'not-observed' && SIDE_EFFECT_TOOLS.includes(r.subject)) {
            expect(r.reason).toMatch(/^not called with (valid|invalid) arguments/);
          } else expect(r.verdict, `${check.id} [${r.subject}] ${r.reason ?? ''}`).toBe('pass');
        }
      }
    });

    for (const check of catalogue.filter((c) => isAuthorization(c.id) && inKillMatrix(c.id))) {
      it(`--break ${check.id} is caught by ${check.id} alone`, async ({ expect }) => {
        const result = await runAuthorized(['--break', check.id]);
        const info = describeRun(result);
        expect(result.aborted, info).toBeUndefined();
        expect(brokenChecks(result), info).toEqual([check.id]);
        expectQuoted(expect, result, check, check, 'modern');
        expect(result.exitCode).toBe(check.level === 'MUST' ? 1 : 0);
      });
    }

    for (const { id, check: checkId, part } of partBreaks(breaks).filter((b) => isAuthorization(b.check) && inKillMatrix(b.check))) {
      const check = catalogue.find((c) => c.id === checkId)!;
      it(`--break ${id} is caught by ${checkId} alone, on its part ${part}`, async ({ expect }) => {
        const result = await runAuthorized(['--break', id], WHOLE_CATALOGUE_PARTS.has(id) ? undefined : ['authorization/*']);
        expectPartCaught(expect, result, check, part, 'modern');
      });
    }
  });
});

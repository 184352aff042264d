/**
 * The kill matrix in the legacy era (2025-11-25): the reference server in
 * `--era legacy` passes every check that applies to the legacy era, over
 * stdio and HTTP, and each broken variant of such a check is caught by that
 * check alone: checks of the legacy era only on every transport they apply
 * to, checks of both eras on Streamable HTTP where they apply there, else on
 * stdio (their modern variants: kill-matrix.test.ts, see provenOn there).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { runConformance } from '../engine/run.js';
import { catalogue } from '../suites/index.js';
import type { RunResult } from '../model/results.js';
import { execFileSync } from 'node:child_process';
import {
  brokenChecks,
  describeRun,
  freePort,
  expectPartCaught,
  expectQuoted,
  inKillMatrix,
  killMatrixFiltered,
  partBreaks,
  REFERENCE,
  referenceCommand,
  ROOT,
} from './helpers.js';
import type { TransportKind } from '../model/wire.js';

/** The reference server's fixture file (which non-read-only tools the generated calls may call), as in kill-matrix.test.ts. */
const config = loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config;

/**
 * Tools the generated tools/call checks do not call with valid arguments
 * (not read-only, not named by the configuration): those report
 * not-observed, with why; the matrix accepts it for them alone. ask_client
 * is the legacy era's tool that sends sampling/createMessage; queued_report
 * runs only as a task (execution.taskSupport "required"), so no call without
 * one is generated for it.
 */
const SIDE_EFFECT_TOOLS = [
  'tool:set_extra_tool',
  'tool:set_extra_entry',
  'tool:slow',
  'tool:release_slow',
  'tool:needs_elicitation',
  'tool:ask_client',
  'tool:end_subscriptions',
  'tool:queued_report',
];
const acceptedNotObserved = (r: { verdict: string; subject: string; reason?: string }) =>
  r.verdict === 'not-observed' &&
  SIDE_EFFECT_TOOLS.includes(r.subject) &&
  /^not called with (valid|invalid) arguments/.test(r.reason ?? '');

async function run(transport: TransportKind, ...serverArgs: string[]): Promise<RunResult> {
  const base = { spec: '2025-11-25', requestTimeoutMs: 5000, seed: 20261130, runs: 5, config };
  if (transport === 'stdio')
    return runConformance({ command: referenceCommand('--era', 'legacy', '--empty-cursor', ...serverArgs), ...base });
  const port = await freePort();
  return runConformance({
    command: referenceCommand('--http', String(port), '--era', 'legacy', '--empty-cursor', ...serverArgs),
    url: `http://127.0.0.1:${port}/mcp`,
    ...base,
  });
}

/** The authorization checks judge a protected server: proven below, with the reference in authorization mode (--auth). */
const isAuthorization = (id: string) => id.startsWith('authorization/');

/**
 * The legacy reference in authorization mode over Streamable HTTP, trusting the run's embedded issuer;
 * `checks` narrows the run (default: the whole catalogue).
 */
async function runAuthorized(serverArgs: string[], checks?: string[]): Promise<RunResult> {
  const port = await freePort();
  return runConformance({
    command: referenceCommand('--http', String(port), '--era', 'legacy', '--auth', '--empty-cursor', ...serverArgs),
    url: `http://127.0.0.1:${port}/mcp`,
    authorization: { embedded: true },
    spec: '2025-11-25',
    requestTimeoutMs: 5000,
    seed: 20261130,
    runs: 5,
    config,
    ...(checks ? { checks } : {}),
  });
}

const legacyChecks = catalogue.filter((c) => c.revisions.includes('legacy'));
/**
 * Part variants of the checks of the legacy era (a part of a check of both eras is proven here on HTTP where it applies there, like its
 * check): the parts the 2025-11-25 pages state (their own citation, or a legacy one). A part only the draft states
 * (e.g. the trace-context values of _meta) is not judged in the legacy era; kill-matrix.test.ts proves it.
 */
const legacyParts = partBreaks(execFileSync('node', [REFERENCE, '--list-breaks'], { encoding: 'utf8' }).trim().split('\n')).filter((b) => {
  const check = catalogue.find((c) => c.id === b.check);
  const part = check?.parts?.[b.part];
  return !!check?.revisions.includes('legacy') && !!part && (part.spec.revision === '2025-11-25' || !!part.legacy);
});

describe('kill matrix, legacy era', () => {
  it('covers every check of the legacy era, and the lifecycle area is legacy-only', () => {
    expect(legacyChecks.length).toBeGreaterThan(0);
    for (const c of catalogue.filter((c) => c.area === 'lifecycle')) expect(c.revisions).toEqual(['legacy']);
  });

  // Each run is its own server process(es) and waits mostly on I/O: the runs go concurrently
  // (vitest's maxConcurrency), each asserting through its own test context's expect.
  for (const transport of ['stdio', 'http'] as const) {
    describe.concurrent(transport, () => {
      it.skipIf(killMatrixFiltered)(
        'the reference server passes every check of the legacy era (skips only where the transport or the era does not apply)',
        async ({ expect }) => {
          const result = await run(transport);
          const info = describeRun(result);
          expect(result.aborted, info).toBeUndefined();
          expect(result.era, info).toMatchObject({ era: 'legacy', negotiatedVersion: '2025-11-25' });
          expect(result.exitCode, info).toBe(0);
          for (const check of result.checks) {
            for (const r of check.results) {
              if (r.verdict === 'skip' && isAuthorization(check.id) && transport === 'http' && check.revisions.includes('legacy')) {
                expect(r.reason, check.id).toMatch(/^authorization is not active/);
              } else if (r.verdict === 'skip') {
                const applies = check.transports.includes(transport) && check.revisions.includes('legacy');
                expect(applies, `${check.id}: ${r.reason}`).toBe(false);
              } else if (!acceptedNotObserved(r)) expect(r.verdict, `${check.id} [${r.subject}] ${r.reason ?? ''}`).toBe('pass');
            }
          }
        },
      );

      const proven = legacyChecks.filter(
        // A check of both eras is proven here on one transport: Streamable HTTP where it applies there (one server
        // process a run, where a stdio run starts one per fresh connection), else stdio. Its modern variant: kill-matrix.test.ts.
        (c) => c.transports.includes(transport) && (c.revisions.length === 1 || transport === 'http' || !c.transports.includes('http')),
      );
      for (const check of proven.filter((c) => inKillMatrix(c.id) && !isAuthorization(c.id))) {
        it(`--break ${check.id} is caught by ${check.id} alone`, async ({ expect }) => {
          const result = await run(transport, '--break', check.id);
          const info = describeRun(result);
          expect(result.aborted, info).toBeUndefined();
          expect(brokenChecks(result), info).toEqual([check.id]);
          const verdicts = result.checks.find((c) => c.id === check.id)!.results.map((r) => r.verdict);
          expect(verdicts, info).toContain(check.level === 'MUST' ? 'fail' : 'warn');
          for (const c of result.checks) {
            for (const r of c.results)
              if (!acceptedNotObserved(r)) expect(r.verdict, `${c.id} [${r.subject}] ${r.reason ?? ''}`).not.toBe('not-observed');
          }
          expectQuoted(expect, result, check, check, 'legacy');
          expect(result.exitCode).toBe(check.level === 'MUST' ? 1 : 0);
        });
      }

      for (const { id, check: checkId, part } of legacyParts) {
        const check = catalogue.find((c) => c.id === checkId)!;
        if (!check.transports.includes(transport) || !inKillMatrix(checkId) || isAuthorization(checkId)) continue;
        // One transport per part variant, as in kill-matrix.test.ts: Streamable HTTP where the check applies there.
        if (transport === 'stdio' && check.transports.includes('http')) continue;
        it(`--break ${id} is caught by ${checkId} alone, on its part ${part}`, async ({ expect }) => {
          expectPartCaught(expect, await run(transport, '--break', id), check, part, 'legacy');
        });
      }
    });
  }
  // Authorization mode, legacy era: the whole catalogue passes against the protected reference; each defect of a
  // check or part the 2025-11-25 page states is caught by that check alone, with the legacy quote (on a run of the
  // authorization checks: the defects change only answers to requests without a token or with a hostile one,
  // and kill-matrix.test.ts proves the modern ones on the whole catalogue).
  describe.concurrent('http, authorization mode (--auth, the embedded issuer)', () => {
    it.skipIf(killMatrixFiltered)('the legacy reference server in authorization mode passes every check', async ({ expect }) => {
      const result = await runAuthorized([]);
      const info = describeRun(result);
      expect(result.aborted, info).toBeUndefined();
      expect(result.exitCode, info).toBe(0);
      for (const check of result.checks) {
        for (const r of check.results) {
          if (r.verdict === 'skip') {
            const applies = check.transports.includes('http') && check.revisions.includes('legacy');
            expect(applies, `${check.id}: ${r.reason}`).toBe(false);
          } else if (!acceptedNotObserved(r)) expect(r.verdict, `${check.id} [${r.subject}] ${r.reason ?? ''}`).toBe('pass');
        }
      }
    });

    for (const check of legacyChecks.filter((c) => isAuthorization(c.id) && inKillMatrix(c.id))) {
      it(`--break ${check.id} is caught by ${check.id} alone`, async ({ expect }) => {
        const result = await runAuthorized(['--break', check.id], ['authorization/*']);
        const info = describeRun(result);
        expect(result.aborted, info).toBeUndefined();
        expect(brokenChecks(result), info).toEqual([check.id]);
        expectQuoted(expect, result, check, check, 'legacy');
      });
    }

    for (const { id, check: checkId, part } of legacyParts.filter((b) => isAuthorization(b.check) && inKillMatrix(b.check))) {
      const check = catalogue.find((c) => c.id === checkId)!;
      it(`--break ${id} is caught by ${checkId} alone, on its part ${part}`, async ({ expect }) => {
        expectPartCaught(expect, await runAuthorized(['--break', id], ['authorization/*']), check, part, 'legacy');
      });
    }
  });
});

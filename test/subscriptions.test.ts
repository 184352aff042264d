/**
 * What the subscription, cancellation and capability checks do when the
 * configuration file does not tell them how to exercise the server: they are
 * not-observed (never passed), and a trigger that changes nothing or fails
 * says so.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../engine/run.js';
import type { RunResult } from '../model/results.js';
import { join } from 'node:path';
import { loadConfig } from '../engine/config.js';
import { describeRun, freePort, referenceCommand, ROOT } from './helpers.js';

function verdicts(run: RunResult): Record<string, string> {
  return Object.fromEntries(run.checks.map((c) => [c.id, c.results.map((r) => `${r.verdict}: ${r.reason ?? ''}`).join(' | ')]));
}

describe('without a configuration file', () => {
  const needsConfig = [
    'subscriptions/only-requested',
    'subscriptions/list-changed',
    'subscriptions/demultiplex',
    'subscriptions/graceful-close',
    'meta/missing-capability',
  ];

  it('HTTP: the checks that need a trigger or a named tool are not-observed, the others still pass', async () => {
    const port = await freePort();
    const run = await runConformance({
      command: referenceCommand('--http', String(port)),
      url: `http://127.0.0.1:${port}/mcp`,
      checks: ['subscriptions/*', 'meta/*'],
      requestTimeoutMs: 5000,
    });
    const v = verdicts(run);
    for (const id of needsConfig)
      expect(v[id], describeRun(run)).toMatch(
        /^not-observed: no (listChanged\.trigger|capabilityTool|subscriptionEnd\.trigger|request of the run was answered with -32021, and there is no capabilityTool)/,
      );
    for (const id of [
      'subscriptions/acknowledged-first',
      'subscriptions/subscription-id',
      'subscriptions/http-sse',
      'meta/required-fields',
    ]) {
      expect(v[id], describeRun(run)).toMatch(/^pass/);
    }
  });

  it('stdio: cancelling the slow tool needs a slowTool; cancel-ends is judged up to a later response', async () => {
    const run = await runConformance({
      command: referenceCommand(),
      checks: ['cancellation/*', 'subscriptions/cancel-ends'],
      requestTimeoutMs: 5000,
    });
    const v = verdicts(run);
    expect(v['cancellation/no-response-after-cancel'], describeRun(run)).toMatch(/^not-observed: no slowTool/);
    expect(v['subscriptions/cancel-ends'], describeRun(run)).toMatch(/^pass/);
  });

  // Closing stdin is the client's shutdown, not the server ending a subscription on its own initiative.
  it('stdio: a server that exits when its stdin closes gets no warning from any subscription check', async () => {
    const run = await runConformance({ command: referenceCommand(), checks: ['subscriptions/*'], requestTimeoutMs: 5000 });
    const v = verdicts(run);
    for (const [id, verdict] of Object.entries(v)) expect(verdict, `${id}\n${describeRun(run)}`).not.toMatch(/^(warn|fail)/);
    expect(v['subscriptions/graceful-close']).toMatch(/^not-observed: no subscriptionEnd\.trigger in the configuration file/);
  });
});

describe('a subscriptionEnd trigger', () => {
  it('that ends nothing leaves graceful-close not-observed', async () => {
    const run = await runConformance({
      command: referenceCommand(),
      checks: ['subscriptions/graceful-close', 'subscriptions/acknowledged-first'],
      requestTimeoutMs: 1000,
      config: { subscriptionEnd: { trigger: { command: 'true' }, timeoutMs: 300 } },
    });
    expect(verdicts(run)['subscriptions/graceful-close'], describeRun(run)).toMatch(
      /^not-observed: the configured subscriptionEnd\.trigger ran \(the command exited with code 0\), but the subscription did not end within 0\.3 s/,
    );
  });
});

describe('a command trigger', () => {
  it('that changes nothing leaves list-changed not-observed; one that fails says how', async () => {
    const quiet = await runConformance({
      command: referenceCommand(),
      checks: ['subscriptions/list-changed'],
      requestTimeoutMs: 5000,
      notificationTimeoutMs: 200,
      config: { listChanged: { trigger: { command: 'true' } } },
    });
    expect(verdicts(quiet)['subscriptions/list-changed']).toMatch(
      /^not-observed: the trigger ran \(the command exited with code 0\) but tools\/list did not change/,
    );
    const failing = await runConformance({
      command: referenceCommand(),
      checks: ['subscriptions/list-changed'],
      requestTimeoutMs: 5000,
      config: { listChanged: { trigger: { command: 'echo nope >&2; exit 3' } } },
    });
    expect(verdicts(failing)['subscriptions/list-changed']).toMatch(
      /^not-observed: the configured listChanged.trigger failed: the command exited with code 3; stderr: nope/,
    );
  });
});

// One cause, one finding (issue 24): a listen answered under application/json is subscriptions/http-sse's
// finding, decided at its headers; the checks that depend on the listen read the body leniently (newline-separated
// JSON objects included) and judge what they can, or are not-observed naming http-sse. The request timeout is
// far longer than the test's: a wait for it would fail the test, not slow it.
describe('a listen answered under application/json (HTTP, the whole catalogue)', () => {
  const failures = (run: RunResult) =>
    run.checks.filter((c) => c.results.some((r) => r.verdict === 'fail' || r.verdict === 'warn')).map((c) => c.id);
  const runFramed = async (behave: string) => {
    const port = await freePort();
    return runConformance({
      command: referenceCommand('--behave', behave, '--http', String(port)),
      url: `http://127.0.0.1:${port}/mcp`,
      config: loadConfig(join(ROOT, 'fixtures/reference.config.yaml')).config,
      requestTimeoutMs: 600_000,
    });
  };

  it('newline-separated JSON: one failure, the framing; acknowledged-first passes on the acknowledgment it read', async () => {
    const run = await runFramed('newline-json-listen');
    expect(failures(run), describeRun(run)).toEqual(['subscriptions/http-sse']);
    const v = verdicts(run);
    const framing = run.checks.find((c) => c.id === 'subscriptions/http-sse')!.results[0]!;
    expect(JSON.stringify(framing.findings)).toMatch(/application\/json.*its body carried .*notifications\/subscriptions\/acknowledged/);
    expect(v['subscriptions/acknowledged-first'], describeRun(run)).toMatch(/^pass/);
    expect(v['subscriptions/subscription-id'], describeRun(run)).toMatch(/^pass/);
  }, 120_000);

  it('a JSON body that never arrives: one failure, at the headers; the dependants are not-observed naming http-sse', async () => {
    const run = await runFramed('json-listen');
    expect(failures(run), describeRun(run)).toEqual(['subscriptions/http-sse']);
    const v = verdicts(run);
    expect(v['subscriptions/acknowledged-first'], describeRun(run)).toMatch(/^not-observed: .*subscriptions\/http-sse/);
    for (const id of ['subscriptions/list-changed', 'prompts/list-changed', 'resources/list-changed'])
      expect(v[id], describeRun(run)).toMatch(/^not-observed: .*see subscriptions\/http-sse/);
  }, 120_000);
});

/**
 * One tool-call safety policy (suites/safety.ts): `tools.exclude` always wins,
 * over every path that calls tools — generated valid, invalid and probe calls,
 * the input_required survey, fixtures, statelessness and the tools the
 * configuration file names. Proven from the wire: the server logs the name of
 * every tools/call it receives.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../engine/run.js';
import { isHeldBack, namedTools, whyNotCallable, whyNotCallableAsWritten } from '../suites/safety.js';
import type { Config } from '../model/config.js';
import { HOSTILE, tempDir } from './helpers.js';

const SERVER = join(HOSTILE, 'hostile.js');

/** The config that asks for `.hidden` on every path it can. */
const EVERYTHING: Config = {
  tools: { include: ['*'], allowSideEffects: true },
  fixtures: { '.hidden': { calls: [{ arguments: {}, expect: { outcome: 'complete' } }] } },
  slowTool: { name: '.hidden' },
  capabilityTool: { name: '.hidden', requires: ['roots'] },
  listChanged: { trigger: { tool: '.hidden' }, timeoutMs: 200 },
};

/** Run the suite against the `.hidden` server; returns the tool names the server saw called. */
async function called(checks: string[], config: Config): Promise<string[]> {
  const log = join(tempDir(), 'calls.log');
  const r = await runConformance({
    command: `node ${SERVER} --behaviour hidden --log-calls ${log}`,
    checks,
    config,
    tools: ['*'],
    allowSideEffects: true,
    requestTimeoutMs: 2000,
    checkTimeoutMs: 20_000,
    runTimeoutMs: 120_000,
    shutdownGraceMs: 300,
    runs: 4,
    seed: 7,
  });
  expect(r.harnessErrors).toEqual([]);
  expect(r.aborted ?? '').not.toMatch(/no check (matches|is left to run)/);
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string)
    : [];
}

describe('the policy', () => {
  const scope = (config: Config) => ({ config, settings: { arguments: { include: ['*'], allowSideEffects: true } } });
  it('matches names that start with a dot, and exclusion wins over --tools, --allow-side-effects and read-only', () => {
    const tool = { name: '.hidden', annotations: { readOnlyHint: true } };
    expect(whyNotCallable(scope({ tools: { exclude: ['*'], include: ['*'], allowSideEffects: true } }), tool)).toMatch(
      /excluded by tools.exclude "\*"/,
    );
    expect(whyNotCallableAsWritten(scope({ tools: { exclude: ['*'] } }), '.hidden')).toMatch(/excluded by tools.exclude "\*"/);
    expect(whyNotCallable(scope({}), tool)).toBeUndefined();
    expect(whyNotCallable({ config: { tools: { include: ['*'] } }, settings: {} }, { name: '.hidden' })).toBeUndefined();
    expect(whyNotCallable({ config: {}, settings: {} }, { name: 'x' })).toMatch(/not annotated readOnlyHint: true/);
  });

  it('holds made-up calls of every kind to the same consent, naming what lets them run', () => {
    const none = { config: {}, settings: {} };
    for (const what of ['invalid arguments', 'a protocol probe', 'a task', 'header probes'] as const) {
      expect(whyNotCallable(none, { name: 'x' }, what)).toMatch(new RegExp(`^not called with ${what}: .*--tools`));
      expect(whyNotCallable(none, { name: 'x', annotations: { readOnlyHint: true } }, what)).toBeUndefined();
    }
    // A tool the file names in a key (its calls written by the user) is still not called with made-up arguments.
    expect(whyNotCallable({ config: { slowTool: { name: 'x' } }, settings: {} }, { name: 'x' }, 'invalid arguments')).toBeDefined();
    expect(isHeldBack(none, { name: 'x' })).toBe(true);
    expect(isHeldBack({ config: { tools: { exclude: ['x'] } }, settings: {} }, { name: 'x' })).toBe(false);
    const config: Config = {
      slowTool: { name: 'a' },
      taskTool: { name: 'b' },
      capabilityTool: { name: 'c', requires: ['roots'] },
      listChanged: { trigger: { tool: 'd' }, undo: { command: 'true' }, prompts: { trigger: { tool: 'e' } } },
      subscriptionEnd: { trigger: { tool: 'f' } },
      fixtures: { g: {} },
    };
    expect([...namedTools(config)].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });
});

describe('tools.exclude wins on every path (from the wire)', () => {
  // Each path, without the exclusion, does call .hidden: the log can see it.
  const paths: Array<[string, string[]]> = [
    ['generated calls', ['tools-call/valid-result', 'tools-call/invalid-rejected']],
    ['the input_required survey', ['mrtr/input-or-state']],
    ['fixtures', ['fixtures/outcome']],
    ['statelessness', ['statelessness/fresh-connection', 'statelessness/list-unaffected']],
    ['the configured tools', ['meta/missing-capability', 'cancellation/*']],
  ];
  for (const [what, checks] of paths) {
    it(`without it, ${what} call .hidden`, async () => {
      expect(await called(checks, EVERYTHING)).toContain('.hidden');
    });
  }

  it("with tools.exclude: ['*'], the whole catalogue sends no tools/call for .hidden", async () => {
    const names = await called([], { ...EVERYTHING, tools: { ...EVERYTHING.tools, exclude: ['*'] } });
    expect(names).not.toContain('.hidden');
    // Excluded means no tools/call at all: not even invalid arguments or probes.
    expect(names.filter((n) => n === 'echo' || n === 'add' || n === 'now')).toEqual([]);
  });
});

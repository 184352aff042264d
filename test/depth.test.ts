/**
 * The run's depth (engine/depth.ts): "judged N of M applicable checks", the
 * only-not-observed checks grouped by what would let them run, and the
 * console's one line for it, with the calls the suite chose on its own.
 */
import { describe, expect, it } from 'vitest';
import { depthOf, unlockOf } from '../engine/depth.js';
import { renderConsole } from '../render/console.js';
import { summarize, type CheckResult, type RunResult, type Verdict } from '../model/results.js';

function check(id: string, ...results: Array<[Verdict, string?]>): CheckResult {
  return {
    id,
    area: id.split('/')[0]!,
    title: id,
    level: 'MUST',
    spec: { page: 'basic/index', section: 'Section' },
    requirement: `The server MUST satisfy ${id}.`,
    transports: ['stdio', 'http'],
    revisions: ['modern', 'legacy'],
    results: results.map(([verdict, reason], i) => ({
      subject: `s${i}`,
      verdict,
      findings: [],
      durationMs: 1,
      ...(reason ? { reason } : {}),
    })),
  };
}

const checks = [
  check('a/pass', ['pass']),
  check('a/judged-with-gap', ['not-observed', 'no slowTool in the configuration file'], ['warn']),
  check('a/skip', ['skip', 'does not apply']),
  check('b/slow', ['not-observed', 'no slowTool in the configuration file, and none found']),
  check('b/task', ['not-observed', 'no task-capable tool may be called (pass --allow-side-effects): name one as taskTool'], ['skip']),
  check('b/never', ['not-observed', 'the server sent no notifications/cancelled in this run']),
  check('b/list', ['not-observed', 'no listChanged.prompts.trigger in the configuration file']),
];

describe('run depth', () => {
  it('counts applicable (any result but skip) and judged (any pass, fail or warn) checks, and groups the rest by what unlocks them', () => {
    const d = depthOf(checks);
    expect(d.applicable).toBe(6);
    expect(d.judged).toBe(2);
    expect(Object.fromEntries(d.notObserved.map((g) => [g.unlock, g.checks]))).toEqual({
      slowTool: ['b/slow'],
      taskTool: ['b/task'],
      'nothing to set: the event never happened in the run': ['b/never'],
      'listChanged.prompts.trigger': ['b/list'],
    });
  });

  it('names the most specific key a reason mentions', () => {
    expect(unlockOf('no listChanged.resources.trigger in the configuration file')).toBe('listChanged.resources.trigger');
    expect(unlockOf('no listChanged.trigger in the configuration file')).toBe('listChanged.trigger');
    expect(unlockOf('not annotated readOnlyHint: true (name it with --tools or tools.include, or pass --allow-side-effects)')).toMatch(
      /^--allow-side-effects/,
    );
    expect(unlockOf(undefined)).toMatch(/^nothing to set/);
  });

  it('the console prints the depth, the groups and the chosen calls on their own lines', () => {
    const run: RunResult = {
      tool: { name: 'mcp-conformance', version: '0' },
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      target: { transport: 'stdio', command: 'server' },
      revision: '2025-11-25',
      strict: false,
      checks,
      summary: summarize(checks),
      stderr: '',
      harnessErrors: [],
      exitCode: 0,
      depth: depthOf(checks),
      triggers: [{ key: 'slowTool', tool: 'slow', arguments: { n: 1 }, why: '3 progress notification(s)', checks: ['b/slow'] }],
      dualEra: { tested: 'modern', other: 'legacy', hint: 'the server also speaks 2025-11-25 (legacy); --spec all tests both' },
    };
    const text = renderConsole(run, { color: false });
    expect(text).toContain('Depth: judged 2 of 6 applicable checks; only not observed, by what would let them run: ');
    expect(text).toContain('slowTool (1)');
    expect(text).toContain('Chose slowTool: slow {"n":1} (3 progress notification(s)) for b/slow; pin it with slowTool in the config file');
    expect(text).toMatch(/Eras: +both \(the server also speaks 2025-11-25 \(legacy\); --spec all tests both\)/);
  });
});

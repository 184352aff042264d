/**
 * Notes: what no sentence rules but a user wants to know (an endless cursor
 * chain, the same item on several pages, a tool slower than the timeout).
 * Every renderer shows them; none counts them, and they never change a
 * verdict.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { runConformance } from '../engine/run.js';
import { summarize, type CheckResult, type RunResult } from '../model/results.js';
import { renderConsole, renderHtml, renderJson } from '../render/index.js';
import { describeRun, referenceCommand, ROOT } from './helpers.js';

function runWith(notes: string[]): RunResult {
  const checks: CheckResult[] = [
    {
      id: 'prompts/stable-across-connections',
      area: 'prompts',
      title: 'the set of prompts is the same',
      level: 'MUST',
      spec: { revision: 'draft', page: 'server/prompts', section: 'Capabilities' },
      requirement: 'MUST NOT vary',
      transports: ['stdio', 'http'],
      revisions: ['modern'],
      results: [{ subject: 'server', verdict: 'pass', findings: [], durationMs: 1, notes }],
    },
  ];
  return {
    tool: { name: 'mcp-conformance', version: '0.0.0' },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
    target: { transport: 'stdio', command: 'node server.js' },
    revision: '2026-07-28',
    strict: false,
    checks,
    summary: summarize(checks),
    stderr: '',
    harnessErrors: [],
    exitCode: 0,
  };
}

describe('notes', () => {
  const note = 'prompts/list lists 1 prompt name(s) more than once: "haiku" (pages 1, 2) (no sentence forbids it; not judged)';

  it('are shown by the console, the JSON and the HTML report, and counted nowhere', () => {
    const run = runWith([note]);
    expect(renderConsole(run, { color: false })).toContain(`ⓘ note: ${note}`);
    expect(JSON.parse(renderJson(run)).checks[0].results[0].notes).toEqual([note]);
    expect(renderHtml(run)).toContain('<ul class="notes"><li>note: prompts/list lists 1 prompt name(s) more than once');
    expect(run.summary).toEqual(summarize(runWith([]).checks));
  });

  it('an endless cursor chain is a note on the result, not a finding', async () => {
    const { config } = loadConfig(join(ROOT, 'fixtures/reference.config.yaml'));
    // One prompt a page and a walk of at most two pages: the chain has not ended when the walk stops.
    const result = await runConformance({
      command: referenceCommand('--page-size', '1'),
      checks: ['prompts/stable-across-connections', 'discover/result'],
      requestTimeoutMs: 5000,
      maxPages: 2,
      config,
    });
    const r = result.checks.find((c) => c.id === 'prompts/stable-across-connections')!.results[0]!;
    expect(r.verdict, describeRun(result)).toBe('not-observed');
    expect(r.findings).toEqual([]);
    expect(r.notes?.[0], describeRun(result)).toMatch(/^prompts\/list: the cursor chain had not ended after 2 pages/);
  });
});

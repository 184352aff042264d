/**
 * The end of a console run with problems: a recap of the unexpected
 * failures and warnings (one line each), the stale baseline entries and
 * where the full reports are; the other era's skipped checks collapse to one
 * line unless --verbose; the HTML lists failures first.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult, RunResult } from '../model/results.js';
import { liveConsole, renderConsole, renderHtml } from '../render/index.js';
import { cli, everyVerdict, FAIL_BREAK } from './gate-helpers.js';
import { referenceCommand, tempDir } from './helpers.js';

const REPORTS = ['reports/junit.xml', 'reports/results.json', 'reports/report.html'];

/** A legacy-only check, as a modern run skips it. */
function legacyOnly(id: string): CheckResult {
  return {
    id,
    area: 'lifecycle',
    title: `the ${id} rule`,
    level: 'MUST',
    spec: { revision: '2025-11-25', page: 'basic/lifecycle', section: 'Initialization' },
    requirement: 'r',
    transports: ['stdio', 'http'],
    revisions: ['legacy'],
    results: [{ subject: 'server', verdict: 'skip', reason: 'applies to 2025-11-25 (the legacy era) only', findings: [], durationMs: 0 }],
  };
}

function modernRun(): RunResult {
  const run = everyVerdict({ era: { era: 'modern', how: 'detected', evidence: 'server/discover answered' } });
  run.checks.push(legacyOnly('lifecycle/initialize-result'), legacyOnly('lifecycle/version-negotiation'));
  return run;
}

describe('the console recap', () => {
  it('ends a failing run: each unexpected failure and warning, the stale entries, the reports, then the result', () => {
    const text = renderConsole(modernRun(), { color: false, reports: REPORTS });
    const tail = text.slice(text.lastIndexOf('Recap'));
    expect(tail.split('\n')).toEqual([
      'Recap (unexpected failures and warnings, stale baseline entries):',
      '  ✗ tools-list/b-fail  the tools-list/b-fail rule',
      '  ! tools-list/c-warn [tool:a]  the tools-list/c-warn rule',
      '  ✗ stale baseline entry: tools-list/a-pass no longer fails or warns: remove the entry from the baseline',
      'Full reports: reports/junit.xml, reports/results.json, reports/report.html',
      'Result: FAILED (1 fail, 1 stale baseline entry)',
      '',
    ]);
    // The baselined failure is not in the recap.
    expect(tail).not.toContain('f-expected');
  });

  it('a passing run has no recap', () => {
    const run = modernRun();
    run.checks = run.checks.filter((c) => c.id === 'tools-list/a-pass');
    run.baseline = undefined;
    run.exitCode = 0;
    expect(renderConsole(run, { color: false, reports: REPORTS })).not.toContain('Recap');
  });

  it("the other era's skipped checks collapse to one line; --verbose lists them", () => {
    const text = renderConsole(modernRun(), { color: false });
    expect(text).not.toContain('lifecycle/initialize-result');
    expect(text).toContain('2 checks of the 2025-11-25 (legacy) era skipped: this run speaks 2026-07-28 (--verbose lists them)');
    // Other skips stay listed.
    expect(text).toContain('tools-call/d-skip');
    const verbose = renderConsole(modernRun(), { color: false, verbose: true });
    expect(verbose).toContain('- lifecycle/initialize-result');
    expect(verbose).toContain('- lifecycle/version-negotiation');
    expect(verbose).not.toContain('--verbose lists them');
  });

  it('the live console collapses them too, once it knows the era', () => {
    const live = liveConsole({ color: false });
    expect(live.check(legacyOnly('lifecycle/initialize-result'), 'modern')).not.toContain('initialize-result');
    expect(live.check(legacyOnly('lifecycle/initialize-result'), 'legacy')).toContain('initialize-result');
    expect(liveConsole({ color: false, verbose: true }).check(legacyOnly('lifecycle/x'), 'modern')).toContain('lifecycle/x');
    expect(live.end(modernRun())).toContain('2 checks of the 2025-11-25 (legacy) era skipped');
  });
});

describe('the HTML report', () => {
  it('shows failures first: a list of the unexpected failures and warnings, linked, above the areas', () => {
    const html = renderHtml(modernRun());
    const problems = html.indexOf('<section id="problems">');
    expect(problems).toBeGreaterThan(0);
    expect(problems).toBeLessThan(html.indexOf('<section class="area"'));
    const list = html.slice(problems, html.indexOf('</section>', problems));
    expect(list).toContain('<a href="#check-tools-list_b-fail">tools-list/b-fail</a>');
    expect(list).toContain('<a href="#check-tools-list_c-warn">tools-list/c-warn [tool:a]</a>');
    expect(list).toContain('stale baseline entry: tools-list/a-pass');
    expect(list).not.toContain('f-expected');
    expect(html).toContain('<details class="check v-fail" id="check-tools-list_b-fail"');
  });
});

describe('the CLI', () => {
  it('a failing run ends with the recap and the report paths; the legacy skips collapse unless --verbose', async () => {
    const dir = tempDir();
    const paths = [join(dir, 'j.xml'), join(dir, 'r.json'), join(dir, 'r.html')];
    const args = ['--server', referenceCommand('--break', FAIL_BREAK), '--check', 'tools-list/*', '--check', 'lifecycle/*'];
    const reports = ['--junit', paths[0]!, '--json', paths[1]!, '--html', paths[2]!];
    const r = await cli([...args, ...reports]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(-4)).toEqual([
      'Recap (unexpected failures and warnings, stale baseline entries):',
      `  ✗ ${FAIL_BREAK}  a fresh connection sees the same set of tools`,
      `Full reports: ${paths.join(', ')}`,
      'Result: FAILED (1 fail)',
    ]);
    expect(r.stdout).toMatch(
      /\n\d+ checks of the 2025-11-25 \(legacy\) era skipped: this run speaks 2026-07-28 \(--verbose lists them\)\n/,
    );
    expect(r.stdout).not.toContain('lifecycle/initialize-result');
    const verbose = await cli([...args, '--verbose', ...reports]);
    expect(verbose.stdout).toContain('lifecycle/initialize-result');
    expect(verbose.stdout).not.toContain('--verbose lists them');
  });
});

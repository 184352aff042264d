/**
 * GitHub Actions: annotations (workflow commands) when GITHUB_ACTIONS is
 * set, and the Markdown step summary in $GITHUB_STEP_SUMMARY, from a real
 * run against a broken reference server; escaping of what a server sent.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderAnnotations, renderStepSummary } from '../render/index.js';
import { cli, everyVerdict, FAIL_BREAK, WARN_BREAK } from './gate-helpers.js';
import { referenceCommand, ROOT, tempDir } from './helpers.js';

const reports = (dir: string) => [
  '--junit',
  join(dir, 'junit.xml'),
  '--json',
  join(dir, 'results.json'),
  '--html',
  join(dir, 'report.html'),
];

describe('GitHub Actions', () => {
  it('annotates failures as errors and writes the step summary with requirement, expected, actual and the spec link', async () => {
    const dir = tempDir();
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await cli(['--server', referenceCommand('--break', FAIL_BREAK), '--check', 'tools-list/*', ...reports(dir)], {
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(1);
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^::error title=mcp-conformance ${FAIL_BREAK}::FAIL ${FAIL_BREAK}: `));
    expect(errors[0]).toMatch(/%0ARequirement: [^%]*MUST NOT vary per-connection/);
    expect(errors[0]).toContain('%0AExpected: the same');
    expect(errors[0]).toContain(
      '%0ASpec: server/tools#Capabilities (MUST) https://modelcontextprotocol.io/specification/draft/server/tools#capabilities',
    );

    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true); // appended, not replaced
    expect(md).toContain('## mcp-conformance: ❌ FAILED');
    expect(md).toMatch(
      /\| pass \| fail \| warn \| expected \| stale \| skip \| not observed \|\n\| ---: .*\n\| \d+ \| 1 \| 0 \| 0 \| 0 \| \d+ \| \d+ \|/,
    );
    expect(md).toContain('### Failures (1)');
    expect(md).toMatch(/\n> [^\n]*MUST NOT vary per\\-connection or as a side effect of other requests on the connection\.\n/);
    expect(md).toMatch(/- \*\*Expected:\*\* the same \d+ tool name\\\(s\\\) on connection 2/);
    expect(md).toMatch(/- \*\*Actual:\*\* /);
    expect(md).toContain('(https://modelcontextprotocol.io/specification/draft/server/tools#capabilities)');
  });

  it('warnings are warning annotations; nothing is printed outside GitHub Actions', async () => {
    const dir = tempDir();
    const r = await cli(['--server', referenceCommand('--break', WARN_BREAK), '--check', 'tools-list/*', ...reports(dir)], {
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^::warning title=mcp-conformance ${WARN_BREAK}::WARN `, 'm'));
    expect(r.stdout).not.toMatch(/^::error/m);
    const plain = await cli(['--server', referenceCommand('--break', WARN_BREAK), '--check', 'tools-list/*', ...reports(dir)]);
    expect(plain.stdout).not.toMatch(/^::/m);
    expect(existsSync(join(dir, 'summary.md'))).toBe(false);
  });

  it('escapes workflow commands and Markdown; baselined results are listed, never annotated', () => {
    const run = everyVerdict();
    run.checks[1]!.results[0]!.findings[0]!.actual = 'line one\n::error::forged\r100%';
    const a = renderAnnotations(run);
    for (const line of a.trim().split('\n')) expect(line).toMatch(/^::(error|warning|notice) /);
    expect(a).toContain('Actual: line one\\n::error::forged\\r100%25');
    expect(a).not.toContain('f-expected');
    expect(a).toMatch(/^::error title=mcp-conformance stale baseline entry::tools-list\/a-pass no longer fails/m);
    const md = renderStepSummary(run);
    expect(md).toContain('Servers MUST answer &lt;tools/list&gt;.');
    expect(md).toContain('### Expected (in the baseline) (1)');
    expect(md).toContain('- **Baseline reason:** issue \\#12');
    expect(md).toContain('### Stale baseline entries (1)');
    expect(md).toContain('### Warnings (1)');
  });
});

describe('action.yml', () => {
  interface Step {
    id?: string;
    uses?: string;
    run?: string;
    env?: Record<string, string>;
  }
  const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    runs: { using: string; steps: Step[] };
    inputs: Record<string, unknown>;
  };

  it('is a composite action that sets up Node, runs the suite and uploads the reports', () => {
    expect(action.runs.using).toBe('composite');
    const uses = action.runs.steps.map((s) => s.uses).filter(Boolean);
    expect(uses).toEqual(['actions/setup-node@v4', 'actions/upload-artifact@v4']);
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['server', 'url', 'config', 'baseline', 'args', 'node-version', 'reports']),
    );
  });

  it('its run step, executed as the runner would, tests the server and records the exit code', async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const dir = tempDir();
    const output = join(dir, 'github-output');
    writeFileSync(output, '');
    const r = await execa('bash', ['-e', '-c', step.run!], {
      cwd: dir,
      reject: false,
      env: {
        NO_COLOR: '1',
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_OUTPUT: output,
        MCPC_SERVER: 'reference --break ' + FAIL_BREAK,
        MCPC_URL: '',
        MCPC_CONFIG: '',
        MCPC_BASELINE: '',
        MCPC_ARGS: "--check 'tools-list/*' --seed 2",
        MCPC_REPORTS: 'out',
      },
    });
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(readFileSync(output, 'utf8')).toBe('exit-code=1\n');
    for (const f of ['junit.xml', 'results.json', 'report.html']) expect(existsSync(join(dir, 'out', f))).toBe(true);
    const run = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8')) as { checks: Array<{ id: string }> };
    expect(run.checks.every((c) => c.id.startsWith('tools-list/'))).toBe(true);
  });
});

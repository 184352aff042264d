/**
 * GitHub Actions: annotations (workflow commands) when GITHUB_ACTIONS is
 * set, and the Markdown step summary in $GITHUB_STEP_SUMMARY, from a real
 * run against a broken reference server; escaping of what a server sent.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderAnnotations, renderStepSummary } from '../render/index.js';
import { cli, everyVerdict, FAIL_BREAK, WARN_BREAK } from './gate-helpers.js';
import type { RunResult } from '../model/results.js';
import { CLI, referenceCommand, ROOT, tempDir } from './helpers.js';

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
    if?: string;
    uses?: string;
    run?: string;
    shell?: string;
    env?: Record<string, string>;
  }
  const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  const action = parseYaml(text) as {
    runs: { using: string; steps: Step[] };
    inputs: Record<string, { default?: string }>;
  };
  const script = join(ROOT, '.github', 'action', 'run.sh');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const runStep = action.runs.steps.find((s) => s.id === 'run')!;

  it('runs the published package with npx at a pinned version, leaves Node alone unless asked, uploads unless turned off, never evals', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.inputs.version!.default).toBe(version);
    expect(action.inputs['node-version']!.default).toBe('');
    const [setup, run, upload] = action.runs.steps;
    expect(setup).toMatchObject({ uses: 'actions/setup-node@v4', if: "inputs.node-version != ''" });
    expect(run).toBe(runStep);
    expect(upload!.uses).toBe('actions/upload-artifact@v4');
    expect(upload!.if).toContain("inputs.upload-reports == 'true'");
    expect(action.runs.steps).toHaveLength(3);
    // Inputs reach the script only as environment variables: no expression is spliced into a script.
    expect(runStep.run).toBe('bash "$GITHUB_ACTION_PATH/.github/action/run.sh"');
    expect(runStep.env).toMatchObject({ MCPC_VERSION: '${{ inputs.version }}', MCPC_ARGS: '${{ inputs.args }}' });
    const body = readFileSync(script, 'utf8');
    expect(body).toContain('cmd=(npx --yes "mcp-conformance@$MCPC_VERSION")');
    for (const t of [text, body]) {
      expect(t).not.toMatch(/\beval\b/);
      expect(t).not.toMatch(/npm (ci|install|run)/);
    }
  });

  /** The run step as the runner runs it (bash --noprofile --norc -eo pipefail), in a fake GITHUB_* environment. */
  async function runAction(env: Record<string, string>) {
    const workspace = tempDir();
    const output = join(workspace, 'github-output');
    const summary = join(workspace, 'step-summary.md');
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const r = await execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', runStep.run!], {
      cwd: workspace,
      reject: false,
      timeout: 60_000,
      env: {
        NO_COLOR: '1',
        GITHUB_ACTIONS: 'true',
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        MCPC_VERSION: version,
        MCPC_SERVER: '',
        MCPC_URL: '',
        MCPC_CONFIG: '',
        MCPC_BASELINE: '',
        MCPC_ARGS: '',
        MCPC_REPORTS: 'out',
        ...env,
      },
    });
    const read = (f: string) => readFileSync(join(workspace, f), 'utf8');
    return { ...r, workspace, output: read('github-output'), summary: read('step-summary.md') };
  }

  /** A local `npx` first on PATH: it logs its arguments and runs the built CLI (the registry is never asked). */
  function fakeNpx(dir: string): { path: string; log: string } {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const log = join(dir, 'npx-args');
    writeFileSync(
      join(bin, 'npx'),
      `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > ${JSON.stringify(log)}\n[ "$1" = --yes ] && [ "$2" = mcp-conformance@${version} ] || exit 99\nshift 2\nexec node ${JSON.stringify(CLI)} "$@"\n`,
      { mode: 0o755 },
    );
    return { path: `${bin}:${process.env.PATH}`, log };
  }

  it('its script, in a fake GITHUB_* environment: npx at the pinned version, the outputs, the step summary; hostile args stay literal words', async () => {
    const dir = tempDir();
    const npx = fakeNpx(dir);
    const pwned = (n: number) => join(dir, `pwned${n}`);
    const hostile = [`; touch ${pwned(1)}`, `$(touch ${pwned(2)})`, `\`touch ${pwned(3)}\``, `| touch ${pwned(4)}`];
    const args = `--check 'tools-list/*' --seed 2\n${hostile.map((h) => `--skip "${h}"`).join(' ')} --skip $HOME`;
    const r = await runAction({ PATH: npx.path, MCPC_SERVER: `reference --break ${FAIL_BREAK}`, MCPC_ARGS: args });
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(readFileSync(npx.log, 'utf8').split('\n').slice(0, 4)).toEqual([
      '--yes',
      `mcp-conformance@${version}`,
      '--server',
      `reference --break ${FAIL_BREAK}`,
    ]);
    expect(r.output).toBe(`exit-code=1\nreports=${join(r.workspace, 'out')}\n`);
    for (const f of ['junit.xml', 'results.json', 'report.html']) expect(existsSync(join(r.workspace, 'out', f))).toBe(true);
    const run = JSON.parse(readFileSync(join(r.workspace, 'out', 'results.json'), 'utf8')) as RunResult;
    expect(run.checks.length).toBeGreaterThan(0);
    expect(run.checks.every((c) => c.id.startsWith('tools-list/'))).toBe(true);
    expect(run.seed).toBe(2);
    // Each hostile value arrived as one literal word, and nothing ran.
    expect(run.selection?.leftOut.map((l) => l.pattern)).toEqual([...hostile, '$HOME']);
    for (const n of [1, 2, 3, 4]) expect(existsSync(pwned(n))).toBe(false);
    expect(r.stdout).toMatch(new RegExp(`^::error title=mcp-conformance ${FAIL_BREAK}::FAIL `, 'm'));
    expect(r.summary).toContain('## mcp-conformance: ❌ FAILED');
    expect(r.summary).toContain('### Failures (1)');
    expect(r.summary).toContain('**Left out:** 0 checks (not run, not counted)');
  });

  it('an unmatched quote in args ends the step with exit 2 and runs nothing; the command is overridable for tests', async () => {
    const dir = tempDir();
    const ran = join(dir, 'ran');
    // One word per line: a node that creates the file named by its first argument.
    const command = `node\n-e\nrequire('node:fs').writeFileSync(process.argv[1], process.argv.slice(2).join(' '))\n${ran}`;
    const r = await runAction({ MCP_CONFORMANCE_ACTION_COMMAND: command, MCPC_ARGS: "--check 'tools-list/*" });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/::error title=mcp-conformance::the action's args input does not split into words/);
    expect(existsSync(ran)).toBe(false);
    const ok = await runAction({ MCP_CONFORMANCE_ACTION_COMMAND: command, MCPC_ARGS: '' });
    expect(ok.exitCode).toBe(0);
    expect(readFileSync(ran, 'utf8')).toBe('--junit out/junit.xml --json out/results.json --html out/report.html');
    expect(ok.output).toBe(`exit-code=0\nreports=${join(ok.workspace, 'out')}\n`);
  });

  it('an empty version input is refused at once', async () => {
    const r = await runAction({ MCPC_VERSION: '', PATH: fakeNpx(tempDir()).path });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain("the action's version input is empty");
  });
});

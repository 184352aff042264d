/**
 * The library API: `runConformance` with the gate options and the live
 * results stream, and the packed tarball installed into a fresh npm project:
 * the README's commands, the import, and its types. (The vitest example of
 * docs/ci-gate.md runs in a fresh project in test/docs-examples.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../lib/index.js';
import { referenceCommand, ROOT, tempDir } from './helpers.js';
import { FAIL_BREAK } from './gate-helpers.js';

describe('runConformance (library)', () => {
  it('streams each result in order, honours skip and shard, and applies a baseline', async () => {
    const seen: Array<[string, number, number]> = [];
    const run = await runConformance({
      command: referenceCommand('--break', FAIL_BREAK),
      checks: ['tools-list/*'],
      skip: ['tools-list/x-*'],
      baseline: { path: '(inline)', entries: [{ check: FAIL_BREAK, reason: 'known' }] },
      onResult: (e) => void seen.push([e.result.id, e.index, e.total]),
    });
    expect(run.exitCode).toBe(0);
    expect(seen.map(([id]) => id)).toEqual(run.checks.map((c) => c.id));
    expect(seen.map(([, i]) => i)).toEqual(run.checks.map((_, i) => i));
    expect(new Set(seen.map(([, , n]) => n))).toEqual(new Set([run.checks.length]));
    expect(run.checks.some((c) => c.id.startsWith('tools-list/x-'))).toBe(false);
    expect(run.checks.find((c) => c.id === FAIL_BREAK)!.results[0]!.expected).toEqual({ reason: 'known' });

    const half = await runConformance({ command: referenceCommand(), checks: ['discover/*'], shard: { index: 2, total: 2 } });
    expect(half.checks.map((c) => c.id)).toEqual(['discover/server-info']);
  });

  it('never rejects: bad options come back as an aborted run', async () => {
    const run = await runConformance({ command: referenceCommand(), checks: ['no-such/*'] });
    expect(run.exitCode).toBe(2);
    expect(run.aborted).toMatch(/^no check is left to run by --check no-such\/\*/);
  });
});

describe('the packed package in a fresh npm project', () => {
  it('installs without a compiler, runs the README commands, imports typed from "mcp-conformance"', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    const packed = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    const info = JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info[0]!.files.map((f) => f.path);
    for (const f of [
      'LICENSE',
      'mcp-conformance.config.example.yaml',
      'fixtures/reference.config.yaml',
      'action.yml',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'schemas/baseline.schema.json',
      'fixtures/servers/reference/server.js',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('schemas/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // No invented addresses: the package names no repository, homepage or bug tracker it does not have.
    for (const key of ['repository', 'homepage', 'bugs']) expect(pkg[key], key).toBeUndefined();
    expect(pkg.keywords.length).toBeGreaterThan(0);
    expect(Object.keys(pkg.dependencies)).not.toContain('typescript');

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-server', version: '1.0.0', type: 'module', private: true }));
    await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, info[0]!.filename)], { cwd: project });
    expect(existsSync(join(project, 'node_modules/typescript'))).toBe(false);

    // The README's set-up command, as a user of the package types it.
    const run = await execa('npx', ['mcp-conformance', '--server', 'reference', '--check', 'discover/*'], {
      cwd: project,
      reject: false,
      env: { NO_COLOR: '1' },
    });
    expect(run.exitCode, String(run.stdout) + String(run.stderr)).toBe(0);
    expect(String(run.stdout)).toContain('Result: PASSED');
    for (const f of ['junit.xml', 'results.json', 'report.html']) expect(existsSync(join(project, 'reports', f))).toBe(true);
    // The shipped example config validates.
    const config = await execa(
      'npx',
      ['mcp-conformance', '--config', 'node_modules/mcp-conformance/fixtures/reference.config.yaml', '--check', 'discover/*'],
      { cwd: project, reject: false },
    );
    expect(config.exitCode, String(config.stderr)).toBe(0);

    writeFileSync(
      join(project, 'check.ts'),
      [
        "import { runConformance, type RunResult } from 'mcp-conformance';",
        "const run: RunResult = await runConformance({ command: 'node node_modules/mcp-conformance/fixtures/servers/reference/server.js', checks: ['discover/*'] });",
        'const failed: number = run.summary.fail;',
        'console.log(JSON.stringify({ exitCode: run.exitCode, failed }));',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      // A Node project's usual set-up: @types/node (here the suite's own copy) beside the package.
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          typeRoots: [join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    const tsc = await execa('node', [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
      reject: false,
    });
    expect(tsc.exitCode, String(tsc.stdout)).toBe(0);
    const bad = join(project, 'bad.ts');
    writeFileSync(bad, "import { runConformance } from 'mcp-conformance';\nawait runConformance({ command: 1 });\n");
    writeFileSync(
      join(project, 'tsconfig.bad.json'),
      readFileSync(join(project, 'tsconfig.json'), 'utf8').replace('"check.ts"', '"bad.ts"'),
    );
    const tscBad = await execa('node', [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bad.json'], {
      cwd: project,
      reject: false,
    });
    expect(String(tscBad.stdout)).toMatch(/Type 'number' is not assignable to type 'string'/);

    writeFileSync(
      join(project, 'check.mjs'),
      readFileSync(join(project, 'check.ts'), 'utf8').replace(', type RunResult', '').replace(': RunResult', '').replace(': number', ''),
    );
    const lib = await execa('node', ['check.mjs'], { cwd: project });
    expect(JSON.parse(String(lib.stdout))).toEqual({ exitCode: 0, failed: 0 });
  });
});

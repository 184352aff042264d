/**
 * The results matrix (`mcp-conformance matrix`): matrix.json against its
 * published schema (model/matrix.schema.json), the spec authors' view
 * (`--spec-dir` with one sentence changed, then `--compare`: exactly the
 * verdicts of the check quoting it move), and the gateway view (the
 * transparent gateway changes nothing; the faulty one's changes are listed,
 * and the run exits 1). The CLI as a user runs it (the built dist/).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixMove, MatrixResult } from '../model/matrix.js';
import { renderMatrixHtml } from '../render/matrix.js';
import { readValidMatrix } from './matrix-helpers.js';
import { ROOT, runCli, tempDir } from './helpers.js';

const GATEWAY = join(ROOT, 'fixtures/servers/gateway/stdio.js');
const HTTP_GATEWAY = join(ROOT, 'fixtures/servers/gateway/http.js');
const SDK2 = join(ROOT, 'fixtures/servers/sdk2/stdio.js');

function targetsFile(dir: string, yaml: string): string {
  const file = join(dir, 'targets.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('matrix: the spec authors view', () => {
  it('--compare against a spec copy with one sentence changed, or a schema field made required, lists exactly the verdicts that moved', async () => {
    const dir = tempDir();
    const spec = join(dir, 'spec-copy');
    cpSync(join(ROOT, 'spec'), spec, { recursive: true });
    cpSync(join(ROOT, 'schemas'), join(spec, 'schemas'), { recursive: true });
    const page = join(spec, 'draft/server/tools.mdx');
    const sentence = 'with the set of tools currently available to the requesting client';
    const text = readFileSync(page, 'utf8');
    expect(text).toContain(sentence);
    writeFileSync(page, text.replace(sentence, 'with the set of tools available to the requesting client'));
    const targets = targetsFile(
      dir,
      `targets:\n  - label: reference\n    server: reference\n  - label: sdk2-stdio\n    server: node ${SDK2}\n`,
    );
    const common = ['--jobs', '2', '--timeout', '5000', '--check', 'tools-list/*', '--check', 'ping/*'];
    const before = await runCli(['matrix', targets, '--out', join(dir, 'before'), ...common], { timeoutMs: 120_000 });
    expect(before.code, before.stderr).toBe(0);
    const after = await runCli(['matrix', targets, '--out', join(dir, 'after'), '--spec-dir', spec, ...common], { timeoutMs: 120_000 });
    expect(after.code, after.stderr).toBe(0);
    const b = readValidMatrix(join(dir, 'before'));
    const a = readValidMatrix(join(dir, 'after'));
    expect(a.spec?.withheld).toEqual(['tools-list/result-schema']);
    const moved = b.cells.filter((c) => c.check === 'tools-list/result-schema' && c.verdict !== 'not-observed');
    expect(moved.map((c) => c.column).sort()).toEqual(['reference', 'sdk2-stdio']);

    const compare = await runCli(['matrix', '--compare', join(dir, 'before/matrix.json'), join(dir, 'after/matrix.json'), '--json']);
    expect(compare.code, compare.stderr).toBe(1);
    const moves = JSON.parse(compare.stdout) as MatrixMove[];
    expect(moves.map((m) => [m.column, m.check, m.before, m.after, m.worse])).toEqual(
      moved.map((c) => [c.column, c.check, c.verdict, 'not-observed', true]).sort(),
    );
    expect(moves[0]!.detail).toContain('no longer holds');
    const text2 = await runCli(['matrix', '--compare', join(dir, 'before/matrix.json'), join(dir, 'after/matrix.json')]);
    expect(text2.stdout).toContain('worse   reference  tools-list/result-schema: pass → not observed');
    expect(text2.stdout).toContain('2 verdicts moved, 2 worse.');
    // Nothing moved: exit 0.
    const same = await runCli(['matrix', '--compare', join(dir, 'before/matrix.json'), join(dir, 'before/matrix.json')]);
    expect([same.code, same.stdout]).toEqual([0, 'No verdict moved.']);
    // A schema field made required (Tool.icons, which neither server sends): exactly the verdicts that judge it move, to fail.
    const schemaCopy = join(dir, 'schema-copy');
    cpSync(join(ROOT, 'spec'), schemaCopy, { recursive: true });
    cpSync(join(ROOT, 'schemas'), join(schemaCopy, 'schemas'), { recursive: true });
    const schemaFile = join(schemaCopy, 'schemas/2026-07-28/schema.json');
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $defs: Record<string, { required: string[] }> };
    schema.$defs.Tool!.required.push('icons');
    writeFileSync(schemaFile, JSON.stringify(schema));
    const req = await runCli(['matrix', targets, '--out', join(dir, 'required'), '--spec-dir', schemaCopy, ...common], {
      timeoutMs: 120_000,
    });
    expect(req.code, req.stderr).toBe(0);
    const rq = readValidMatrix(join(dir, 'required'));
    expect(rq.spec?.withheld).toEqual([]);
    const icons = rq.cells.filter((c) => c.detail?.includes('icons'));
    expect(icons.map((c) => c.column)).toEqual(expect.arrayContaining(['reference', 'sdk2-stdio']));
    const cmp = await runCli(['matrix', '--compare', join(dir, 'before/matrix.json'), join(dir, 'required/matrix.json'), '--json']);
    expect(cmp.code, cmp.stderr).toBe(1);
    const moved2 = (JSON.parse(cmp.stdout) as MatrixMove[]).map((m) => [m.column, m.check, m.before, m.after]);
    const key = (c: { column: string; check: string }) => b.cells.find((x) => x.column === c.column && x.check === c.check)?.verdict;
    expect(moved2.sort()).toEqual(icons.map((c) => [c.column, c.check, key(c), 'fail']).sort());
    expect(icons.every((c) => key(c) === 'pass')).toBe(true);
    // The withheld verdict's reason reaches the target's own report.
    const report = JSON.parse(readFileSync(join(dir, 'after/targets/reference/results.json'), 'utf8')) as MatrixResult & {
      checks: Array<{ id: string; results: Array<{ reason?: string }> }>;
    };
    expect(report.checks.find((c) => c.id === 'tools-list/result-schema')!.results[0]!.reason).toContain('verdict withheld');
  }, 300_000);
});

describe('matrix: the gateway view', () => {
  it('the transparent gateways (stdio, HTTP) change no verdict; the faulty ones (error ids rewritten to null, MCP-Protocol-Version dropped) have their changes shown, and the run exits 1', async () => {
    const dir = tempDir();
    const targets = targetsFile(
      dir,
      [
        'targets:',
        '  - label: ref-gateway',
        '    server: reference',
        `    via: node ${GATEWAY} --`,
        '  - label: ref-faulty-gateway',
        '    server: reference',
        `    via: node ${GATEWAY} --fault error-id-null --`,
        '  - label: ref-http-gateway',
        '    server: reference --http {port}',
        '    url: http://127.0.0.1:{port}/mcp',
        `    via: node ${HTTP_GATEWAY} --listen {via-port} --upstream http://127.0.0.1:{port}/mcp --`,
        '    viaUrl: http://127.0.0.1:{via-port}/mcp',
        '  - label: ref-http-faulty-gateway',
        '    server: reference --http {port}',
        '    url: http://127.0.0.1:{port}/mcp',
        `    via: node ${HTTP_GATEWAY} --fault drop-protocol-version --listen {via-port} --upstream http://127.0.0.1:{port}/mcp --`,
        '    viaUrl: http://127.0.0.1:{via-port}/mcp',
        '',
      ].join('\n'),
    );
    const checks = ['ping/*', 'tools-list/*', 'error-codes/*', 'resources/not-found'].flatMap((c) => ['--check', c]);
    const r = await runCli(['matrix', targets, '--out', join(dir, 'out'), '--jobs', '2', '--timeout', '3000', ...checks], {
      timeoutMs: 200_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const m = readValidMatrix(join(dir, 'out'));
    expect(m.columns.map((c) => c.id)).toEqual(
      ['ref-gateway', 'ref-faulty-gateway', 'ref-http-gateway', 'ref-http-faulty-gateway'].flatMap((t) => [t, `${t} via gateway`]),
    );
    expect(m.gatewayChanges.filter((g) => g.target === 'ref-gateway' || g.target === 'ref-http-gateway')).toEqual([]);
    expect(m.columns.find((c) => c.id === 'ref-http-gateway via gateway')!.summary).toEqual(
      m.columns.find((c) => c.id === 'ref-http-gateway')!.summary,
    );
    // HTTP: without MCP-Protocol-Version the server refuses the gateway's requests; the checks after discovery cannot judge.
    const http = m.gatewayChanges.filter((g) => g.target === 'ref-http-faulty-gateway');
    expect(http.find((g) => g.check === 'tools-list/result-schema')).toMatchObject({ direct: 'pass', via: 'not-observed' });
    const all = m.gatewayChanges.length;
    const faulty = m.gatewayChanges.filter((g) => g.target === 'ref-faulty-gateway');
    expect(faulty.map((g) => g.check)).toEqual(expect.arrayContaining(['resources/not-found']));
    for (const g of faulty) expect(g.direct).toBe('pass');
    expect(r.stdout).toContain(`Verdicts the gateway changed (${all}):`);
    expect(r.stdout).toContain('ref-faulty-gateway [modern] resources/not-found: directly pass, via the gateway fail');
    const html = readFileSync(join(dir, 'out/matrix.html'), 'utf8');
    expect(html).toContain(`Verdicts the gateway changed (${all})`);
    expect(html.match(/<td class="cell [^"]* changed"/g)).toHaveLength(all);
  }, 300_000);
});

describe('matrix: bad input', () => {
  it('a bad targets file, missing or extra files: one line, exit 2', async () => {
    const dir = tempDir();
    const bad = targetsFile(dir, 'targets:\n  - label: x\n    servr: reference\n');
    const r = await runCli(['matrix', bad, '--out', join(dir, 'out')]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `mcp-conformance matrix: ${bad}: targets[0].servr: unknown key (known: label, server, url, env, config, cwd, flags, via, viaUrl)`,
    ]);
    const none = targetsFile(dir, 'targets:\n  - label: x\n    via: node gw.js --\n');
    expect((await runCli(['matrix', none])).stderr).toBe(`mcp-conformance matrix: ${none}: targets[0]: needs a server or a url`);
    expect((await runCli(['matrix', join(dir, 'missing.yaml')])).code).toBe(2);
    const two = await runCli(['matrix', '--compare', bad]);
    expect([two.code, two.stderr]).toEqual([2, 'mcp-conformance matrix: --compare takes two matrix.json files: before and after']);
  });

  it('a target that cannot start: its column says why, the others run, exit 2', async () => {
    const dir = tempDir();
    const targets = targetsFile(
      dir,
      `targets:\n  - label: gone\n    server: node ${join(dir, 'no-such-server.js')}\n  - label: reference\n    server: reference\n  - label: no-bin\n    server: node {bin:no-such-package:x}\n`,
    );
    const r = await runCli(['matrix', targets, '--out', join(dir, 'out'), '--check', 'tools-list/result-schema'], {
      timeoutMs: 60_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const m = readValidMatrix(join(dir, 'out'));
    const by = Object.fromEntries(m.columns.map((c) => [c.id, c]));
    expect(by.gone!.aborted).toBeDefined();
    expect(by['no-bin']!.aborted).toContain('the package no-such-package is not installed');
    expect(by.reference!.aborted).toBeUndefined();
    expect(r.stdout).toMatch(/gone: could not run: /);
  });
});

describe('matrix: --deadline', () => {
  it('bounds the whole matrix: a run still going at the deadline ends with what it had, its column says so, exit 2', async () => {
    const dir = tempDir();
    const targets = targetsFile(dir, 'targets:\n  - label: reference\n    server: reference\n');
    const r = await runCli(['matrix', targets, '--out', join(dir, 'out'), '--deadline', '1500'], { timeoutMs: 60_000 });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const m = readValidMatrix(join(dir, 'out'));
    expect(m.columns[0]!.aborted).toMatch(/deadline of 1.5 s was reached/);
  });
});

describe('matrix.html: what a server sent stays text', () => {
  it('markup in a detail, a command or a quote is escaped; the page has one script, ours', () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';
    const m: MatrixResult = {
      schemaVersion: 1,
      tool: { name: 'mcp-conformance', version: '0' },
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      columns: [
        {
          id: 't',
          target: 't',
          variant: 'direct',
          transport: 'stdio',
          command: evil,
          revision: '2026-07-28',
          era: 'modern',
          reports: { json: 'a', junit: 'b', html: 'c.html' },
          summary: { pass: 0, fail: 1, warn: 0, skip: 0, notObserved: 0, total: 1 },
          exitCode: 1,
        },
      ],
      rows: [{ id: 'a/b', area: 'a', title: evil, level: 'MUST', spec: { revision: 'draft', page: 'p', section: 's' }, requirement: evil }],
      cells: [{ column: 't', check: 'a/b', verdict: 'fail', subjects: 1, detail: evil, href: 'c.html#check-a/b' }],
      gatewayChanges: [{ target: 't', check: 'a/b', direct: 'pass', via: 'fail', detail: evil }],
      exitCode: 1,
    };
    const html = renderMatrixHtml(m);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

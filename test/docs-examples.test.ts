/**
 * Every command in the docs runs. The fenced blocks of README.md,
 * CONTRIBUTING.md and docs/*.md whose info string carries the word `example`
 * are extracted and run, in document order:
 *
 *   ```sh example                      run in the clone (bash, one command line at a time)
 *   ```sh example fresh-project        run in a fresh npm project that installed the packed package
 *   ```sh example reference            with the bundled reference server as every `--server "…"`
 *   ```ts example fresh-project file=P written to P in the fresh project (for the blocks after it)
 *
 * In a fresh project `npm install [--save-dev] mcp-conformance` stands for the
 * packed tarball, which is installed already (the test never fetches the
 * package from the registry). Each command line must exit 0 and print
 * something. The runner itself is proven on planted examples: a failing one
 * and a silent one are both caught.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers.js';

/** A marked block: where it is, how to run it, and its text. */
interface Example {
  doc: string;
  line: number;
  lang: string;
  fresh: boolean;
  reference: boolean;
  file?: string;
  text: string;
}

/** The marked blocks of one markdown text. */
export function examplesOf(markdown: string, doc: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(?!`)(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${doc}:${i + 1}: a code block that is never closed`);
    const words = open[2]!.split(/\s+/).filter(Boolean);
    if (words.includes('example')) {
      const file = words.find((w) => w.startsWith('file='))?.slice('file='.length);
      out.push({
        doc,
        line: i + 1,
        lang: open[1]!,
        fresh: words.includes('fresh-project'),
        reference: words.includes('reference'),
        ...(file ? { file } : {}),
        text: lines.slice(i + 1, end).join('\n'),
      });
    }
    i = end;
  }
  return out;
}

/** The command lines of a shell block (continuations joined, comments and blank lines left out), as they will run. */
export function commandsOf(example: Example): string[] {
  return example.text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => (example.reference ? l.replace(/--server\s+("[^"]*"|'[^']*')/g, '--server reference') : l))
    .map((l) => (example.fresh ? l.replace(/npm install (--save-dev )?mcp-conformance(?=\s|$)/g, 'true') : l));
}

/** Runs one command line; a problem (failure or silence) as text, or undefined. */
export async function problemOf(command: string, cwd: string): Promise<string | undefined> {
  const r = await execa('bash', ['-o', 'pipefail', '-c', command], {
    cwd,
    reject: false,
    all: true,
    timeout: 240_000,
    env: { NO_COLOR: '1', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  if (r.exitCode !== 0) return `${command}: exit ${r.exitCode ?? r.signal}\n${String(r.all).slice(-2000)}`;
  if (!String(r.stdout).trim()) return `${command}: printed nothing`;
  return undefined;
}

let fresh: Promise<string> | undefined;
/** A fresh npm project with the packed package installed: made once per test process. */
function freshProject(): Promise<string> {
  fresh ??= (async () => {
    const dir = tempDir();
    const packed = await execa('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT });
    const tarball = join(dir, (JSON.parse(String(packed.stdout)) as Array<{ filename: string }>)[0]!.filename);
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-server', version: '1.0.0', type: 'module', private: true }));
    await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', tarball], { cwd: project });
    return project;
  })();
  return fresh;
}

/** Runs the examples in order; every problem found. */
async function runExamples(examples: Example[], clone: string): Promise<string[]> {
  const problems: string[] = [];
  for (const ex of examples) {
    const cwd = ex.fresh ? await freshProject() : clone;
    if (ex.file) {
      mkdirSync(dirname(join(cwd, ex.file)), { recursive: true });
      writeFileSync(join(cwd, ex.file), `${ex.text}\n`);
      continue;
    }
    if (ex.lang !== 'sh') {
      problems.push(`${ex.doc}:${ex.line}: a \`${ex.lang}\` example needs file=PATH (only sh blocks are run)`);
      continue;
    }
    for (const command of commandsOf(ex)) {
      const problem = await problemOf(command, cwd);
      if (problem) problems.push(`${ex.doc}:${ex.line}: ${problem}`);
    }
  }
  return problems;
}

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const examples = DOCS.flatMap((doc) => examplesOf(readFileSync(join(ROOT, doc), 'utf8'), doc));

describe('the examples in the docs', () => {
  it('are found: the README, CONTRIBUTING and the docs pages mark their runnable blocks', () => {
    expect(examples.filter((e) => e.doc === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(examples.some((e) => e.fresh && e.file)).toBe(true);
    expect(examples.some((e) => e.reference)).toBe(true);
    expect(examples.flatMap((e) => (e.lang === 'sh' ? commandsOf(e) : [])).length).toBeGreaterThanOrEqual(6);
  });

  it('each command runs, exits 0 and prints something', { timeout: 900_000 }, async () => {
    const problems = await runExamples(examples, ROOT);
    expect(problems, problems.join('\n\n')).toEqual([]);
  });

  it('a planted failing example and a planted silent one are caught; unmarked blocks are not run', async () => {
    const planted = [
      '```sh example',
      'ls /no/such/path/for/docs-examples',
      '```',
      '',
      '```sh',
      'exit 3',
      '```',
      '',
      '```sh example',
      'true  # prints nothing',
      'echo fine',
      '```',
    ].join('\n');
    const found = examplesOf(planted, 'planted.md');
    expect(found.map((e) => e.line)).toEqual([1, 9]);
    const problems = await runExamples(found, tempDir());
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^planted\.md:1: ls \/no\/such\/path\/for\/docs-examples: exit 2/);
    expect(problems[1]).toBe('planted.md:9: true  # prints nothing: printed nothing');
  });

  it('runs a reference example with the reference server, and a fresh-project one without fetching the package', () => {
    const [ex] = examplesOf(
      '```sh example fresh-project reference\nnpm install --save-dev mcp-conformance && npx mcp-conformance --server "node dist/server.js" --strict\n```',
      'x.md',
    );
    expect(commandsOf(ex!)).toEqual(['true && npx mcp-conformance --server reference --strict']);
  });
});

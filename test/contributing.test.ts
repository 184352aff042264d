/**
 * CONTRIBUTING.md's example check compiles against the real check model and
 * quotes its page verbatim: the test extracts the example, type-checks it with
 * the project's compiler options, loads it, and verifies its citation as
 * test/quotes.test.ts does for the catalogue.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { findQuote, plain, specSource } from '../engine/spec-pages.js';
import { levelAtMost, strongestLevel } from '../model/spec.js';
import { citationsOf, type Check } from '../suites/check.js';
import { ROOT, tempDir } from './helpers.js';

const MARKER = '<!-- The example below is compiled';

/** The first ```ts block after the marker, its relative imports pointed at suites/. */
function example(): string {
  const doc = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const at = doc.indexOf(MARKER);
  expect(at, 'CONTRIBUTING.md marks its compiled example').toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)\n```/.exec(doc.slice(at));
  expect(block, 'a ```ts block follows the marker').not.toBeNull();
  return block![1]!.replace(/from '\.\/([^']+)'/g, (_m, file: string) => `from '${join(ROOT, 'suites', file)}'`);
}

function compile(file: string): string[] {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
  const options = {
    ...config.options,
    rootDir: undefined,
    noEmit: true,
    noUnusedLocals: true,
    typeRoots: [dirname(dirname(createRequire(import.meta.url).resolve('@types/node/package.json')))],
  };
  const program = ts.createProgram([file], options);
  // The example's own problems (the project's files are the project's tsc run's to judge).
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => !d.file || d.file.fileName === file)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('CONTRIBUTING.md', () => {
  const dir = tempDir();
  const file = join(dir, 'example-check.ts');
  writeFileSync(file, example());

  it('its example check type-checks with the project compiler options', () => {
    const problems = compile(file);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('its example loads, defines checks, and quotes its page verbatim at a level its keyword allows', async () => {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const checks = Object.values(mod).filter((v): v is Check => !!v && typeof v === 'object' && 'id' in v && 'quote' in v);
    expect(checks.length).toBeGreaterThan(0);
    for (const check of checks) {
      expect(typeof (check.run ?? check.perTool?.run)).toBe('function');
      for (const { where, level, citation } of citationsOf(check)) {
        expect(findQuote(specSource(), citation.spec, citation.quote), where).toBeUndefined();
        const strongest = strongestLevel(plain(citation.quote));
        expect(strongest && levelAtMost(level, strongest), where).toBe(true);
      }
    }
  });

  it('names files and commands that exist', () => {
    const doc = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const paths = [...doc.matchAll(/`((?:suites|test|fixtures|coverage|harness|engine)\/[\w./-]+\.(?:ts|js|yaml))`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(5);
    for (const p of new Set(paths)) expect(() => readFileSync(join(ROOT, p)), p).not.toThrow();
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const [, name] of doc.matchAll(/`npm run ([\w:-]+)/g)) expect(scripts, `npm run ${name}`).toHaveProperty(name!);
  });
});

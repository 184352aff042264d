/**
 * Dependencies point one way: cli → engine → suites → harness → model. A
 * layer may import its own files and any layer below it; render/ may import
 * model/ only (it reads results) and only cli/, lib/ or engine/ import it; a suite
 * never imports a transport; above suites/, only the catalogue and the check
 * model (suites/index.ts, suites/check.ts) are imported, no suite by name;
 * cli/ reaches the harness through the engine (engine/host.ts);
 * model/ imports nothing of the project but
 * itself. Type-only imports count: a type that points up the layers couples
 * them as much as a value does.
 */
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers.js';

/**
 * Lowest first: a layer may import those before it. lib/ (the package's
 * library API, where there is one) is the engine's face to the CLI and to
 * library users: cli → lib → engine.
 */
const ORDER = ['model', 'harness', 'suites', 'engine', 'lib', 'cli'] as const;
/** Side layer: render/ reads results (model/) and is read by cli/, lib/ and engine/. */
const RENDER_MAY_IMPORT = ['model', 'render'];
const RENDER_IMPORTED_BY = ['cli', 'lib', 'engine', 'render'];
/** Transport implementations a suite reaches only through the session (harness/session.ts). */
const TRANSPORTS = ['harness/stdio.ts', 'harness/http.ts', 'harness/transport.ts', 'harness/process.ts'];
export const LAYERS = [...ORDER, 'render'];
/** The suites' face to the layers above: the catalogue and the check model; no suite file is imported by name. */
const SUITES_FACE = ['suites/index.ts', 'suites/check.ts'];
const DIRECTION = ORDER.slice().reverse().join(' → ');

/** File (relative to the root, e.g. `suites/lists.ts`) → the project files it imports. */
export type ImportGraph = Map<string, string[]>;

const SPECIFIER =
  /(?:^|[^\w$.])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative import specifiers of a TypeScript source (static, type-only, re-exports, dynamic with a literal). */
export function importsOf(source: string): string[] {
  // Comments may mention imports; drop them first (strings are left alone, so a '//' inside a URL string survives).
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2]!;
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The import graph of the layers under `root`. */
export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const layer of LAYERS.filter((l) => existsSync(join(root, l)))) {
    for (const file of tsFiles(join(root, layer))) {
      const from = relative(root, file);
      const targets = importsOf(readFileSync(file, 'utf8')).map((spec) =>
        relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'),
      );
      graph.set(from, targets);
    }
  }
  return graph;
}

function layerOf(file: string): string {
  return file.split(/[\\/]/)[0]!;
}

/** Every import against the direction, as `from → to: why`. */
export function violations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = layerOf(from);
    for (const to of targets) {
      const b = layerOf(to);
      const say = (why: string) => out.push(`${from} → ${to}: ${why}`);
      if (!LAYERS.includes(b)) {
        say(`imports outside the layers (${LAYERS.join(', ')})`);
        continue;
      }
      if (a === 'model' && b !== 'model') say('model/ imports nothing of the project');
      else if (a === 'render' && !RENDER_MAY_IMPORT.includes(b)) say('render/ reads results only (model/)');
      else if (b === 'render' && !RENDER_IMPORTED_BY.includes(a)) say('only cli/, lib/ and engine/ import render/');
      else if (a === 'suites' && TRANSPORTS.includes(to)) say('a suite never imports a transport (it talks through harness/session.ts)');
      else if (a === 'cli' && b === 'harness') say('cli/ reaches the harness through the engine (engine/host.ts), never directly');
      else if (a !== 'suites' && b === 'suites' && !SUITES_FACE.includes(to))
        say('above suites/, only the catalogue (suites/index.ts) and the check model (suites/check.ts) are imported');
      else if (a !== 'render' && b !== 'render') {
        const ia = ORDER.indexOf(a as (typeof ORDER)[number]);
        const ib = ORDER.indexOf(b as (typeof ORDER)[number]);
        if (ib > ia) say(`points up the layers (${DIRECTION})`);
      }
    }
  }
  return out.sort();
}

describe('layering', () => {
  it('reads every kind of import', () => {
    const src = [
      "import { a } from './a.js';",
      "import type { B } from '../model/b.js';",
      "import * as c from '../harness/c.js';",
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "const f = await import('../engine/f.js');",
      "import './side-effect.js';",
      "import {\n  g,\n  type H,\n} from '../suites/g.js';",
      "import { execa } from 'execa';",
      "// import { no } from '../cli/commented.js';",
      "/* import { no } from '../cli/block.js'; */",
    ].join('\n');
    expect(importsOf(src)).toEqual([
      './a.js',
      '../model/b.js',
      '../harness/c.js',
      './d.js',
      './e.js',
      '../engine/f.js',
      './side-effect.js',
      '../suites/g.js',
    ]);
  });

  it('the tree imports only down the layers', () => {
    const graph = importGraph(ROOT);
    expect(graph.size).toBeGreaterThan(50);
    const found = violations(graph);
    expect(found, found.join('\n')).toEqual([]);
  });

  it('fails on a planted wrong import of each kind', () => {
    const graph = importGraph(ROOT);
    const plant = (from: string, to: string) => violations(new Map([...graph, [from, [...(graph.get(from) ?? []), to]]]));
    expect(plant('harness/session.ts', 'suites/check.ts')).toEqual([
      `harness/session.ts → suites/check.ts: points up the layers (${DIRECTION})`,
    ]);
    expect(plant('model/results.ts', 'harness/paths.ts')).toEqual([
      'model/results.ts → harness/paths.ts: model/ imports nothing of the project',
    ]);
    expect(plant('suites/lists.ts', 'harness/stdio.ts')).toEqual([
      'suites/lists.ts → harness/stdio.ts: a suite never imports a transport (it talks through harness/session.ts)',
    ]);
    expect(plant('render/text.ts', 'suites/check.ts')).toEqual(['render/text.ts → suites/check.ts: render/ reads results only (model/)']);
    expect(plant('suites/lists.ts', 'render/text.ts')).toEqual([
      'suites/lists.ts → render/text.ts: only cli/, lib/ and engine/ import render/',
    ]);
    expect(plant('engine/run.ts', 'suites/tools-list.ts')).toEqual([
      'engine/run.ts → suites/tools-list.ts: above suites/, only the catalogue (suites/index.ts) and the check model (suites/check.ts) are imported',
    ]);
    expect(plant('cli/main.ts', 'harness/process.ts')).toEqual([
      'cli/main.ts → harness/process.ts: cli/ reaches the harness through the engine (engine/host.ts), never directly',
    ]);
    expect(plant('engine/run.ts', 'cli/main.ts')).toHaveLength(1);
    expect(plant('suites/lists.ts', 'test/helpers.ts')).toHaveLength(1);
  });

  it('fails on a wrong import planted in a copy of the tree', () => {
    const copy = tempDir();
    for (const layer of LAYERS.filter((l) => existsSync(join(ROOT, l)))) cpSync(join(ROOT, layer), join(copy, layer), { recursive: true });
    appendFileSync(join(copy, 'harness/session.ts'), "\nimport type { Check } from '../suites/check.js';\n");
    expect(violations(importGraph(copy))).toEqual([`harness/session.ts → suites/check.ts: points up the layers (${DIRECTION})`]);
  });
});

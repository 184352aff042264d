/**
 * The reference server's defect ids are written out where they act: each id
 * `--list-breaks` prints appears as a string literal in a module beside the
 * registries (a `broken('the/id')` call, or a table of ids such as
 * PAGINATION_DEFECTS), and no `broken()` call builds its id from a template,
 * so `grep -rn "'the/id'" fixtures/servers/reference` finds every defect.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE } from './helpers.js';

const DIR = dirname(REFERENCE);
const REGISTRIES = ['breaks.js', 'legacy-breaks.js'];
const modules = readdirSync(DIR)
  .filter((f) => f.endsWith('.js') && !REGISTRIES.includes(f))
  .map((f) => ({ file: f, text: readFileSync(join(DIR, f), 'utf8') }));
const ids = execFileSync('node', [REFERENCE, '--list-breaks'], { encoding: 'utf8' }).trim().split('\n');

describe('reference defect ids', () => {
  it('each registered id is written out, as a string literal, where the server acts on it', () => {
    expect(ids.length).toBeGreaterThan(100);
    const missing = ids.filter((id) => !modules.some((m) => m.text.includes(`'${id}'`)));
    expect(missing).toEqual([]);
  });

  it('no broken() call builds its id from a template', () => {
    const templated = modules.flatMap((m) =>
      m.text
        .split('\n')
        .map((line, i) => ({ where: `${m.file}:${i + 1}`, line }))
        .filter(({ line }) => /broken\(`/.test(line)),
    );
    expect(templated).toEqual([]);
  });
});

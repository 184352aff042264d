/**
 * The generated reference pages cannot drift: docs/checks.md and
 * docs/flags.md equal what cli/docs.ts generates from the catalogue, the
 * reference server's defects and the CLI's definitions; and the comparison
 * catches a planted drift (a changed catalogue entry, a new flag, a hand edit).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { checksPage, defaultSource, docsDrift, docsMain, flagsPage, pageDrift } from '../cli/docs.js';
import { definitions } from '../cli/main.js';
import { catalogue, sourceFileOf } from '../suites/index.js';
import { ROOT, tempDir } from './helpers.js';

const source = defaultSource();
const committed = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the generated reference (npm run docs)', () => {
  it('docs/checks.md and docs/flags.md are what the catalogue and the CLI generate', () => {
    expect(docsDrift(ROOT)).toEqual([]);
  });

  it('shows every check with its title, level, quote, file and the defect that proves it', () => {
    const page = committed('docs/checks.md');
    for (const c of catalogue) {
      const at = page.indexOf(`### \`${c.id}\`\n`);
      expect(at, c.id).toBeGreaterThan(0);
      const section = page.slice(at, page.indexOf('\n### ', at + 1));
      expect(section).toContain(c.title);
      expect(section).toContain(`**Level** ${c.level}`);
      expect(section).toContain(`> ${c.quote}`);
      expect(section).toContain(`[${sourceFileOf(c)}](../${sourceFileOf(c)})`);
      expect(section).toMatch(new RegExp(`Proven by\\*\\* the reference server with \`(--era legacy )?--break ${c.id}\``));
      for (const [name, part] of Object.entries(c.parts ?? {})) expect(section).toContain(`**Part \`${name}\`** (${part.level})`);
    }
  });

  it('catches a planted drift in a catalogue entry, naming the line', () => {
    const [first, ...rest] = catalogue;
    const changed = { ...first!, quote: `${first!.quote} (planted)` };
    const drift = pageDrift(
      { path: 'docs/checks.md', text: checksPage({ ...source, checks: [changed, ...rest] }) },
      committed('docs/checks.md'),
    );
    expect(drift).toMatch(/^docs\/checks\.md:\d+ differs from the generated text/);
    expect(drift).toContain('(planted)');
    // A check losing its defect shows, too.
    const unproven = checksPage({ ...source, breaks: source.breaks.filter((b) => b !== first!.id) });
    expect(pageDrift({ path: 'docs/checks.md', text: unproven }, committed('docs/checks.md'))).toContain('no reference defect');
  });

  it('catches a planted drift in the CLI definitions', () => {
    const cli = definitions();
    cli.run.addOption(new Option('--planted-flag <n>', 'a flag the page does not have'));
    const drift = pageDrift({ path: 'docs/flags.md', text: flagsPage(cli) }, committed('docs/flags.md'));
    expect(drift).toContain('--planted-flag');
  });

  it('docs --check exits 1 on a hand-edited page and 0 on the generated one', () => {
    const root = tempDir();
    mkdirSync(join(root, 'docs'));
    for (const f of ['docs/checks.md', 'docs/flags.md']) cpSync(join(ROOT, f), join(root, f));
    expect(docsMain(['--check'], root)).toBe(0);
    writeFileSync(join(root, 'docs/flags.md'), committed('docs/flags.md').replace('per-request timeout', 'per-request timeout (edited)'));
    expect(docsMain(['--check'], root)).toBe(1);
    expect(docsDrift(root)[0]).toContain('(edited)');
  });

  it('the README is a front door: at most 200 lines, one link from every docs page', () => {
    const readme = committed('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(201);
    for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) expect(readme, page).toContain(`](docs/${page})`);
  });
});

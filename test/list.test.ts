/**
 * `mcp-conformance list` as a user runs it: --json (not swallowed by the run's
 * --json <path>), --check globs, --spec pages, sections and globs, and the source file of every
 * check (suites/index.ts records it per module; this proves each file defines
 * exactly the checks recorded for it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { citationsOf } from '../suites/check.js';
import { catalogue, sourceFileOf, suiteModules } from '../suites/index.js';
import { pageText, sectionsOf, specSource } from '../engine/spec-pages.js';
import { ROOT, runCli } from './helpers.js';

interface Listed {
  id: string;
  level: string;
  spec: { revision: string; page: string; section: string };
  quote: string;
  title: string;
  legacy?: { spec: { revision: string; page: string; section: string }; quote: string };
  file: string;
}

describe('list', () => {
  it('--json prints every check with id, level, spec, quote, title, legacy citation and source file', async () => {
    const r = await runCli(['list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Listed[];
    expect(listed.map((c) => c.id)).toEqual(catalogue.map((c) => c.id));
    for (const c of listed) {
      const check = catalogue.find((k) => k.id === c.id)!;
      expect(c).toMatchObject({ level: check.level, spec: check.spec, quote: check.quote, title: check.title });
      if (check.legacy) expect(c.legacy).toEqual({ spec: check.legacy.spec, quote: check.legacy.quote ?? check.quote });
      else expect(c.legacy).toBeUndefined();
      expect(existsSync(join(ROOT, c.file)), c.file).toBe(true);
    }
  });

  it('records the file of each suite module truly: the module exports exactly those checks', async () => {
    expect(suiteModules.flatMap((m) => m.checks)).toEqual(catalogue);
    for (const m of suiteModules) {
      const mod = (await import(pathToFileURL(join(ROOT, m.file)).href)) as Record<string, unknown>;
      expect(Object.values(mod), m.file).toContain(m.checks);
    }
  });

  it('--check filters by glob', async () => {
    const area = catalogue[catalogue.length - 1]!.area;
    const r = await runCli(['list', '--check', `${area}/*`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(r.stdout) as Listed[]).map((c) => c.id);
    expect(ids).toEqual(catalogue.filter((c) => c.area === area).map((c) => c.id));
    expect(ids.length).toBeLessThan(catalogue.length);
    const none = await runCli(['list', '--check', 'no-such-area/*']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('0 checks');
  });

  /** The checks a citation (or, with `context`, a describing section) of which is on the page, in a section starting with `section`. */
  function naming(page: string, section = '', revision?: string) {
    return catalogue.filter((c) =>
      [...citationsOf(c).map(({ citation: { spec } }) => spec), ...(c.context ?? [])].some(
        (spec) =>
          spec.page === page && spec.section.toLowerCase().startsWith(section.toLowerCase()) && (!revision || spec.revision === revision),
      ),
    );
  }

  it("--spec 'page' and 'page#section' print the checks naming them, with their source files", async () => {
    for (const query of [
      'server/tools',
      'server/tools#Error Handling',
      'server/tools#error',
      `${catalogue[0]!.spec.page}#${catalogue[0]!.spec.section}`,
    ]) {
      const [page, section] = query.split('#') as [string, string | undefined];
      const expected = naming(page, section);
      expect(expected.length, query).toBeGreaterThan(0);
      const r = await runCli(['list', '--spec', query]);
      expect(r.code, r.stderr).toBe(0);
      const printed = [...r.stdout.matchAll(/^(\S+\/\S+)\s+(?:MUST|SHOULD|MAY)\s/gm)].map((m) => m[1]);
      expect(printed).toEqual(expected.map((c) => c.id));
      for (const c of expected) expect(r.stdout).toMatch(new RegExp(`^${c.id} .*\n.*\n    ${sourceFileOf(c)}$`, 'm'));
      expect(r.stdout).toContain(`${expected.length} checks`);
    }
    // A revision prefix narrows to that revision's citations; page alone matches any section.
    const legacy = await runCli(['list', '--spec', '2025-11-25/basic/lifecycle', '--json']);
    const ids = (JSON.parse(legacy.stdout || '[]') as Listed[]).map((c) => c.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(naming('basic/lifecycle', '', '2025-11-25').map((c) => c.id));
  });

  it('--spec takes a glob over [revision/]page#section', async () => {
    const r = await runCli(['list', '--spec', 'server/utilities/**', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(r.stdout) as Listed[]).map((c) => c.id);
    const expected = catalogue.filter((c) => citationsOf(c).some(({ citation: { spec } }) => spec.page.startsWith('server/utilities/')));
    expect(expected.length).toBeGreaterThan(0);
    expect(ids).toEqual(expected.map((c) => c.id));
  });

  it('a section that describes a check without a keyword is a real section of its page, never a citation', () => {
    const described = catalogue.filter((c) => c.context?.length);
    expect(described.length).toBeGreaterThan(0);
    for (const c of described) {
      for (const spec of c.context!) {
        const text = pageText(specSource(), spec.revision, spec.page);
        expect(text, `${c.id}: ${spec.revision}/${spec.page}`).toBeDefined();
        expect(
          sectionsOf(text!).map((s) => s.heading),
          c.id,
        ).toContain(spec.section);
        expect(citationsOf(c).map(({ citation }) => citation.spec)).not.toContainEqual(spec);
      }
    }
  });

  it('when --spec finds nothing, it says which sections (or pages) exist, and exits 1', async () => {
    const section = await runCli(['list', '--spec', 'server/tools#No Such Section']);
    expect(section.code).toBe(1);
    expect(section.stdout).toContain('0 checks');
    expect(section.stderr).toMatch(
      /^no check names server\/tools#No Such Section; the sections of draft\/server\/tools .*Capabilities \(\d+\).*Error Handling \(\d+\)/,
    );
    const page = await runCli(['list', '--spec', 'server/no-such-page']);
    expect(page.code).toBe(1);
    expect(page.stderr).toMatch(/the pages checks cite: .*draft\/server\/tools/);
  });

  it('bad arguments exit 2 with one line on stderr', async () => {
    const r = await runCli(['list', '--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

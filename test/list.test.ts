/**
 * `mcp-conformance list` as a user runs it: --json (not swallowed by the run's
 * --json <path>), --check globs, --spec sections, and the source file of every
 * check (suites/index.ts records it per module; this proves each file defines
 * exactly the checks recorded for it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { citationsOf } from '../suites/check.js';
import { catalogue, sourceFileOf, suiteModules } from '../suites/index.js';
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

  it("--spec 'page#section' prints the checks citing that section, with their source files", async () => {
    for (const query of ['server/tools#Error Handling', `${catalogue[0]!.spec.page}#${catalogue[0]!.spec.section}`]) {
      const [page, section] = query.split('#') as [string, string];
      const expected = catalogue.filter((c) =>
        citationsOf(c).some(({ citation: { spec } }) => spec.page === page && spec.section.toLowerCase() === section.toLowerCase()),
      );
      const r = await runCli(['list', '--spec', query]);
      expect(r.code, r.stderr).toBe(expected.length ? 0 : 1);
      const printed = [...r.stdout.matchAll(/^(\S+\/\S+)\s+(?:MUST|SHOULD|MAY)\s/gm)].map((m) => m[1]);
      expect(printed).toEqual(expected.map((c) => c.id));
      for (const c of expected) expect(r.stdout).toMatch(new RegExp(`^${c.id} .*\n.*\n    ${sourceFileOf(c)}$`, 'm'));
      expect(r.stdout).toContain(`${expected.length} checks`);
    }
    // A revision prefix narrows to that revision's citations; page alone matches any section.
    const legacy = await runCli(['list', '--spec', '2025-11-25/basic/lifecycle', '--json']);
    const ids = (JSON.parse(legacy.stdout || '[]') as Listed[]).map((c) => c.id);
    expect(ids).toEqual(
      catalogue
        .filter((c) => citationsOf(c).some(({ citation: { spec } }) => spec.revision === '2025-11-25' && spec.page === 'basic/lifecycle'))
        .map((c) => c.id),
    );
  });

  it('bad arguments exit 2 with one line on stderr', async () => {
    const r = await runCli(['list', '--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/**
 * `mcp-conformance list`: the catalogue, found by id or by spec section.
 *
 *   list [--check GLOB]... [--spec [REVISION/]PAGE[#SECTION]]... [--json]
 *
 * `--spec` matches every citation of a check (its own, its parts', its legacy
 * one) and the sections that describe it (`context`): `server/tools` (any
 * section of the page), `server/tools#Error Handling` (sections beginning with
 * that, case-insensitively), `2025-11-25/basic/lifecycle` (one revision only),
 * or a glob over `[revision/]page#section` (e.g. `'server/**'`).
 * Each check is printed with the suite file that defines it; when nothing
 * matches, stderr names the sections of the page (or the pages) that exist.
 */
import type { Command } from 'commander';
import picomatch from 'picomatch';
import { selectChecks } from '../engine/run.js';
import { pageText, sectionsOf, specSource } from '../engine/spec-pages.js';
import { citationsOf, type Check } from '../suites/check.js';
import { catalogue, sourceFileOf } from '../suites/index.js';
import type { SpecRef, SpecRevision } from '../model/spec.js';
import { collect, guarded, type SubcommandContext } from './subcommand.js';

/**
 * A `--spec` argument: `[revision/]page[#section prefix]`, or a glob over
 * `revision/page#section` (a pattern with `*`, `?`, `[` or `{`).
 */
export interface SpecQuery {
  revision?: string;
  page: string;
  section?: string;
  /** The glob, matched against `page#section` and `revision/page#section`, case-insensitively. */
  glob?: (ref: string) => boolean;
}

export function parseSpecQuery(text: string): SpecQuery {
  if (/[*?[{]/.test(text)) {
    const glob = picomatch(text.trim(), { nocase: true, dot: true });
    return { page: text.trim(), glob };
  }
  const hash = text.indexOf('#');
  let page = (hash < 0 ? text : text.slice(0, hash)).trim().replace(/^\/+|\/+$/g, '');
  const section = hash < 0 ? undefined : text.slice(hash + 1).trim();
  const rev = /^(draft|\d{4}-\d{2}-\d{2})\//.exec(page);
  if (rev) page = page.slice(rev[0].length);
  if (!page) throw new Error(`--spec needs a page, e.g. 'server/tools#Error Handling' (got ${JSON.stringify(text)})`);
  return { ...(rev ? { revision: rev[1] } : {}), page, ...(section ? { section } : {}) };
}

/** Whether a reference is named by the query: the page, and a section beginning with the query's (case-insensitive). */
export function citesSection(ref: SpecRef, q: SpecQuery): boolean {
  if (q.glob) return q.glob(`${ref.page}#${ref.section}`) || q.glob(`${ref.revision}/${ref.page}#${ref.section}`);
  if (q.revision && ref.revision !== q.revision) return false;
  if (ref.page !== q.page) return false;
  return !q.section || ref.section.toLowerCase().startsWith(q.section.toLowerCase());
}

/** Every place a check names: its citations (main, parts, legacy), then the sections that describe it (`context`). */
function placesOf(check: Check): Array<{ where: string; spec: SpecRef }> {
  return [
    ...citationsOf(check).map(({ where, citation }) => ({ where: `cites ${where}:`, spec: citation.spec })),
    ...(check.context ?? []).map((spec) => ({ where: `is described (no keyword cited) in`, spec })),
  ];
}

/** The places of a check that a query names (none: the check does not match). */
function matching(check: Check, queries: SpecQuery[]): string[] {
  if (queries.length === 0) return [];
  return placesOf(check)
    .filter(({ spec }) => queries.some((q) => citesSection(spec, q)))
    .map(({ where, spec }) => `${where} ${spec.revision}/${spec.page}#${spec.section}`);
}

/** How many checks name each `revision/page#section`. */
function placeCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of catalogue) {
    const seen = new Set(placesOf(c).map(({ spec }) => `${spec.revision}/${spec.page}#${spec.section}`));
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** What exists where a query found nothing: the page's sections (with how many checks name each), or the pages checks cite. */
export function whatExists(q: SpecQuery): string {
  const counts = placeCounts();
  const revision = (q.revision ?? 'draft') as SpecRevision;
  const text = q.glob ? undefined : pageText(specSource(), revision, q.page);
  if (text !== undefined) {
    const sections = sectionsOf(text).map((s) => {
      const n = counts.get(`${revision}/${q.page}#${s.heading}`) ?? 0;
      return n ? `${s.heading} (${n})` : s.heading;
    });
    return `the sections of ${revision}/${q.page} (checks naming each, where any): ${sections.join('; ')}`;
  }
  const pages = [...new Set([...counts.keys()].map((k) => k.slice(0, k.indexOf('#'))))].sort();
  return `the pages checks cite: ${pages.join(', ')}`;
}

/** What `list --json` prints for a check. */
export function describeCheck(c: Check) {
  return {
    id: c.id,
    level: c.level,
    spec: c.spec,
    quote: c.quote,
    ...(c.legacy ? { legacy: { spec: c.legacy.spec, quote: c.legacy.quote ?? c.quote } } : {}),
    ...(c.context ? { context: c.context } : {}),
    ...(c.parts
      ? {
          parts: Object.fromEntries(
            Object.entries(c.parts).map(([name, p]) => [
              name,
              {
                level: p.level,
                spec: p.spec,
                quote: p.quote,
                ...(p.legacy ? { legacy: { spec: p.legacy.spec, quote: p.legacy.quote ?? p.quote } } : {}),
              },
            ]),
          ),
        }
      : {}),
    title: c.title,
    transports: c.transports,
    revisions: c.revisions,
    file: sourceFileOf(c),
  };
}

interface ListFlags {
  check: string[];
  spec: string[];
  json?: boolean;
}

/** `list`: prints the selected checks; 1 when a filter matches nothing. */
export function listChecks(opts: ListFlags): number {
  const queries = opts.spec.map(parseSpecQuery);
  const picked = selectChecks(opts.check, catalogue)
    .map((c) => ({ c, cites: matching(c, queries) }))
    .filter(({ cites }) => queries.length === 0 || cites.length > 0);
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify(
        picked.map(({ c }) => describeCheck(c)),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const width = Math.max(0, ...picked.map(({ c }) => c.id.length));
  for (const { c, cites } of picked) {
    const only = `${c.transports.length === 1 ? ` [${c.transports[0]} only]` : ''}${c.revisions.length === 1 ? ` [${c.revisions[0]} era only]` : ''}`;
    process.stdout.write(
      `${c.id.padEnd(width)}  ${c.level.padEnd(6)}  ${c.spec.page}#${c.spec.section}${only}\n    ${c.title}\n    ${sourceFileOf(c) ?? '(source file unknown)'}\n`,
    );
    for (const line of cites) process.stdout.write(`    ${line}\n`);
  }
  process.stdout.write(`${picked.length} checks\n`);
  if (picked.length === 0)
    for (const q of queries) process.stderr.write(`no check names ${q.page}${q.section ? `#${q.section}` : ''}; ${whatExists(q)}\n`);
  // Nothing matched a filter the user gave: say so in the exit code, as the run does for --check.
  return picked.length === 0 && (opts.check.length || queries.length) ? 1 : 0;
}

export function registerList(program: Command, ctx: SubcommandContext): void {
  program
    .command('list')
    .description('print the catalogue of checks with their spec references, levels and source files')
    .option('--check <id-or-glob>', "only matching checks, e.g. 'tools-list/*' (repeatable)", collect, [])
    .option(
      '--spec <[revision/]page[#section]>',
      "only checks citing this page, page#section (a prefix of the section) or glob, e.g. 'server/tools#Error Handling' or 'server/**' (repeatable)",
      collect,
      [],
    )
    .option('--json', 'as JSON')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((opts: ListFlags) => guarded(ctx, 'list', () => listChecks(opts)));
}

/**
 * `mcp-conformance list`: the catalogue, found by id or by spec section.
 *
 *   list [--check GLOB]... [--spec [REVISION/]PAGE[#SECTION]]... [--json]
 *
 * `--spec` matches every citation of a check (its own, its parts', its legacy
 * one): `server/tools#Error Handling` (section compared case-insensitively),
 * `server/tools` (any section of the page), `2025-11-25/basic/lifecycle`
 * (one revision only). Each check is printed with the suite file that defines
 * it.
 */
import type { Command } from 'commander';
import { selectChecks } from '../engine/run.js';
import { citationsOf, type Check } from '../suites/check.js';
import { catalogue, sourceFileOf } from '../suites/index.js';
import type { SpecRef } from '../model/spec.js';
import { collect, guarded, type SubcommandContext } from './subcommand.js';

/** A `--spec` argument: `[revision/]page[#section]`. */
export interface SpecQuery {
  revision?: string;
  page: string;
  section?: string;
}

export function parseSpecQuery(text: string): SpecQuery {
  const hash = text.indexOf('#');
  let page = (hash < 0 ? text : text.slice(0, hash)).trim().replace(/^\/+|\/+$/g, '');
  const section = hash < 0 ? undefined : text.slice(hash + 1).trim();
  const rev = /^(draft|\d{4}-\d{2}-\d{2})\//.exec(page);
  if (rev) page = page.slice(rev[0].length);
  if (!page) throw new Error(`--spec needs a page, e.g. 'server/tools#Error Handling' (got ${JSON.stringify(text)})`);
  return { ...(rev ? { revision: rev[1] } : {}), page, ...(section ? { section } : {}) };
}

export function citesSection(ref: SpecRef, q: SpecQuery): boolean {
  if (q.revision && ref.revision !== q.revision) return false;
  if (ref.page !== q.page) return false;
  return !q.section || ref.section.toLowerCase() === q.section.toLowerCase();
}

/** The citations of a check that a query names (none: the check does not match). */
function matching(check: Check, queries: SpecQuery[]): string[] {
  if (queries.length === 0) return [];
  return citationsOf(check)
    .filter(({ citation }) => queries.some((q) => citesSection(citation.spec, q)))
    .map(({ where, citation: { spec } }) => `${where}: ${spec.revision}/${spec.page}#${spec.section}`);
}

/** What `list --json` prints for a check. */
export function describeCheck(c: Check) {
  return {
    id: c.id,
    level: c.level,
    spec: c.spec,
    quote: c.quote,
    ...(c.legacy ? { legacy: { spec: c.legacy.spec, quote: c.legacy.quote ?? c.quote } } : {}),
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
    for (const line of cites) process.stdout.write(`    cites ${line}\n`);
  }
  process.stdout.write(`${picked.length} checks\n`);
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
      "only checks citing this page or section, e.g. 'server/tools#Error Handling' (repeatable)",
      collect,
      [],
    )
    .option('--json', 'as JSON')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((opts: ListFlags) => guarded(ctx, 'list', () => listChecks(opts)));
}

/**
 * `mcp-conformance coverage` and `mcp-conformance quotes`: the coverage
 * matrix of the spec pages, and what a spec working copy changes for the
 * checks' quotes (engine/coverage.ts holds the rules).
 *
 *   coverage [--revision draft|2025-11-25] [--json] [--sentences] [--spec-dir P]
 *   quotes --spec-dir P [--json]
 *
 * coverage exits 0 (2 on bad arguments or a missing page). quotes exits 1 when
 * a check's quote is no longer found or a new keyword sentence is uncovered.
 */
import { Option, type Command } from 'commander';
import { coverage, specDrift, type CoverageReport, type SentenceCoverage, type SpecDrift } from '../engine/coverage.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { specSource, type SpecSource } from '../engine/spec-pages.js';
import { catalogue } from '../suites/index.js';
import type { SpecRevision } from '../model/spec.js';
import { guarded, type SubcommandContext } from './subcommand.js';

interface CoverageFlags {
  revision: SpecRevision;
  json?: boolean;
  sentences?: boolean;
  specDir?: string;
}

function sentenceLine(s: SentenceCoverage): string {
  const linked = s.links.map((l) => `${l.check}${l.part ? `#${l.part}` : ''}${l.provenBy ? ' (proven)' : ''}`).join(', ');
  const why = s.status === 'excluded' ? `${s.exclusion!.kind}: ${s.exclusion!.reason}` : linked;
  const text = s.lead ? `${s.lead} … ${s.text}` : s.text;
  return `    ${s.status.padEnd(9)} ${s.level.padEnd(6)} ${s.section ? `[${s.section}] ` : ''}${text}${why ? `\n              → ${why}` : ''}\n`;
}

/** The bundled pages, or a working copy that holds at least one revision's pages. */
function sourceFor(specDir: string | undefined): SpecSource {
  const source = specSource(specDir);
  if (specDir && !['draft', '2025-11-25'].some((rev) => existsSync(join(source.pages, rev)))) {
    throw new Error(`--spec-dir ${specDir}: no docs/specification/draft/ or docs/specification/2025-11-25/ pages there`);
  }
  return source;
}

/** The sentences of one status, one line each with their checks: the to-do lists. */
function listOf(r: CoverageReport, status: 'quoted' | 'uncovered', title: string): string {
  const rows = r.pages.flatMap((p) => p.sentences.filter((s) => s.status === status));
  if (rows.length === 0) return '';
  let out = `\n${title} (${rows.length}):\n`;
  for (const s of rows) {
    const by = s.checks.length ? `  ← ${s.links.map((l) => `${l.check}${l.part ? `#${l.part}` : ''}`).join(', ')}` : '';
    out += `  ${s.page}#${s.section}  ${s.level}  ${s.lead ? `${s.lead} … ` : ''}${s.text}${by}\n`;
  }
  return out;
}

export function renderCoverage(r: CoverageReport, opts: { sentences?: boolean } = {}): string {
  const width = Math.max(...r.pages.map((p) => p.page.length + ' (missing)'.length), 'page'.length);
  const cols = ['proven', 'quoted', 'excluded', 'uncovered', 'may', 'proven %'];
  const row = (page: string, cells: Array<number | string>) =>
    `${page.padEnd(width)}${cells.map((c, i) => `  ${String(c).padStart(cols[i]!.length)}`).join('')}\n`;
  const pct = (p: number, q: number, u: number) => (p + q + u ? `${((p / (p + q + u)) * 100).toFixed(1)}%` : '-');
  let out = `Coverage of the ${r.revision} pages: server-side sentences with an RFC 2119 keyword\n\n`;
  out += row('page', cols);
  for (const p of r.pages) {
    const name = p.found ? p.page : `${p.page} (missing)`;
    out += row(name, [p.proven, p.quoted, p.excluded, p.uncovered, p.may, pct(p.proven, p.quoted, p.uncovered)]);
    if (opts.sentences) for (const s of p.sentences) out += sentenceLine(s);
  }
  const t = r.totals;
  out += row('total', [t.proven, t.quoted, t.excluded, t.uncovered, t.may, `${r.proven.toFixed(1)}%`]);
  out += `\n${t.sentences} keyword sentences. Of the ${t.requirements} server-side requirements a client can observe: ${t.proven} proven (a reference defect makes the check quoting it fail), ${t.quoted} quoted by a check but not proven, ${t.uncovered} uncovered.\n`;
  out += `${t.excluded} excluded (client rules, the reviewed exclusions); ${t.may} MAY sentences counted apart (${t.mayExercised} exercised by a check; a MAY is never failed).\n`;
  out += `Proven = proven / (proven + quoted + uncovered) = ${r.proven.toFixed(1)}%; quoted, proven or not: ${r.quoted.toFixed(1)}%.\n`;
  if (!opts.sentences) {
    out += listOf(r, 'quoted', 'Quoted by a check but proven by no reference defect');
    out += listOf(r, 'uncovered', 'Uncovered server rules (no check quotes them)');
    out += '\nEvery sentence with its checks or its exclusion: --sentences (or --json).\n';
  }
  for (const e of r.unusedExclusions)
    out += `stale exclusion (matches no sentence): ${e.page}${e.section ? `#${e.section}` : ''} ${e.match ?? e.pattern}\n`;
  for (const w of r.unlinked) out += `citation linked to no keyword sentence of its section: ${w}\n`;
  return out;
}

export function renderDrift(d: SpecDrift): string {
  let out = '';
  out += d.staleQuotes.length
    ? `Checks whose quotes the spec no longer holds (${d.staleQuotes.length}):\n`
    : 'Every check quote is found verbatim in its section.\n';
  for (const q of d.staleQuotes) out += `  ${q.where}\n    ${q.problem}\n`;
  out += d.newSentences.length
    ? `New keyword sentences no check covers (${d.newSentences.length}):\n`
    : 'No new keyword sentence is left uncovered.\n';
  for (const s of d.newSentences)
    out += `  ${s.revision}/${s.page}#${s.section}  ${s.level}\n    ${s.lead ? `${s.lead} … ` : ''}${s.text}\n`;
  return out;
}

/** `coverage`: the matrix (and, with --spec-dir, the drift); 2 when a page in scope is missing. */
export function printCoverage(opts: CoverageFlags): number {
  const source = sourceFor(opts.specDir);
  const report = coverage({ revision: opts.revision, checks: catalogue, source });
  const missing = report.pages.filter((p) => !p.found).map((p) => p.page);
  const drift = opts.specDir ? specDrift({ checks: catalogue, source }) : undefined;
  if (opts.json) process.stdout.write(`${JSON.stringify(drift ? { ...report, drift } : report, null, 2)}\n`);
  else process.stdout.write(renderCoverage(report, opts) + (drift ? `\n${renderDrift(drift)}` : ''));
  if (missing.length) {
    process.stderr.write(`mcp-conformance coverage: no page ${missing.join(', ')} under ${source.pages}/${opts.revision}\n`);
    return 2;
  }
  return 0;
}

/** `quotes`: stale quotes and new uncovered sentences; 1 when there is either. */
export function printDrift(opts: { specDir?: string; json?: boolean }): number {
  const drift = specDrift({ checks: catalogue, source: sourceFor(opts.specDir) });
  process.stdout.write(opts.json ? `${JSON.stringify(drift, null, 2)}\n` : renderDrift(drift));
  return drift.staleQuotes.length || drift.newSentences.length ? 1 : 0;
}

export function registerCoverage(program: Command, ctx: SubcommandContext): void {
  program
    .command('coverage')
    .description(
      'which server-side RFC 2119 sentences of the spec pages the checks enforce, which are excluded and why, which are uncovered',
    )
    .addOption(new Option('--revision <revision>', 'the pages of this revision').choices(['draft', '2025-11-25']).default('draft'))
    .option('--json', 'the whole matrix as JSON')
    .option('--sentences', 'print every sentence with the checks that quote it or its exclusion')
    .option(
      '--spec-dir <path>',
      'a spec working copy (docs/specification/<revision>/ and schema/) instead of the bundled pages; also lists stale quotes',
    )
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((opts: CoverageFlags) => guarded(ctx, 'coverage', () => printCoverage(opts)));
}

export function registerQuotes(program: Command, ctx: SubcommandContext): void {
  program
    .command('quotes')
    .description('checks whose quotes a spec working copy no longer holds, and its new keyword sentences no check covers')
    .option('--spec-dir <path>', 'a spec working copy (docs/specification/<revision>/ and schema/); default: the bundled pages')
    .option('--json', 'as JSON')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((opts: { specDir?: string; json?: boolean }) => guarded(ctx, 'quotes', () => printDrift(opts)));
}

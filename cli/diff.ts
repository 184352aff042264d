/**
 * `mcp-conformance diff <before.json> <after.json>`: every verdict that changed
 * between two JSON result files, worst first (engine/diff.ts holds the order).
 * Exit 1 when something got worse, 0 otherwise, 2 when a file cannot be read.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { asRun, diffRuns, type VerdictChange } from '../engine/diff.js';
import { guarded, type SubcommandContext } from './subcommand.js';

function readRun(path: string) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return asRun(JSON.parse(text), path);
  } catch (err) {
    throw new Error(err instanceof SyntaxError ? `${path} is not JSON: ${err.message}` : (err as Error).message);
  }
}

export function renderDiff(changes: VerdictChange[]): string {
  if (changes.length === 0) return 'No verdict changed.\n';
  const worse = changes.filter((c) => c.worse).length;
  let out = '';
  for (const c of changes) {
    const where = `${c.era ? `[${c.era}] ` : ''}${c.check}${c.subject === 'server' ? '' : ` ${c.subject}`}`;
    out += `${c.worse ? 'worse ' : 'better'}  ${where}: ${c.before ?? '(absent)'} → ${c.after ?? '(absent)'}\n`;
    if (c.detail) out += `        ${c.detail}\n`;
  }
  out += `${changes.length} verdicts changed, ${worse} worse.\n`;
  return out;
}

/** `diff`: the changed verdicts; 1 when something got worse. */
export function printDiff(beforePath: string, afterPath: string, opts: { json?: boolean }): number {
  const changes = diffRuns(readRun(beforePath), readRun(afterPath));
  process.stdout.write(opts.json ? `${JSON.stringify(changes, null, 2)}\n` : renderDiff(changes));
  return changes.some((c) => c.worse) ? 1 : 0;
}

export function registerDiff(program: Command, ctx: SubcommandContext): void {
  program
    .command('diff')
    .description('every verdict that changed between two JSON result files, worst first; exit 1 when something got worse')
    .argument('<before.json>', 'the earlier result file (--json of a run)')
    .argument('<after.json>', 'the later result file')
    .option('--json', 'the changes as JSON')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((before: string, after: string, opts: { json?: boolean }) => guarded(ctx, 'diff', () => printDiff(before, after, opts)));
}

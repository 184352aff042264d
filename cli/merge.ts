/**
 * `mcp-conformance merge <results.json>…`: combines the JSON reports of
 * sharded runs (`--shard i/n`) into one result and writes one set of
 * reports, judged (and exit-coded) as one run; `--baseline` applies to the
 * merged result.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { applyBaseline, loadBaseline } from '../engine/baseline.js';
import { exitCodeOf, mergeRuns } from '../engine/shard.js';
import type { RunResult } from '../model/results.js';
import { renderConsole } from '../render/index.js';
import { guarded, type SubcommandContext } from './subcommand.js';
import { deliver } from './output.js';

interface MergeFlags {
  junit: string;
  json: string;
  html: string;
  baseline?: string;
  writeBaseline?: string;
  strict?: boolean;
  color: boolean;
}

export function registerMerge(program: Command, ctx: SubcommandContext): void {
  program
    .command('merge')
    .description("combine sharded runs' JSON reports into one set of reports")
    .argument('<results...>', 'JSON reports (results.json) of the shards')
    .option('--junit <path>', 'JUnit XML report path', 'reports/junit.xml')
    .option('--json <path>', 'JSON report path', 'reports/results.json')
    .option('--html <path>', 'HTML report path', 'reports/report.html')
    .option('--baseline <file>', 'judge the merged result against this baseline')
    .option('--write-baseline <file>', "write the merged result's failures and warnings as a baseline")
    .option('--strict', 'count warnings as failures')
    .option('--no-color', 'no colour in the console report')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((files: string[], flags: MergeFlags) => guarded(ctx, 'merge', () => merge(files, flags)));
}

async function merge(files: string[], flags: MergeFlags): Promise<number> {
  const runs: RunResult[] = [];
  for (const file of files) {
    try {
      const doc = JSON.parse(await readFile(file, 'utf8')) as RunResult & { schemaVersion?: number };
      if (!Array.isArray(doc.checks) || typeof doc.summary !== 'object') throw new Error('not a mcp-conformance JSON report');
      const { schemaVersion: _v, ...run } = doc;
      runs.push(run);
    } catch (err) {
      process.stderr.write(
        `mcp-conformance: cannot merge ${file}: ${(err as Error).message.split('\n')[0]}\nhint: give the results.json files the shards wrote (--json)\n`,
      );
      return 2;
    }
  }
  let run = mergeRuns(runs);
  if (flags.strict) {
    run.strict = true;
    run.exitCode = exitCodeOf(run);
  }
  const baseline = flags.baseline !== undefined ? loadBaselineOrNull(flags.baseline) : undefined;
  if (baseline === null) return 2;
  if (baseline) run = applyBaseline(run, baseline);
  process.stdout.write(renderConsole(run, { color: flags.color && !process.env.NO_COLOR && !!process.stdout.isTTY }));
  return deliver(run, {
    junitPath: flags.junit,
    jsonPath: flags.json,
    htmlPath: flags.html,
    timeoutMs: 10_000,
    ...(flags.writeBaseline ? { writeBaseline: flags.writeBaseline } : {}),
    ...(baseline ? { baseline } : {}),
  });
}

function loadBaselineOrNull(path: string) {
  try {
    return loadBaseline(path);
  } catch (err) {
    process.stderr.write(
      `mcp-conformance: ${(err as Error).message}\nhint: a baseline is YAML or JSON with entries: [{ check, subject?, reason }]\n`,
    );
    return null;
  }
}

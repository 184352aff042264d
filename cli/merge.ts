/**
 * `mcp-conformance merge <results.json>…`: combines the JSON reports of
 * sharded runs (`--shard i/n`) into one result and writes one set of
 * reports, judged (and exit-coded) as one run; `--baseline` applies to the
 * merged result.
 *
 * The files must be every shard of one set exactly once (the same shard
 * count, selected catalogue, target, revision, seed and suite version):
 * otherwise merge names what is missing or mismatched and exits 2 (its
 * reports record the refusal). `--allow-partial` merges what is there; the
 * result is marked incomplete in every report and never passes (exit 2).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { applyBaseline, loadBaseline } from '../engine/baseline.js';
import { exitCodeOf, mergeRuns, shardSetProblems, type ShardFile } from '../engine/shard.js';
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
  allowPartial?: boolean;
  verbose?: boolean;
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
    .option('--allow-partial', 'merge even when shards are missing or mismatched: the result is marked incomplete and never passes')
    .option('--verbose', "list every result, and the other era's skipped checks")
    .option('--no-color', 'no colour in the console report')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((files: string[], flags: MergeFlags) => guarded(ctx, 'merge', () => merge(files, flags)));
}

const PARTIAL_HINT =
  "hint: give each shard's results.json exactly once, from runs with the same flags and --seed; or --allow-partial to merge what is there (incomplete, never a pass)";

async function merge(files: string[], flags: MergeFlags): Promise<number> {
  const runs: ShardFile[] = [];
  for (const file of files) {
    try {
      const doc = JSON.parse(await readFile(file, 'utf8')) as RunResult & { schemaVersion?: number };
      if (!Array.isArray(doc.checks) || typeof doc.summary !== 'object') throw new Error('not a mcp-conformance JSON report');
      const { schemaVersion: _v, ...run } = doc;
      runs.push({ file, run });
    } catch (err) {
      process.stderr.write(
        `mcp-conformance: cannot merge ${file}: ${(err as Error).message.split('\n')[0]}\nhint: give the results.json files the shards wrote (--json)\n`,
      );
      return 2;
    }
  }
  const problems = shardSetProblems(runs);
  let run = mergeRuns(runs.map((r) => r.run));
  if (problems.length && !flags.allowPartial) {
    run.aborted = `cannot merge: ${problems.join('; ')}`;
  } else if (problems.length) {
    run.incomplete = problems.join('; ');
  }
  if (flags.strict) run.strict = true;
  run.exitCode = exitCodeOf(run);
  const baseline = flags.baseline !== undefined ? loadBaselineOrNull(flags.baseline) : undefined;
  if (baseline === null) return 2;
  if (baseline) run = applyBaseline(run, baseline);
  const reports = [flags.junit, flags.json, flags.html];
  const color = flags.color && !process.env.NO_COLOR && !!process.stdout.isTTY;
  process.stdout.write(renderConsole(run, { color, verbose: flags.verbose === true, reports }));
  const code = await deliver(run, {
    junitPath: flags.junit,
    jsonPath: flags.json,
    htmlPath: flags.html,
    timeoutMs: 10_000,
    ...(flags.writeBaseline ? { writeBaseline: flags.writeBaseline } : {}),
    ...(baseline ? { baseline } : {}),
  });
  // deliver names the cause; the hint follows it.
  if (problems.length && !flags.allowPartial) process.stderr.write(`${PARTIAL_HINT}\n`);
  return code;
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

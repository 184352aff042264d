/**
 * The library API: `import { runConformance } from 'mcp-conformance'`.
 *
 * `runConformance` runs the suite against one server and resolves to the
 * result model (never rejects: a run that cannot do its job comes back with
 * `aborted` set and `exitCode` 2). Beside the engine's options it takes the
 * CLI's selection and gate options: `skip`, `shard` and `baseline`. The
 * renderers turn a result into the CLI's reports.
 *
 * ```ts
 * import { runConformance } from 'mcp-conformance';
 * const run = await runConformance({ command: 'node dist/server.js', checks: ['tools-list/*'] });
 * expect(run.summary.fail).toBe(0);
 * ```
 */
import { applyBaseline, loadBaseline, markExpected, type Baseline } from '../engine/baseline.js';
import { DEFAULTS, runConformance as runEngine, toolVersion, type RunOptions } from '../engine/run.js';
import { describePlan, planChecks, selectionRecord, type Shard } from '../engine/shard.js';
import { summarize, type RunResult } from '../model/results.js';

export interface ConformanceOptions extends RunOptions {
  /** Check ids or globs left out (as `--skip`; the config's `checks.exclude` is added). */
  skip?: string[];
  /** Run one part of the catalogue (as `--shard index/total`). */
  shard?: Shard;
  /** A baseline file's path, or its content: listed fails and warns do not fail the run, stale entries do. */
  baseline?: string | Baseline;
}

/** A result for a run that never started (bad options). */
export function abortedResult(cause: string, options: Pick<RunOptions, 'command' | 'url' | 'spec' | 'strict'> = {}): RunResult {
  return {
    tool: toolVersion(),
    startedAt: new Date().toISOString(),
    durationMs: 0,
    target: {
      transport: options.url ? 'http' : 'stdio',
      ...(options.command ? { command: options.command } : {}),
      ...(options.url ? { url: options.url } : {}),
    },
    revision: options.spec ?? DEFAULTS.spec,
    strict: !!options.strict,
    checks: [],
    summary: summarize([]),
    stderr: '',
    aborted: cause,
    harnessErrors: [],
    exitCode: 2,
  };
}

/** Runs the suite against one server; resolves to the result model. */
export async function runConformance(options: ConformanceOptions): Promise<RunResult> {
  const { skip, shard, baseline, ...engine } = options;
  let loaded: Baseline | undefined;
  try {
    loaded = typeof baseline === 'string' ? loadBaseline(baseline) : baseline;
  } catch (err) {
    return abortedResult((err as Error).message, options);
  }
  const plan = {
    include: options.checks ?? [],
    exclude: [...(skip ?? []), ...(options.config?.checks?.exclude ?? [])],
    ...(shard ? { shard } : {}),
  };
  const selected = planChecks(plan);
  if (selected.length === 0) return abortedResult(`no check is left to run by ${describePlan(plan)} (see "mcp-conformance list")`, options);
  const onResult = engine.onResult;
  const run = await runEngine({
    ...engine,
    checks: selected.map((c) => c.id),
    // A live report shows a baselined failure as expected from the start.
    ...(onResult && loaded ? { onResult: (e) => (markExpected(e.result, loaded!), onResult(e)) } : {}),
  });
  // What `merge` needs to tell shards of one set apart.
  run.catalogue = selectionRecord(plan);
  if (shard) run.shard = shard;
  return loaded ? applyBaseline(run, loaded) : run;
}

export { applyBaseline, baselineEntries, baselineText, loadBaseline } from '../engine/baseline.js';
export type { Baseline } from '../engine/baseline.js';
export { mergeRuns, parseShard, planChecks } from '../engine/shard.js';
export type { Plan, Shard } from '../engine/shard.js';
export { DEFAULTS, SPEC_CHOICES, REVISIONS, toolVersion } from '../engine/run.js';
export type { RunOptions } from '../engine/run.js';
export { renderConsole, renderHtml, renderJUnit, renderJson, renderAnnotations, renderStepSummary, writeReports } from '../render/index.js';
export type { ReportPaths } from '../render/index.js';
export { COUNT_LABELS, VERDICTS, countRun, summarize } from '../model/results.js';
export type {
  BaselineEntry,
  BaselineOutcome,
  CheckInfo,
  CheckResult,
  Finding,
  ReplayCase,
  RunResult,
  RunSummary,
  SubjectResult,
  Verdict,
} from '../model/results.js';
export type { Config } from '../model/config.js';

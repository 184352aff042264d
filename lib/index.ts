/**
 * The library API: `import { runConformance } from 'mcp-conformance'`.
 *
 * The engine's names, exported as they are: `runConformance` (engine/run.ts)
 * runs the suite against one server and resolves to the result model (never
 * rejects: a run that cannot do its job comes back with `aborted` set and
 * `exitCode` 2); beside the run's options it takes the CLI's selection and
 * gate options `skip`, `shard` and `baseline`. The renderers turn a result
 * into the CLI's reports.
 *
 * ```ts
 * import { runConformance } from 'mcp-conformance';
 * const run = await runConformance({ command: 'node dist/server.js', checks: ['tools-list/*'] });
 * expect(run.summary.fail).toBe(0);
 * ```
 */
export { applyBaseline, baselineEntries, baselineText, loadBaseline } from '../engine/baseline.js';
export type { Baseline } from '../engine/baseline.js';
export { mergeRuns, parseShard, planChecks } from '../engine/shard.js';
export type { Plan, Shard } from '../engine/shard.js';
export { abortedResult, DEFAULTS, runConformance, SPEC_CHOICES, REVISIONS, toolVersion } from '../engine/run.js';
export type { ConformanceOptions, RunOptions } from '../engine/run.js';
export { renderConsole, renderHtml, renderJUnit, renderJson, renderAnnotations, renderStepSummary, writeReports } from '../render/index.js';
export type { ReportPaths } from '../render/index.js';
export { COUNT_LABELS, VERDICTS, countRun, summarize } from '../model/results.js';
export type {
  BaselineEntry,
  BaselineOutcome,
  CheckInfo,
  LeftOut,
  LeftOutSource,
  Selection,
  CheckResult,
  Finding,
  ReplayCase,
  RunResult,
  RunSummary,
  SubjectResult,
  Verdict,
} from '../model/results.js';
export type { Config } from '../model/config.js';

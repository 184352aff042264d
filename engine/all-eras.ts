/**
 * `--spec all`: a dual-era server tested in both eras in one invocation. The
 * engine runs once per era (modern first, each forced, so an era the server
 * does not speak ends that part with a one-line cause), and the result holds
 * both complete runs under `eras`; the top-level counts and exit code cover
 * both.
 */
import { LEGACY_REVISION, MODERN_REVISION } from '../harness/era.js';
import { summarize, type HeldBack, type RunResult, type RunSummary } from '../model/results.js';
import type { RunOptions } from './run.js';

const DEFAULT_DEADLINE_MS = 600_000;

export async function runBothEras(options: RunOptions, run: (o: RunOptions) => Promise<RunResult>): Promise<RunResult> {
  const started = Date.now();
  const deadline = options.runTimeoutMs ?? DEFAULT_DEADLINE_MS;
  const eras: RunResult[] = [];
  for (const spec of [MODERN_REVISION, LEGACY_REVISION]) {
    const left = Math.max(1, deadline - (Date.now() - started));
    eras.push(await run({ ...options, spec, runTimeoutMs: left }));
    if (options.signal?.aborted) break;
  }
  return combine(eras, started);
}

/** One result standing for several per-era runs. */
export function combine(eras: RunResult[], started: number): RunResult {
  const first = eras[0]!;
  const summary: RunSummary = summarize([]);
  for (const e of eras) {
    for (const k of Object.keys(summary) as Array<keyof RunSummary>) summary[k] += e.summary[k];
  }
  const aborted = eras.filter((e) => e.aborted !== undefined).map((e) => `${e.revision}: ${e.aborted}`);
  const harnessErrors = eras.flatMap((e) => e.harnessErrors.map((h) => `${e.revision}: ${h}`));
  const exitCode = eras.some((e) => e.exitCode === 2) ? 2 : eras.some((e) => e.exitCode === 1) ? 1 : 0;
  const server = eras.find((e) => e.server)?.server;
  const held = mergeHeldBack(eras);
  return {
    tool: first.tool,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    target: first.target,
    revision: 'all',
    ...(server ? { server } : {}),
    strict: first.strict,
    checks: [],
    summary,
    stderr: eras
      .map((e) => e.stderr)
      .filter((t) => t !== '')
      .join('\n'),
    ...(aborted.length ? { aborted: aborted.join('; ') } : {}),
    harnessErrors,
    ...(held ? { heldBack: held } : {}),
    exitCode,
    eras,
  };
}

/** One held-back record for several runs (eras, shards): every tool any of them held back. */
export function mergeHeldBack(runs: RunResult[]): HeldBack | undefined {
  const parts = runs.map((r) => r.heldBack).filter((h): h is HeldBack => !!h);
  if (!parts.length) return undefined;
  const tools = [...new Set(parts.flatMap((h) => h.tools))].sort();
  return { tools, results: parts.reduce((n, h) => n + h.results, 0), remedy: parts[0]!.remedy };
}

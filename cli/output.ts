/**
 * What the CLI does once a run (or a merge) has a result: the GitHub
 * annotations and step summary when running in GitHub Actions, the report
 * files (bounded in time, with a fallback folder), `--write-baseline`, and
 * the one-line cause of a run that could not do its job.
 */
import { appendFile } from 'node:fs/promises';
import { baselineEntries, baselineText, type Baseline } from '../engine/baseline.js';
import type { RunResult } from '../model/results.js';
import { abortLine } from '../render/text.js';
import { renderAnnotations, renderStepSummary, within, writeReportFile, writeReportsWithin, type ReportPaths } from '../render/index.js';

export interface OutputOptions extends ReportPaths {
  /** Time report writing may take in all. */
  timeoutMs: number;
  writeBaseline?: string;
  /** The baseline the run was judged against (its reasons are kept by --write-baseline). */
  baseline?: Baseline;
  env?: NodeJS.ProcessEnv;
  stderr?: (text: string) => void;
  stdout?: (text: string) => void;
}

/** Writes every output of a finished run; returns the exit code. */
export async function deliver(run: RunResult, o: OutputOptions): Promise<number> {
  const env = o.env ?? process.env;
  const err = o.stderr ?? ((t: string) => void process.stderr.write(t));
  const out = o.stdout ?? ((t: string) => void process.stdout.write(t));
  let code: number = run.exitCode;

  const started = Date.now();
  const left = () => Math.max(500, o.timeoutMs - (Date.now() - started));
  if (env.GITHUB_ACTIONS === 'true') out(renderAnnotations(run));
  if (env.GITHUB_STEP_SUMMARY) {
    try {
      await within(left() / 4, `appending to ${env.GITHUB_STEP_SUMMARY}`, appendFile(env.GITHUB_STEP_SUMMARY, renderStepSummary(run)));
    } catch (e) {
      err(`mcp-conformance: cannot write the step summary to ${env.GITHUB_STEP_SUMMARY}: ${(e as Error).message}\n`);
    }
  }

  const written = await writeReportsWithin(run, o, left());
  for (const f of written.fallbacks) {
    err(`mcp-conformance: cannot write ${f.path} (${f.cause}); wrote ${f.fallback} instead\n`);
    code = 2;
  }
  for (const f of written.lost) {
    err(`mcp-conformance: cannot write ${f.path}, nor the fallback ${f.fallback}: ${f.cause}\n`);
    code = 2;
  }

  if (o.writeBaseline && run.aborted !== undefined) {
    err(
      `mcp-conformance: not writing the baseline ${o.writeBaseline}: the run could not do its job, so its failures are not the server's known ones\n`,
    );
  } else if (o.writeBaseline && run.incomplete !== undefined) {
    err(`mcp-conformance: not writing the baseline ${o.writeBaseline}: the merged result is incomplete (${run.incomplete})\n`);
  } else if (o.writeBaseline) {
    const entries = baselineEntries(run, o.baseline);
    try {
      await within(left(), `writing ${o.writeBaseline}`, writeReportFile(o.writeBaseline, baselineText(entries, o.writeBaseline)));
      err(
        `mcp-conformance: wrote ${entries.length} baseline entr${entries.length === 1 ? 'y' : 'ies'} to ${o.writeBaseline} (give each a real reason)\n`,
      );
    } catch (e) {
      err(`mcp-conformance: cannot write the baseline ${o.writeBaseline}: ${(e as Error).message}\n`);
      code = 2;
    }
  }

  if (run.aborted !== undefined) err(`mcp-conformance: ${abortLine(run)}\n`);
  return code;
}

/**
 * The results matrix: every target of a targets file run by the normal run
 * (the runner the CLI hands in: its flags parsed as on the command line),
 * up to `jobs` at once within one deadline, each into its own reports
 * folder (`targets/<label>/` and, through its gateway, `targets/<label>.via/`:
 * results.json, junit.xml, report.html, as the run writes them), then
 * `matrix.json` and `matrix.html` beside them.
 *
 * With a spec working copy (`specDir`), the runs validate against its
 * schemas, and a check whose quote the copy no longer holds has its verdict
 * withheld (not observed, with the reason): a verdict the suite cannot
 * ground in the spec is not a verdict.
 */
import { join, resolve } from 'node:path';
import { citationsOf } from '../suites/check.js';
import { catalogue } from '../suites/index.js';
import { countRun, exitCodeOf, type CheckResult, type RunResult } from '../model/results.js';
import type { GatewayChange, MatrixCell, MatrixColumn, MatrixResult, MatrixRow, TargetSpec } from '../model/matrix.js';
import { checkAnchor, checkVerdict } from '../render/html.js';
import { renderMatrixHtml } from '../render/matrix.js';
import { writeFileAtomic, writeReportsWithin } from '../render/index.js';
import { findQuote, specSource } from './spec-pages.js';
import { placeholders, targetArgv, type LoadedTargets } from './matrix-targets.js';
import { toolVersion } from './run.js';

/** What the runner gets for one run of a target. */
export interface RunnerOptions {
  /** The server's working folder. */
  cwd: string;
  signal: AbortSignal;
  /** What is left of the matrix's deadline. */
  deadlineMs: number;
  /** A spec working copy's schemas folder (`<revision>/schema.json`). */
  schemaDir?: string;
}

/** One run of the suite for a command line (flags as the CLI takes them); never rejects. */
export type TargetRunner = (argv: string[], o: RunnerOptions) => Promise<RunResult>;

export interface MatrixOptions {
  targets: LoadedTargets;
  outDir: string;
  /** Target runs at once. */
  jobs: number;
  deadlineMs: number;
  run: TargetRunner;
  /** The result of a run that could not start (e.g. a placeholder that cannot be expanded). */
  aborted: (cause: string) => RunResult;
  /** Flags every target's run gets before its own (e.g. --timeout, --check). */
  commonArgs?: string[];
  specDir?: string;
  /** A schema.json for the modern revision, as `--schema`. */
  schema?: string;
  signal?: AbortSignal;
  /** Each run as it finishes. */
  onRun?: (label: string, variant: 'direct' | 'via', run: RunResult) => void;
}

interface Unit {
  target: TargetSpec;
  variant: 'direct' | 'via';
  folder: string;
  run?: RunResult;
}

const REPORT_TIME_MS = 10_000;

/** Runs the matrix, writes every report and returns it. */
export async function runMatrix(o: MatrixOptions): Promise<MatrixResult> {
  const started = Date.now();
  const units: Unit[] = o.targets.targets.flatMap((t) => [
    { target: t, variant: 'direct' as const, folder: `targets/${t.label}` },
    ...(t.via !== undefined ? [{ target: t, variant: 'via' as const, folder: `targets/${t.label}.via` }] : []),
  ]);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`the matrix deadline of ${o.deadlineMs / 1000} s was reached`)), o.deadlineMs);
  const onAbort = () => stop.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const stale = o.specDir ? staleChecks(o.specDir) : new Map<string, string>();
  try {
    let next = 0;
    const worker = async () => {
      while (next < units.length) {
        const u = units[next++]!;
        u.run = await runUnit(u, o, stop.signal, started);
        withhold(u.run, stale, o.specDir);
        await writeReportsWithin(u.run, reportPaths(o.outDir, u.folder), REPORT_TIME_MS);
        o.onRun?.(u.target.label, u.variant, u.run);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.jobs, units.length)) }, worker));
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
  const matrix = assemble(units, started, o, [...new Set(stale.keys())].sort());
  await writeFileAtomic(join(o.outDir, 'matrix.json'), `${JSON.stringify(matrix, null, 2)}\n`);
  await writeFileAtomic(join(o.outDir, 'matrix.html'), renderMatrixHtml(matrix));
  return matrix;
}

function reportPaths(outDir: string, folder: string) {
  return {
    jsonPath: join(outDir, folder, 'results.json'),
    junitPath: join(outDir, folder, 'junit.xml'),
    htmlPath: join(outDir, folder, 'report.html'),
  };
}

async function runUnit(u: Unit, o: MatrixOptions, signal: AbortSignal, started: number): Promise<RunResult> {
  const dir = o.targets.dir;
  const p = await placeholders(dir);
  try {
    const argv = [
      ...(o.commonArgs ?? []),
      ...(o.schema ? ['--schema', resolve(o.schema)] : []),
      ...targetArgv(u.target, dir, p, u.variant),
    ];
    const cwd = u.target.cwd !== undefined ? resolve(dir, p.expand(u.target.cwd)) : dir;
    const schemaDir = o.specDir ? specSource(o.specDir).schemas : undefined;
    return await o.run(argv, {
      cwd,
      signal,
      deadlineMs: Math.max(1, o.deadlineMs - (Date.now() - started)),
      ...(schemaDir ? { schemaDir } : {}),
    });
  } catch (err) {
    // A placeholder that cannot be expanded: this target cannot run; the others go on.
    return o.aborted(`target ${u.target.label}: ${(err as Error).message}`);
  } finally {
    p.dispose();
  }
}

/** Check id → why the spec copy no longer grounds it (its first citation, of any era, the copy does not hold). */
function staleChecks(specDir: string): Map<string, string> {
  const source = specSource(specDir);
  const out = new Map<string, string>();
  for (const check of catalogue) {
    for (const { citation } of citationsOf(check)) {
      const problem = findQuote(source, citation.spec, citation.quote);
      if (problem && !out.has(`${citation.spec.revision}\u0000${check.id}`))
        out.set(`${citation.spec.revision}\u0000${check.id}`, problem.detail);
    }
  }
  return out;
}

/** Withholds the verdicts of checks whose quotes the spec copy no longer holds (in the revision the result cites). */
function withhold(run: RunResult, stale: Map<string, string>, specDir?: string): void {
  if (stale.size === 0) return;
  const parts = run.eras ?? [run];
  for (const part of parts) {
    for (const c of part.checks) {
      const why = stale.get(`${c.spec.revision}\u0000${c.id}`);
      if (why !== undefined) withholdCheck(c, why, specDir!);
    }
    part.summary = countRun(part);
    part.exitCode = exitCodeOf(part);
  }
  if (run.eras) run.summary = countRun(run);
  // A withheld failure no longer fails the run: the gate's own rule (model/results.ts) says what it exits.
  run.exitCode = exitCodeOf(run);
}

function withholdCheck(c: CheckResult, why: string, specDir: string): void {
  const reason = `verdict withheld: the spec at ${specDir} no longer holds this check's quote (${why}); update the check to the changed text (see mcp-conformance quotes --spec-dir ${specDir})`;
  c.results = c.results.map((r) => ({ subject: r.subject, verdict: 'not-observed', reason, findings: [], durationMs: r.durationMs }));
}

const shortText = (s: string) => s.replace(/\s+/g, ' ').slice(0, 240);

function detailOf(c: CheckResult): string | undefined {
  const problem = c.results.find((r) => r.findings.length > 0);
  const f = problem?.findings[0];
  if (f) return shortText(`${problem!.subject}: expected ${f.expected}; seen ${f.actual}`);
  const r = c.results.find((x) => x.reason);
  return r?.reason ? shortText(r.reason) : undefined;
}

function columnsOf(u: Unit): Array<{ column: MatrixColumn; part: RunResult; era?: string }> {
  const run = u.run!;
  const parts = run.eras ?? [run];
  return parts.map((part) => {
    const era = run.eras ? part.era?.era : undefined;
    const id = `${u.target.label}${era ? ` [${era}]` : ''}${u.variant === 'via' ? ' via gateway' : ''}`;
    const column: MatrixColumn = {
      id,
      target: u.target.label,
      variant: u.variant,
      transport: part.target.transport,
      ...(part.target.command !== undefined ? { command: part.target.command } : {}),
      ...(part.target.url !== undefined ? { url: part.target.url } : {}),
      ...(u.variant === 'via' ? { via: u.target.via! } : {}),
      revision: part.revision,
      ...(part.era ? { era: part.era.era } : {}),
      reports: { json: `${u.folder}/results.json`, junit: `${u.folder}/junit.xml`, html: `${u.folder}/report.html` },
      summary: part.summary,
      exitCode: part.exitCode,
      ...(run.aborted !== undefined || part.aborted !== undefined ? { aborted: part.aborted ?? run.aborted } : {}),
    };
    return { column, part, ...(era ? { era } : {}) };
  });
}

function assemble(units: Unit[], started: number, o: MatrixOptions, withheld: string[]): MatrixResult {
  const columns: MatrixColumn[] = [];
  const rows = new Map<string, MatrixRow>();
  const cells: MatrixCell[] = [];
  for (const u of units) {
    for (const { column, part, era } of columnsOf(u)) {
      columns.push(column);
      for (const c of part.checks) {
        if (!rows.has(c.id))
          rows.set(c.id, { id: c.id, area: c.area, title: c.title, level: c.level, spec: c.spec, requirement: c.requirement });
        const detail = detailOf(c);
        cells.push({
          column: column.id,
          check: c.id,
          verdict: checkVerdict(c),
          subjects: c.results.length,
          ...(detail ? { detail } : {}),
          href: `${column.reports.html}#${checkAnchor(c.id, era)}`,
        });
      }
    }
  }
  const gatewayChanges = markGatewayChanges(columns, cells);
  const aborted = columns.some((c) => c.aborted !== undefined);
  return {
    schemaVersion: 1,
    tool: toolVersion(),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    ...(o.specDir || o.schema
      ? {
          spec: {
            ...(o.specDir ? { dir: o.specDir } : {}),
            ...(o.schema ? { schema: o.schema } : {}),
            withheld: [...new Set(withheld.map((k) => k.split('\u0000')[1]!))],
          },
        }
      : {}),
    columns,
    rows: [...rows.values()],
    cells,
    gatewayChanges,
    exitCode: aborted ? 2 : gatewayChanges.length > 0 ? 1 : 0,
  };
}

/** Pairs each proxied column with its direct one; every verdict that differs is a change the gateway made. */
function markGatewayChanges(columns: MatrixColumn[], cells: MatrixCell[]): GatewayChange[] {
  const changes: GatewayChange[] = [];
  const byColumn = new Map<string, Map<string, MatrixCell>>();
  for (const cell of cells) {
    if (!byColumn.has(cell.column)) byColumn.set(cell.column, new Map());
    byColumn.get(cell.column)!.set(cell.check, cell);
  }
  for (const via of columns.filter((c) => c.variant === 'via')) {
    const direct = columns.find((c) => c.variant === 'direct' && c.target === via.target && c.era === via.era);
    if (!direct) continue;
    const d = byColumn.get(direct.id) ?? new Map<string, MatrixCell>();
    const v = byColumn.get(via.id) ?? new Map<string, MatrixCell>();
    for (const [check, dc] of d) {
      const vc = v.get(check);
      if (vc && vc.verdict === dc.verdict) continue;
      if (vc) vc.direct = dc.verdict;
      changes.push({
        target: via.target,
        ...(via.era ? { era: via.era } : {}),
        check,
        direct: dc.verdict,
        via: vc?.verdict ?? 'not-observed',
        ...(vc?.detail ? { detail: vc.detail } : {}),
      });
    }
  }
  return changes;
}

/**
 * The results matrix (`mcp-conformance matrix`): many targets' runs side by
 * side, as `matrix.json` holds it (its published schema is
 * model/matrix.schema.json) and render/matrix-html.ts shows it. Ground
 * layer: types only.
 */
import type { CheckInfo, RunSummary, Verdict } from './results.js';
import type { Era, TransportKind } from './wire.js';

/** A cell's verdict: a check's verdict, or `expected` when all its fails and warns are in the target's baseline. */
export type MatrixVerdict = Verdict | 'expected';

export const MATRIX_VERDICTS: readonly MatrixVerdict[] = ['pass', 'fail', 'warn', 'skip', 'not-observed', 'expected'];

/** One server of a targets file, as written (placeholders not yet expanded). */
export interface TargetSpec {
  label: string;
  /** As `--server` (`reference [args]` is the bundled reference server). */
  server?: string;
  /** As `--url`. */
  url?: string;
  /** As `--env KEY=VALUE`, one entry each. */
  env?: Record<string, string>;
  /** As `--config` (relative to the targets file). */
  config?: string;
  /** The server's working folder (relative to the targets file; default: the targets file's folder). */
  cwd?: string;
  /** Further flags of the run, as on the command line. */
  flags?: string[];
  /** A gateway command that proxies the server: it is run with the server's command as its last arguments. */
  via?: string;
  /** An HTTP server's gateway: the URL the gateway serves (the proxied run's `--url`). */
  viaUrl?: string;
}

/** One column: one era of one target's run, directly or through its gateway. */
export interface MatrixColumn {
  /** Unique in the matrix: `label`, `label [legacy]`, `label via gateway`. */
  id: string;
  target: string;
  variant: 'direct' | 'via';
  transport: TransportKind;
  command?: string;
  url?: string;
  /** The gateway command (variant `via`). */
  via?: string;
  /** The revision and era the run spoke. */
  revision: string;
  era?: Era;
  /** The target's reports, relative to matrix.json. */
  reports: { json: string; junit: string; html: string };
  summary: RunSummary;
  /** The target run's exit code (0 passed, 1 failed, 2 could not do its job). */
  exitCode: 0 | 1 | 2;
  aborted?: string;
}

/** A row: one check, as the runs reported it (the result model's own fields). */
export type MatrixRow = Pick<CheckInfo, 'id' | 'area' | 'title' | 'level' | 'spec' | 'requirement'>;

export interface MatrixCell {
  column: string;
  check: string;
  verdict: MatrixVerdict;
  /** Subjects judged (the server, or one per tool). */
  subjects: number;
  /** The first finding (expected; seen) or the reason, in one line. */
  detail?: string;
  /** The target's HTML report at this check, relative to matrix.json. */
  href: string;
  /** Variant `via`: the direct run's verdict, when the gateway changed it. */
  direct?: MatrixVerdict;
}

/** A verdict a gateway changed: the same check, directly and proxied. */
export interface GatewayChange {
  target: string;
  era?: Era;
  check: string;
  direct: MatrixVerdict;
  via: MatrixVerdict;
  detail?: string;
}

export interface MatrixResult {
  schemaVersion: 1;
  tool: { name: string; version: string };
  startedAt: string;
  durationMs: number;
  /** The spec the runs were judged against, when not the bundled one. */
  spec?: { dir?: string; schema?: string; withheld: string[] };
  columns: MatrixColumn[];
  rows: MatrixRow[];
  cells: MatrixCell[];
  gatewayChanges: GatewayChange[];
  /** 0: every target ran and no gateway changed a verdict; 1: a gateway changed one; 2: a target could not run. */
  exitCode: 0 | 1 | 2;
}

/** A verdict that moved between two matrices (`matrix --compare`). */
export interface MatrixMove {
  column: string;
  check: string;
  before?: MatrixVerdict;
  after?: MatrixVerdict;
  worse: boolean;
  detail?: string;
}

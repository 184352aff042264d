/**
 * `mcp-conformance matrix <targets.yaml>`: the results matrix of many
 * targets (engine/matrix.ts runs it; render/matrix.ts draws it). Each
 * target's flags are parsed and prepared exactly as the run's own command
 * line (cli/main.ts), then run by the library's `runConformance`.
 *
 * `matrix --compare before.json after.json`: the verdicts that moved, worst
 * first; exit 1 when something got worse.
 *
 * Exit codes: 0 every target ran and no gateway changed a verdict; 1 a
 * gateway changed one (or, with --compare, a verdict got worse); 2 a target
 * could not run, or bad arguments.
 */
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { compareMatrices, readMatrix } from '../engine/matrix-compare.js';
import { loadTargets } from '../engine/matrix-targets.js';
import { runMatrix, type RunnerOptions } from '../engine/matrix.js';
import { abortedResult, runConformance } from '../lib/index.js';
import type { RunResult } from '../model/results.js';
import { renderMatrixText, renderMoves } from '../render/matrix.js';
import { prepare, program, runOptions, type Flags } from './main.js';
import { collect, guarded, type SubcommandContext } from './subcommand.js';

export const DEFAULT_MATRIX_DIR = 'reports/matrix';

interface MatrixFlags {
  out: string;
  jobs: number;
  deadline: number;
  timeout?: number;
  check: string[];
  specDir?: string;
  schema?: string;
  compare?: boolean;
  json?: boolean;
}

const positiveInt = (label: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${label} must be a positive whole number`);
  return n;
};

/** One target's run: its command line parsed and prepared as the run's own; never rejects. */
export async function runTargetArgv(argv: string[], o: RunnerOptions): Promise<RunResult> {
  const cmd = program();
  let flags: Flags;
  try {
    await cmd.parseAsync(argv, { from: 'user' });
    if (cmd.args.length > 0) throw new Error(`unexpected argument ${JSON.stringify(cmd.args[0])}`);
    flags = cmd.opts<Flags>();
  } catch (err) {
    const why = err instanceof CommanderError ? err.message.replace(/^error: /, '') : (err as Error).message;
    return abortedResult(`bad flags for this target: ${why}`);
  }
  try {
    const options = runOptions(flags, prepare(flags), argv);
    return await runConformance({
      ...options,
      cwd: options.cwd ?? o.cwd,
      signal: o.signal,
      runTimeoutMs: Math.min(flags.deadline, o.deadlineMs),
      jobs: flags.jobs,
      ...(o.schemaDir ? { schemaDir: o.schemaDir } : {}),
    });
  } catch (err) {
    return abortedResult((err as Error).message, { command: flags.server, url: flags.url });
  }
}

async function matrix(files: string[], f: MatrixFlags): Promise<number> {
  if (f.compare) {
    if (files.length !== 2) throw new Error('--compare takes two matrix.json files: before and after');
    const moves = compareMatrices(readMatrix(files[0]!), readMatrix(files[1]!));
    process.stdout.write(f.json ? `${JSON.stringify(moves, null, 2)}\n` : renderMoves(moves));
    return moves.some((m) => m.worse) ? 1 : 0;
  }
  if (files.length !== 1) throw new Error('give one targets file (or --compare before.json after.json)');
  const targets = loadTargets(files[0]!);
  const interrupt = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => interrupt.abort(new Error(`interrupted by ${sig}`));
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const sig of signals) process.on(sig, onSignal);
  try {
    const out = resolve(f.out);
    const m = await runMatrix({
      targets,
      outDir: out,
      jobs: f.jobs,
      deadlineMs: f.deadline,
      run: runTargetArgv,
      aborted: (cause) => abortedResult(cause),
      commonArgs: [...(f.timeout ? ['--timeout', String(f.timeout)] : []), ...f.check.flatMap((c) => ['--check', c])],
      ...(f.specDir ? { specDir: resolve(f.specDir) } : {}),
      ...(f.schema ? { schema: resolve(f.schema) } : {}),
      signal: interrupt.signal,
      onRun: (label, variant, run) =>
        process.stderr.write(
          `matrix: ${label}${variant === 'via' ? ' via gateway' : ''}: ${run.aborted !== undefined ? `could not run: ${run.aborted}` : `exit ${run.exitCode}`}\n`,
        ),
    });
    process.stdout.write(renderMatrixText(m));
    process.stdout.write(`wrote ${out}/matrix.html and ${out}/matrix.json\n`);
    return m.exitCode;
  } finally {
    for (const sig of signals) process.off(sig, onSignal);
  }
}

export function registerMatrix(program: Command, ctx: SubcommandContext): void {
  program
    .command('matrix')
    .description(
      "run many targets (a targets file) side by side: matrix.json, matrix.html and each target's reports; or --compare two matrices",
    )
    .argument('<files...>', 'a targets file (YAML or JSON); with --compare: before.json after.json')
    .option('--out <dir>', 'folder of matrix.json, matrix.html and targets/<label>/', DEFAULT_MATRIX_DIR)
    .option('--jobs <n>', 'target runs at once', positiveInt('--jobs'), 2)
    .option('--deadline <ms>', 'deadline of the whole matrix', positiveInt('--deadline'), 1_800_000)
    .option('--timeout <ms>', "every target's per-request timeout (a target's own flags win)", positiveInt('--timeout'))
    .option('--check <id-or-glob>', 'run only matching checks on every target (repeatable)', collect, [])
    .option('--spec-dir <path>', 'judge against a spec working copy: its schemas, and withhold verdicts whose quote it no longer holds')
    .option('--schema <path>', "validate against this schema.json (the modern revision's), as the run's --schema")
    .option('--compare', 'compare two matrix.json files: the verdicts that moved, worst first; exit 1 when one got worse')
    .option('--json', 'with --compare: the moves as JSON')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((files: string[], opts: MatrixFlags) => guarded(ctx, 'matrix', () => matrix(files, opts)));
}

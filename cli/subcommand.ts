/**
 * How the tool's subcommands (list, coverage, quotes, diff) are registered and
 * run. Each cli/<name>.ts exports a `register<Name>(program, ctx)` that adds
 * its command to a commander program and reports its exit code through `ctx`
 * (the same shape as the run's own subcommand registry, so the registrations
 * plug into either). `dispatchSubcommand` parses them on their own, before the
 * run's options are parsed, so `--json <path>` and `--check` of the run never
 * swallow theirs. Exit codes: the command's own, 0 after --help, 2 on bad
 * arguments or an error (one line on stderr).
 */
import { Command, CommanderError } from 'commander';

/** What a subcommand gets: the way to set the exit code of the invocation. */
export interface SubcommandContext {
  setExitCode(code: number): void;
}

export type RegisterSubcommand = (program: Command, ctx: SubcommandContext) => void;

/** Runs a subcommand's body: its exit code, or 2 with one line on stderr when it throws. */
export async function guarded(ctx: SubcommandContext, name: string, body: () => Promise<number> | number): Promise<void> {
  try {
    ctx.setExitCode(await body());
  } catch (err) {
    process.stderr.write(`mcp-conformance ${name}: ${(err as Error).message.split('\n')[0]}\n`);
    ctx.setExitCode(2);
  }
}

/** When argv names one of the registered subcommands: run it and give its exit code; otherwise undefined. */
export async function dispatchSubcommand(argv: string[], registers: readonly RegisterSubcommand[]): Promise<number | undefined> {
  let code: number | undefined;
  const root = new Command('mcp-conformance').exitOverride().configureOutput({ writeErr: () => {} });
  for (const register of registers) register(root, { setExitCode: (c) => void (code = c) });
  if (!root.commands.some((c) => c.name() === argv[0])) return undefined;
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') return 0;
    process.stderr.write(`mcp-conformance ${argv[0]}: ${err.message.replace(/^error: /, '')}\n`);
    return 2;
  }
  return code ?? 0;
}

export const collect = (value: string, prev: string[]) => [...prev, value];

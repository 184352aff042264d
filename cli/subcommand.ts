/**
 * How the tool's subcommands (list, coverage, quotes, diff) parse their own
 * arguments: each is its own commander program, so the run's options
 * (`--json <path>`, `--check`) never swallow theirs. Exit codes: the
 * command's own, 0 after --help, 2 on bad arguments (one line on stderr).
 */
import { Command, CommanderError, type OptionValues } from 'commander';

export type Subcommand = (argv: string[]) => Promise<number>;

/** Parse `argv` with `cmd`, then run `act` on the parsed options and arguments. */
export async function runSubcommand<O extends OptionValues>(
  cmd: Command,
  argv: string[],
  act: (opts: O, args: string[]) => Promise<number> | number,
): Promise<number> {
  cmd.exitOverride().configureOutput({ writeErr: () => {} });
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') return 0;
      process.stderr.write(`${cmd.name()}: ${err.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    throw err;
  }
  try {
    return await act(cmd.opts<O>(), cmd.args);
  } catch (err) {
    process.stderr.write(`${cmd.name()}: ${(err as Error).message.split('\n')[0]}\n`);
    return 2;
  }
}

export const collect = (value: string, prev: string[]) => [...prev, value];

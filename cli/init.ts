/**
 * `mcp-conformance init`: write an annotated configuration file for a server
 * (engine/init.ts does the work).
 *
 *   init --server "<command>" | --url <url> [--header ...] [--env ...] [--spec R]
 *        [--timeout MS] [--startup-timeout MS] [--output PATH] [--force]
 *
 * The server is reached with the same flags as a run. The file is written to
 * mcp-conformance.config.yaml in the current folder (or --output), never over
 * an existing file unless --force.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CONFIG_NAMES } from '../engine/config.js';
import { writeInitConfig } from '../engine/init.js';
import { DEFAULTS, SPEC_CHOICES } from '../engine/run.js';
import { splitCommand } from '../engine/host.js';
import { expandServer, parseEnv, parseHeaders } from './launch.js';
import { collect, guarded, type SubcommandContext } from './subcommand.js';

interface InitFlags {
  server?: string;
  url?: string;
  header: string[];
  env: string[];
  spec: string;
  timeout: number;
  probeTimeout: number;
  startupTimeout: number;
  shutdownTimeout: number;
  output: string;
  force: boolean;
}

const positiveInt = (label: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${label} must be a positive whole number`);
  return n;
};

async function init(flags: InitFlags): Promise<number> {
  if (!flags.server && !flags.url) throw new Error('nothing to survey: give --server "<command>" or --url <url>');
  if (flags.server !== undefined && splitCommand(flags.server).length === 0) throw new Error('the --server command is empty');
  const survey = await writeInitConfig({
    ...(flags.server !== undefined ? { command: flags.server, launch: expandServer(flags.server) } : {}),
    ...(flags.url !== undefined ? { url: flags.url } : {}),
    headers: parseHeaders(flags.header),
    env: parseEnv(flags.env),
    spec: flags.spec,
    requestTimeoutMs: flags.timeout,
    probeTimeoutMs: flags.probeTimeout,
    startupTimeoutMs: flags.startupTimeout,
    shutdownGraceMs: flags.shutdownTimeout,
    output: flags.output,
    force: flags.force,
  });
  const who = survey.server?.name ?? 'the server';
  process.stdout.write(
    `wrote ${flags.output}: ${who} (${survey.revision}, ${survey.era} era), ${survey.tools.length} tool(s), ${survey.prompts.length} prompt(s), ${survey.resources.length} resource(s)\n`,
  );
  return 0;
}

export function registerInit(program: Command, ctx: SubcommandContext): void {
  program
    .command('init')
    .description('connect to a server, list what it offers, and write an annotated configuration file for it')
    .option('--server <command>', 'launch this server command (stdio, or with --url the HTTP server to start)')
    .option('--url <url>', 'Streamable HTTP endpoint of the server')
    .option('--header <"Name: value">', 'HTTP header sent on every request (repeatable; never written to the file)', collect, [])
    .option('--env <KEY=VALUE>', 'environment variable for the launched server (repeatable; never written to the file)', collect, [])
    .addOption(
      new Option('--spec <revision>', 'protocol revision, as for a run')
        .choices([...SPEC_CHOICES].filter((c) => c !== 'all'))
        .default(DEFAULTS.spec),
    )
    .option('--timeout <ms>', 'per-request timeout', positiveInt('--timeout'), DEFAULTS.requestTimeoutMs)
    .option('--probe-timeout <ms>', 'how long the era probe may go unanswered', positiveInt('--probe-timeout'), DEFAULTS.probeTimeoutMs)
    .option(
      '--startup-timeout <ms>',
      'how long a launched HTTP server may take to accept connections',
      positiveInt('--startup-timeout'),
      DEFAULTS.startupTimeoutMs,
    )
    .option('--shutdown-timeout <ms>', 'grace period for the server to exit', positiveInt('--shutdown-timeout'), DEFAULTS.shutdownGraceMs)
    .option('--output <path>', 'where to write the file', CONFIG_NAMES[0])
    .option('--force', 'overwrite an existing file', false)
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((opts: InitFlags) => guarded(ctx, 'init', () => init(opts)));
}

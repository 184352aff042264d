/**
 * The command line: parse flags, run the engine, print the console report,
 * write the JUnit and JSON reports, exit 0 (nothing failed), 1 (a check
 * failed) or 2 (the run could not do its job). Reports are written on every
 * path, bad flags and interrupts included.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { findConfig, loadConfig, resolveSecrets } from '../engine/config.js';
import { DEFAULTS, NOTIFICATION_TIMEOUT_MS, runConformance, SPEC_CHOICES, toolVersion } from '../engine/run.js';
import { killAllServers } from '../harness/process.js';
import { renderConsole, writeReports } from '../render/index.js';
import { catalogue } from '../suites/index.js';
import { registerCoverage, registerQuotes } from './coverage.js';
import { registerDiff } from './diff.js';
import { registerList } from './list.js';
import { dispatchSubcommand, type RegisterSubcommand } from './subcommand.js';
import { summarize, type RunResult } from '../model/results.js';
import type { LoadedConfig } from '../model/config.js';

// Subcommands, one cli/<name>.ts each: parsed on their own (cli/subcommand.ts), so the run's options never swallow theirs.
const SUBCOMMANDS: RegisterSubcommand[] = [registerList, registerCoverage, registerQuotes, registerDiff];
const SUBCOMMAND_HELP = `
Commands (each with --help):
  list [--check GLOB] [--spec PAGE#SECTION] [--json]    the checks, their spec citations and source files
  coverage [--revision R] [--json] [--spec-dir P]       which server-side RFC 2119 sentences the checks enforce
  quotes --spec-dir P [--json]                          checks whose quotes a spec working copy no longer holds
  diff <before.json> <after.json> [--json]              verdicts that changed between two result files`;

export const DEFAULT_JUNIT = 'reports/junit.xml';
export const DEFAULT_JSON = 'reports/results.json';

interface Flags {
  config?: string;
  server?: string;
  url?: string;
  header: string[];
  env: string[];
  spec: string;
  schema?: string;
  check: string[];
  strict: boolean;
  junit: string;
  json: string;
  timeout: number;
  checkTimeout: number;
  deadline: number;
  maxMessageSize: number;
  startupTimeout: number;
  maxRestarts: number;
  maxPages: number;
  shutdownTimeout: number;
  maxRounds: number;
  probeTimeout: number;
  notificationTimeout?: number;
  runs: number;
  seed?: number;
  replay?: string;
  tools: string[];
  allowSideEffects: boolean;
  color: boolean;
}

const positiveInt = (label: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${label} must be a positive whole number`);
  return n;
};
const collect = (value: string, prev: string[]) => [...prev, value];
const seedValue = (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > 0x7fffffff) {
    throw new InvalidArgumentError('--seed must be a whole number from 0 to 2147483647');
  }
  return n;
};

function program(): Command {
  const cmd = new Command('mcp-conformance')
    .description('Conformance test suite for Model Context Protocol servers')
    .version(toolVersion().version)
    .option('--config <path>', 'configuration file (default: mcp-conformance.config.yaml/.yml/.json in the current folder)')
    .addOption(new Option('--server <command>', 'launch this server command (stdio, or with --url the HTTP server to start)'))
    .addOption(new Option('--url <url>', 'Streamable HTTP endpoint of the server'))
    .option('--header <"Name: value">', 'HTTP header sent on every request (repeatable; values never reported)', collect, [])
    .option('--env <KEY=VALUE>', 'environment variable for the launched server (repeatable; values never reported)', collect, [])
    .addOption(
      new Option('--spec <revision>', 'protocol revision: auto (detect the era), 2026-07-28, draft, 2025-11-25 (legacy), or all (both eras)')
        .choices([...SPEC_CHOICES])
        .default(DEFAULTS.spec),
    )
    .option('--schema <path>', 'validate messages against this schema.json instead of the bundled one')
    .option('--check <id-or-glob>', "run only matching checks, e.g. 'tools-list/*' (repeatable)", collect, [])
    .option('--strict', 'count warnings (broken SHOULDs) as failures', false)
    .option('--junit <path>', 'JUnit XML report path', DEFAULT_JUNIT)
    .option('--json <path>', 'JSON report path', DEFAULT_JSON)
    .option('--timeout <ms>', 'per-request timeout', positiveInt('--timeout'), DEFAULTS.requestTimeoutMs)
    .option('--check-timeout <ms>', 'time budget of one check', positiveInt('--check-timeout'), DEFAULTS.checkTimeoutMs)
    .option('--deadline <ms>', 'overall run deadline', positiveInt('--deadline'), DEFAULTS.runTimeoutMs)
    .option('--max-message-size <bytes>', 'largest message accepted from the server', positiveInt('--max-message-size'), DEFAULTS.maxMessageBytes)
    .option('--startup-timeout <ms>', 'how long a launched HTTP server may take to accept connections', positiveInt('--startup-timeout'), DEFAULTS.startupTimeoutMs)
    .option('--max-restarts <n>', 'stdio: restarts allowed after the server exits', positiveInt('--max-restarts'), DEFAULTS.maxRestarts)
    .option('--max-pages <n>', 'longest cursor chain a list walk follows', positiveInt('--max-pages'), DEFAULTS.maxPages)
    .option(
      '--shutdown-timeout <ms>',
      'how long each step of stopping a server waits (stdin closed, then SIGTERM, then SIGKILL)',
      positiveInt('--shutdown-timeout'),
      DEFAULTS.shutdownGraceMs,
    )
    .option('--max-rounds <n>', 'most requests one input_required round trip sends before it is judged non-terminating', positiveInt('--max-rounds'), DEFAULTS.maxRounds)
    .option('--probe-timeout <ms>', 'auto: how long the server/discover era probe waits before falling back to initialize', positiveInt('--probe-timeout'), DEFAULTS.probeTimeoutMs)
    .option(
      '--notification-timeout <ms>',
      `how long to wait for a change notification after the list-changed trigger (default: listChanged.timeoutMs of the config file, else ${NOTIFICATION_TIMEOUT_MS})`,
      positiveInt('--notification-timeout'),
    )
    .option('--runs <n>', 'generated tools/call arguments per tool and check', positiveInt('--runs'), DEFAULTS.runs)
    .option('--seed <n>', 'seed of argument generation (default: random, reported)', seedValue)
    .option('--replay <path@tool>', 'replay one generated case, as a failure prints it (with its --seed and --check)')
    .option('--tools <glob>', 'tools that may be called with valid arguments besides read-only ones (repeatable)', collect, [])
    .option('--allow-side-effects', 'call every tool with valid arguments, read-only or not', false)
    .option('--no-color', 'no colour in the console report (also off when NO_COLOR is set or not a TTY)')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action(() => {})
    .addHelpText('after', SUBCOMMAND_HELP);
  return cmd;
}

/** A result for a run that never started (bad flags). */
function abortedRun(cause: string): RunResult {
  return {
    tool: toolVersion(),
    startedAt: new Date().toISOString(),
    durationMs: 0,
    target: { transport: 'stdio' },
    revision: DEFAULTS.spec,
    strict: false,
    checks: [],
    summary: summarize([]),
    stderr: '',
    aborted: cause,
    harnessErrors: [],
    exitCode: 2,
  };
}

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(':');
    if (i <= 0) throw new Error(`--header must look like "Name: value", got ${JSON.stringify(h.split(':')[0])}`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

function parseEnv(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of list) {
    const i = e.indexOf('=');
    if (i <= 0) throw new Error(`--env must look like KEY=VALUE, got ${JSON.stringify(e.split('=')[0])}`);
    out[e.slice(0, i)] = e.slice(i + 1);
  }
  return out;
}

async function report(run: RunResult, flags: { junit: string; json: string; color: boolean }): Promise<number> {
  const color = flags.color && !process.env.NO_COLOR && !!process.stdout.isTTY;
  process.stdout.write(renderConsole(run, { color }));
  try {
    await writeReports(run, { junitPath: flags.junit, jsonPath: flags.json });
  } catch (err) {
    process.stderr.write(`mcp-conformance: cannot write reports: ${(err as Error).message}\n`);
    return 2;
  }
  if (run.aborted) process.stderr.write(`mcp-conformance: ${firstLine(run.aborted)}\n`);
  return run.exitCode;
}

/** The value of `--name v` or `--name=v` in raw argv, for the bad-flags path. */
function flagValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name && argv[i + 1] !== undefined) return argv[i + 1];
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

export async function main(argv: string[]): Promise<number> {
  const subcommand = await dispatchSubcommand(argv, SUBCOMMANDS);
  if (subcommand !== undefined) return subcommand;
  const cmd = program();
  let flags: Flags;
  try {
    await cmd.parseAsync(argv, { from: 'user' });
    flags = cmd.opts<Flags>();
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        return 0;
      }
      // The flags did not parse; still honour the report paths if they were given.
      const reportTo = { junit: flagValue(argv, '--junit') ?? DEFAULT_JUNIT, json: flagValue(argv, '--json') ?? DEFAULT_JSON, color: false };
      return report(abortedRun(err.message.replace(/^error: /, '')), reportTo);
    }
    throw err;
  }
  const reportTo = { junit: flags.junit, json: flags.json, color: flags.color };
  let headers: Record<string, string>;
  let env: Record<string, string>;
  let loaded: LoadedConfig | undefined;
  try {
    const configPath = flags.config ?? findConfig(process.cwd());
    loaded = configPath ? loadConfig(configPath) : undefined;
    const server = loaded?.config.server;
    // Flags win over the file; the file's secrets come from the environment.
    flags.server ??= server?.command;
    flags.url ??= server?.url;
    if (!flags.server && !flags.url) throw new Error('nothing to test: give --server "<command>" or --url <url> (see --help)');
    headers = { ...resolveSecrets(server?.headers, process.env, 'header'), ...parseHeaders(flags.header) };
    env = { ...resolveSecrets(server?.env, process.env, 'env'), ...parseEnv(flags.env) };
  } catch (err) {
    return report(abortedRun((err as Error).message), reportTo);
  }

  const interrupt = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) {
      killAllServers();
      process.exit(2);
    }
    interrupt.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    const run = await runConformance({
      command: flags.server,
      url: flags.url,
      headers,
      env,
      spec: flags.spec,
      schemaPath: flags.schema,
      checks: flags.check,
      strict: flags.strict,
      requestTimeoutMs: flags.timeout,
      checkTimeoutMs: flags.checkTimeout,
      runTimeoutMs: flags.deadline,
      maxMessageBytes: flags.maxMessageSize,
      startupTimeoutMs: flags.startupTimeout,
      maxRestarts: flags.maxRestarts,
      maxPages: flags.maxPages,
      shutdownGraceMs: flags.shutdownTimeout,
      maxRounds: flags.maxRounds,
      probeTimeoutMs: flags.probeTimeout,
      notificationTimeoutMs: flags.notificationTimeout,
      runs: flags.runs,
      seed: flags.seed,
      replay: flags.replay,
      tools: flags.tools,
      allowSideEffects: flags.allowSideEffects,
      invocation: argv,
      config: loaded?.config,
      cwd: loaded?.config.server?.cwd ? resolve(loaded.dir, loaded.config.server.cwd) : undefined,
      signal: interrupt.signal,
    });
    return await report(run, reportTo);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

export { catalogue };

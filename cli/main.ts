/**
 * The command line: parse flags, run the engine (live: each check's lines
 * as its result arrives), write the reports, exit 0 (nothing failed), 1 (a
 * check failed, or a baseline entry went stale) or 2 (the run could not do
 * its job). Reports are written on every path, bad flags and interrupts
 * included. A usage error prints its cause and a hint, nothing else.
 *
 * Subcommands live in their own cli/<name>.ts files and are registered in
 * SUBCOMMANDS below (cli/subcommand.ts parses them on their own).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { loadBaseline, type Baseline } from '../engine/baseline.js';
import { findConfig, loadConfig, resolveSecrets } from '../engine/config.js';
import { DEFAULTS, NOTIFICATION_TIMEOUT_MS, SPEC_CHOICES, toolVersion } from '../engine/run.js';
import { parseShard, type Shard } from '../engine/shard.js';
import { killAllServers, splitCommand } from '../engine/host.js';
import { abortedResult, runConformance, type ConformanceOptions } from '../lib/index.js';
import { catalogue } from '../suites/index.js';
import { registerCoverage, registerQuotes } from './coverage.js';
import { registerDiff } from './diff.js';
import { registerList } from './list.js';
import { registerMerge } from './merge.js';
import { registerMatrix } from './matrix.js';
import { dispatchSubcommand, type RegisterSubcommand } from './subcommand.js';
import type { AuthorizationInfo, RunResult } from '../model/results.js';
import type { Config, LoadedConfig } from '../model/config.js';
import { deliver } from './output.js';
import { expandServer, parseEnv, parseHeaders } from './launch.js';
import { registerInit } from './init.js';
import { preloadJUnit } from '../render/junit.js';
import { DEFAULT_HTML, DEFAULT_JSON, DEFAULT_JUNIT, flagValue } from './flags.js';
import { liveProgress } from './progress.js';

// Subcommands, one cli/<name>.ts each: parsed on their own (cli/subcommand.ts), so the run's options never swallow theirs.
const SUBCOMMANDS: RegisterSubcommand[] = [
  registerList,
  registerCoverage,
  registerQuotes,
  registerDiff,
  registerMerge,
  registerInit,
  registerMatrix,
];
const SUBCOMMAND_HELP = `
Commands (each with --help):
  list [--check GLOB] [--spec PAGE[#SECTION]|GLOB] [--json]
                                                        the checks, their spec citations and source files
  coverage [--revision R] [--json] [--spec-dir P]       which server-side RFC 2119 sentences the checks enforce
  quotes --spec-dir P [--json]                          checks whose quotes a spec working copy no longer holds
  diff <before.json> <after.json> [--json]              verdicts that changed between two result files
  merge <results.json>... [--junit P] [--json P] [--html P] [--baseline F]
                                                        one set of reports from --shard runs
  init --server CMD | --url URL [--output P] [--force]  write an annotated configuration file for the server
  matrix <targets.yaml> [--out DIR] [--spec-dir P] | --compare <before.json> <after.json>
                                                        many servers side by side (matrix.json, matrix.html)
  help <command>                                        a command's options`;

export { DEFAULT_HTML, DEFAULT_JSON, DEFAULT_JUNIT, flagValue } from './flags.js';
/** Report writing gets what is left of --deadline, at least the first and at most the second figure. */
const REPORT_TIME_MS = [2_000, 10_000] as const;

export interface Flags {
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
  html: string;
  baseline?: string;
  writeBaseline?: string;
  skip: string[];
  shard?: Shard;
  timeout: number;
  checkTimeout: number;
  deadline: number;
  maxMessageSize: number;
  startupTimeout: number;
  maxRestarts: number;
  maxPages: number;
  shutdownTimeout: number;
  spares: number;
  maxRounds: number;
  probeTimeout: number;
  notificationTimeout?: number;
  runs: number;
  seed?: number;
  replay?: string;
  tools: string[];
  allowSideEffects: boolean;
  color: boolean;
  verbose: boolean;
  jobs?: number;
  auth: boolean;
  authPort?: number;
}

const positiveInt = (label: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${label} must be a positive whole number`);
  return n;
};
const sparesValue = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 4) throw new InvalidArgumentError('--spares must be a whole number from 0 to 4');
  return n;
};
const collect = (value: string, prev: string[]) => [...prev, value];
const portValue = (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('--auth-port must be a port number from 0 to 65535');
  return n;
};
const seedValue = (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > 0x7fffffff) {
    throw new InvalidArgumentError('--seed must be a whole number from 0 to 2147483647');
  }
  return n;
};

const shardValue = (value: string) => {
  try {
    return parseShard(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

export function program(): Command {
  return generationOptions(targetOptions(new Command('mcp-conformance')));
}

/** The CLI's definitions as commander holds them: the run's options and each subcommand (docs/flags.md is generated from them). */
export function definitions(): { run: Command; subcommands: readonly Command[] } {
  const root = new Command('mcp-conformance');
  for (const register of SUBCOMMANDS) register(root, { setExitCode: () => {} });
  return { run: program(), subcommands: root.commands };
}

/** The options of what is tested: the server, its era and the checks. */
function targetOptions(root: Command): Command {
  const cmd = root
    .description('Conformance test suite for Model Context Protocol servers')
    .version(toolVersion().version)
    .option('--config <path>', 'configuration file (default: mcp-conformance.config.yaml/.yml/.json in the current folder)')
    .addOption(
      new Option(
        '--server <command>',
        'launch this server command, split like a POSIX shell (stdio, or with --url the HTTP server to start); "reference" is the bundled reference server',
      ),
    )
    .addOption(new Option('--url <url>', 'Streamable HTTP endpoint of the server'))
    .option('--header <"Name: value">', 'HTTP header sent on every request (repeatable; values never reported)', collect, [])
    .option('--env <KEY=VALUE>', 'environment variable for the launched server (repeatable; values never reported)', collect, [])
    .option(
      '--auth',
      'the server is a protected resource: start the embedded authorization server on 127.0.0.1 (a launched server gets it as MCP_CONFORMANCE_ISSUER) and send its valid token on every request',
      false,
    )
    .option('--auth-port <n>', "the embedded authorization server's port (implies --auth; default: a free port)", portValue)
    .addOption(
      new Option(
        '--spec <revision>',
        'protocol revision: auto (detect the era), 2026-07-28, draft, 2025-11-25 (legacy), or all (both eras)',
      )
        .choices([...SPEC_CHOICES])
        .default(DEFAULTS.spec),
    )
    .option('--schema <path>', 'validate messages against this schema.json instead of the bundled one')
    .option('--check <id-or-glob>', "run only matching checks, e.g. 'tools-list/*'; '!glob' leaves checks out (repeatable)", collect, [])
    .option('--skip <id-or-glob>', 'leave matching checks out (repeatable; also checks.exclude in the config file)', collect, [])
    .option('--shard <i/n>', 'run the i-th of n deterministic parts of the selected checks (combine with `merge`)', shardValue)
    .option(
      '--baseline <file>',
      'known failures and warnings (YAML or JSON): reported as expected, not failing the run; stale entries fail it',
    )
    .option('--write-baseline <file>', "write this run's failures and warnings as a baseline (reason: TODO)");
  return reportAndLimitOptions(cmd);
}

/** The options of what is reported, and the run's time and size limits. */
function reportAndLimitOptions(cmd: Command): Command {
  return cmd
    .option('--strict', 'count warnings (broken SHOULDs) as failures', false)
    .option('--junit <path>', 'JUnit XML report path', DEFAULT_JUNIT)
    .option('--json <path>', 'JSON report path', DEFAULT_JSON)
    .option('--html <path>', 'HTML report path (one self-contained file)', DEFAULT_HTML)
    .option('--timeout <ms>', 'per-request timeout', positiveInt('--timeout'), DEFAULTS.requestTimeoutMs)
    .option('--check-timeout <ms>', 'time budget of one check', positiveInt('--check-timeout'), DEFAULTS.checkTimeoutMs)
    .option('--deadline <ms>', 'overall run deadline', positiveInt('--deadline'), DEFAULTS.runTimeoutMs)
    .option(
      '--max-message-size <bytes>',
      'largest message accepted from the server',
      positiveInt('--max-message-size'),
      DEFAULTS.maxMessageBytes,
    )
    .option(
      '--startup-timeout <ms>',
      'how long a launched HTTP server may take to accept connections',
      positiveInt('--startup-timeout'),
      DEFAULTS.startupTimeoutMs,
    )
    .option(
      '--spares <n>',
      'stdio: server processes launched ahead of the fresh connections that take them (0: none; only for a server that can run as several processes at once)',
      sparesValue,
      0,
    )
    .option('--max-restarts <n>', 'stdio: restarts allowed after the server exits', positiveInt('--max-restarts'), DEFAULTS.maxRestarts)
    .option('--max-pages <n>', 'longest cursor chain a list walk follows', positiveInt('--max-pages'), DEFAULTS.maxPages)
    .option(
      '--shutdown-timeout <ms>',
      'how long each step of stopping a server waits (stdin closed, then SIGTERM, then SIGKILL)',
      positiveInt('--shutdown-timeout'),
      DEFAULTS.shutdownGraceMs,
    )
    .option(
      '--max-rounds <n>',
      'most requests one input_required round trip sends before it is judged non-terminating',
      positiveInt('--max-rounds'),
      DEFAULTS.maxRounds,
    )
    .option(
      '--probe-timeout <ms>',
      'auto: how long the server/discover era probe waits before falling back to initialize',
      positiveInt('--probe-timeout'),
      DEFAULTS.probeTimeoutMs,
    )
    .option(
      '--notification-timeout <ms>',
      `how long to wait for a change notification after the list-changed trigger (default: listChanged.timeoutMs of the config file, else ${NOTIFICATION_TIMEOUT_MS})`,
      positiveInt('--notification-timeout'),
    );
}

/** The options of generated calls, concurrency and output, and the help text. */
function generationOptions(cmd: Command): Command {
  return cmd
    .option('--runs <n>', 'generated tools/call arguments per tool and check', positiveInt('--runs'), DEFAULTS.runs)
    .option('--seed <n>', 'seed of argument generation (default: random, reported)', seedValue)
    .option('--replay <path@tool>', 'replay one generated case, as a failure prints it (with its --seed and --check)')
    .option(
      '--tools <glob>',
      'tools the suite may call (with generated, invalid and probe arguments) besides read-only ones (repeatable)',
      collect,
      [],
    )
    .option('--allow-side-effects', 'let the suite call every tool, read-only or not (tools.exclude still wins)', false)
    .option(
      '--jobs <n>',
      'checks run at once (default: 4 on stdio, one server process each; 6 on HTTP, one connection each)',
      positiveInt('--jobs'),
    )
    .option('--no-color', 'no colour in the console report (also off when NO_COLOR is set or not a TTY)')
    .option('--verbose', "show passing subjects, notes, full wire excerpts, the server's stderr and the other era's skipped checks", false)
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action(() => {})
    .addHelpText('after', SUBCOMMAND_HELP);
}

/** A usage error: the cause and a hint, nothing else on the terminal; the reports still record it. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly hint = 'mcp-conformance --help lists every flag',
  ) {
    super(message);
  }
}

async function usageError(err: UsageError, argv: string[]): Promise<number> {
  process.stderr.write(`mcp-conformance: ${err.message}\nhint: ${err.hint}\n`);
  const run = abortedResult(err.message);
  // The reports record it too, quietly: a CI step that reads them sees why.
  await deliver(run, {
    junitPath: flagValue(argv, '--junit') ?? DEFAULT_JUNIT,
    jsonPath: flagValue(argv, '--json') ?? DEFAULT_JSON,
    htmlPath: flagValue(argv, '--html') ?? DEFAULT_HTML,
    timeoutMs: REPORT_TIME_MS[0],
    stderr: () => {},
    // Cause and hint only: no annotations or step summary either.
    env: {},
  });
  return 2;
}

/** What the run needs beyond its flags: the config file, secrets resolved, the baseline. */
export interface Prepared {
  headers: Record<string, string>;
  env: Record<string, string>;
  loaded?: LoadedConfig;
  /** How the config file was found, for the reports. */
  configFound?: '--config' | 'current folder';
  baseline?: Baseline;
}

/** `help <command>`: that command's help; `help` alone: the run's. */
async function help(argv: string[], cmd: Command): Promise<number> {
  if (argv[1] !== undefined) {
    const code = await dispatchSubcommand([argv[1], '--help'], SUBCOMMANDS);
    if (code !== undefined) return code;
    process.stderr.write(`mcp-conformance: unknown command ${JSON.stringify(argv[1])}\nhint: mcp-conformance --help lists the commands\n`);
    return 2;
  }
  process.stdout.write(cmd.helpInformation());
  return 0;
}

/** Parses the run's flags: the flags, or the exit code when there is nothing to run. */
async function parseFlags(argv: string[], cmd: Command): Promise<Flags | number> {
  try {
    await cmd.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    return usageError(new UsageError(err.message.replace(/^error: /, '')), argv);
  }
  if (cmd.args.length > 0) return usageError(new UsageError(`unexpected argument ${JSON.stringify(cmd.args[0])}`), argv);
  return cmd.opts<Flags>();
}

/** The config file, the server command, secrets and the baseline; throws a UsageError. */
export function prepare(flags: Flags): Prepared {
  const configPath = flags.config ?? findConfig(process.cwd());
  const loaded = configPath ? loadConfig(configPath) : undefined;
  const server = loaded?.config.server;
  // Flags win over the file; the file's secrets come from the environment.
  flags.server ??= server?.command;
  flags.url ??= server?.url;
  if (!flags.server && !flags.url) {
    throw new UsageError(
      'nothing to test: no --server or --url was given',
      'mcp-conformance --server "node server.js"  (or --server reference, the bundled reference server)',
    );
  }
  if (flags.server !== undefined) {
    if (splitCommand(flags.server).length === 0) throw new UsageError('the --server command is empty');
    flags.server = expandServer(flags.server);
  }
  return {
    headers: { ...resolveSecrets(server?.headers, process.env, 'header'), ...parseHeaders(flags.header) },
    env: { ...resolveSecrets(server?.env, process.env, 'env'), ...parseEnv(flags.env) },
    ...(loaded ? { loaded, configFound: flags.config !== undefined ? ('--config' as const) : ('current folder' as const) } : {}),
    ...(flags.baseline !== undefined ? { baseline: loadBaseline(flags.baseline) } : {}),
  };
}

/** The library's options for these flags. */
export function runOptions(flags: Flags, p: Prepared, argv: string[]): ConformanceOptions {
  return {
    command: flags.server,
    url: flags.url,
    headers: p.headers,
    env: p.env,
    spec: flags.spec,
    schemaPath: flags.schema,
    checks: flags.check,
    skip: flags.skip,
    ...(flags.shard ? { shard: flags.shard } : {}),
    ...(p.baseline ? { baseline: p.baseline } : {}),
    strict: flags.strict,
    requestTimeoutMs: flags.timeout,
    checkTimeoutMs: flags.checkTimeout,
    runTimeoutMs: flags.deadline,
    maxMessageBytes: flags.maxMessageSize,
    startupTimeoutMs: flags.startupTimeout,
    maxRestarts: flags.maxRestarts,
    maxPages: flags.maxPages,
    shutdownGraceMs: flags.shutdownTimeout,
    spares: flags.spares,
    maxRounds: flags.maxRounds,
    probeTimeoutMs: flags.probeTimeout,
    notificationTimeoutMs: flags.notificationTimeout,
    runs: flags.runs,
    seed: flags.seed,
    replay: flags.replay,
    tools: flags.tools,
    allowSideEffects: flags.allowSideEffects,
    invocation: argv,
    config: p.loaded?.config,
    ...authorizationOptions(flags, p.loaded?.config),
    ...(p.loaded && p.configFound ? { configFile: { path: p.loaded.path, found: p.configFound } } : {}),
    cwd: p.loaded?.config.server?.cwd ? resolve(p.loaded.dir, p.loaded.config.server.cwd) : undefined,
  };
}

/** --auth / --auth-port: the embedded issuer, over the file's authorization section (its token command set aside). */
function authorizationOptions(flags: Flags, config: Config | undefined): Pick<ConformanceOptions, 'authorization'> {
  if (!flags.auth && flags.authPort === undefined) return {};
  const file = config?.authorization ?? {};
  const port = flags.authPort ?? file.port;
  return { authorization: { ...file, tokenCommand: undefined, embedded: true, ...(port !== undefined ? { port } : {}) } };
}

/** The run's authorization, on stderr before any check: the issuer the server must trust (never a token). */
function announceAuthorization(info: AuthorizationInfo): void {
  const line =
    info.source === 'embedded'
      ? `authorization: embedded issuer ${info.issuer} (JWKS ${info.jwksUri}); valid token scopes: ${info.scopes?.join(' ') || '(none)'}`
      : 'authorization: the valid token comes from authorization.tokenCommand';
  process.stderr.write(`${line}\n`);
}

export async function main(argv: string[]): Promise<number> {
  const subcommand = await dispatchSubcommand(argv, SUBCOMMANDS);
  if (subcommand !== undefined) return subcommand;
  const cmd = program();
  if (argv[0] === 'help') return help(argv, cmd);
  const flags = await parseFlags(argv, cmd);
  if (typeof flags === 'number') return flags;
  let prepared: Prepared;
  try {
    prepared = prepare(flags);
  } catch (err) {
    return usageError(err instanceof UsageError ? err : new UsageError((err as Error).message), argv);
  }
  return runAndReport(flags, prepared, argv);
}

/** The run, live on the console, then every output; signals end it with what is known. */
async function runAndReport(flags: Flags, prepared: Prepared, argv: string[]): Promise<number> {
  const interrupt = new AbortController();
  let interrupts = 0;
  let phase: 'run' | 'report' = 'run';
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts++;
    // Once the run is over, or on a second signal, stop at once: atomic writes leave no half report.
    if (phase === 'report' || interrupts > 1) {
      process.stderr.write(
        `mcp-conformance: ${phase === 'report' ? 'interrupted while writing reports' : 'interrupted again'} by ${sig}\n`,
      );
      killAllServers();
      process.exit(2);
    }
    interrupt.abort(new Error(`interrupted by ${sig}`));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const sig of signals) process.on(sig, onSignal);
  const started = Date.now();
  const live = await liveProgress({
    color: flags.color && !process.env.NO_COLOR && !!process.stdout.isTTY,
    tty: !!process.stdout.isTTY,
    version: toolVersion().version,
    passes: flags.spec === 'all' ? 2 : 1,
    verbose: flags.verbose,
    reports: [flags.junit, flags.json, flags.html],
  });
  try {
    live.start();
    const run: RunResult = await runConformance({
      ...runOptions(flags, prepared, argv),
      signal: interrupt.signal,
      jobs: flags.jobs,
      onAuthorization: announceAuthorization,
      onResult: (e) => {
        // The run is under way: what writing the reports needs is loaded now, off the start-up path.
        if (e.index === 0) setImmediate(preloadJUnit);
        live.onResult(e.result, e.index, e.total, e.era);
      },
    });
    phase = 'report';
    live.end(run);
    const left = flags.deadline - (Date.now() - started);
    return await deliver(run, {
      junitPath: flags.junit,
      jsonPath: flags.json,
      htmlPath: flags.html,
      timeoutMs: Math.min(REPORT_TIME_MS[1], Math.max(REPORT_TIME_MS[0], left)),
      ...(flags.writeBaseline ? { writeBaseline: flags.writeBaseline } : {}),
      ...(prepared.baseline ? { baseline: prepared.baseline } : {}),
    });
  } finally {
    for (const sig of signals) process.off(sig, onSignal);
  }
}

export { catalogue };

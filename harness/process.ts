/**
 * Server processes: launch a command in its own process group, keep a bounded
 * tail of its stderr, and stop it the way the stdio transport page says
 * (close stdin, wait, SIGTERM, SIGKILL), taking everything it started with it:
 * its process group, its process tree, and (on Linux) every process that
 * still carries the launch's environment tag, so a grandchild that moved to
 * a session of its own does not survive either.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { execa } from 'execa';
import { splitCommand } from './argv.js';
import type { Redactor } from './redact.js';
import { waitedOut } from './waits.js';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** How a stop ended: which step made the process exit, and the grace period of each step. */
export interface StopOutcome {
  /** `itself`: it had exited before the stop; `stdin`: closing stdin sufficed; then SIGTERM, then SIGKILL. */
  step: 'itself' | 'stdin' | 'SIGTERM' | 'SIGKILL';
  graceMs: number;
  exit?: ExitInfo;
  /** Steps not waited out because the run had seen a server ignore them (see StopLedger). */
  skipped?: Array<'stdin' | 'SIGTERM'>;
}

/**
 * What a run has seen of how its servers stop: once one did not exit when
 * its stdin closed (or on SIGTERM), later stops skip that step's wait, so each
 * failure costs one grace period per run, as a timeout does.
 */
export class StopLedger {
  stdinIgnored = false;
  sigtermIgnored = false;

  /** Learn from a stop that went the whole way. */
  learn(outcome: StopOutcome): void {
    if (outcome.step === 'SIGTERM' || outcome.step === 'SIGKILL') this.stdinIgnored = true;
    if (outcome.step === 'SIGKILL') this.sigtermIgnored = true;
  }
}

export interface LaunchOptions {
  env?: Record<string, string>;
  cwd?: string;
  redactor: Redactor;
  /** How many bytes of stderr to keep (the tail). */
  stderrLimit?: number;
}

/** Every process group this run started, so an interrupt can end them all. */
const live = new Set<ServerProcess>();

/**
 * The environment variable every launched server (and, by inheritance,
 * everything it starts) carries, with a value unique to the launch.
 */
export const TAG_VARIABLE = 'MCP_CONFORMANCE_SERVER';
const RUN_TAG = `${process.pid}-${randomBytes(4).toString('hex')}`;
let launches = 0;
/** Every tag this process handed out: swept on stop, on exit of a leader, and on interrupt. */
const tags = new Set<string>();

/** The reaper (see the file comment): plain Node, no project imports, so it runs from any build. */
const REAPER_SOURCE = `
const { readdirSync, readFileSync } = require('node:fs');
const [variable, prefix] = process.argv.slice(1);
const groups = new Set();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const [verb, pid] = buf.slice(0, i).split(' ');
    buf = buf.slice(i + 1);
    if (verb === 'group') groups.add(Number(pid));
    if (verb === 'forget') groups.delete(Number(pid));
  }
});
const reap = () => {
  for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} }
  const needle = Buffer.from(variable + '=' + prefix);
  let pids = [];
  try { pids = readdirSync('/proc').filter((d) => /^\\d+$/.test(d)).map(Number); } catch {}
  for (const pid of pids) {
    if (pid === process.pid) continue;
    let env;
    try { env = readFileSync('/proc/' + pid + '/environ'); } catch { continue; }
    const at = env.indexOf(needle);
    if (at === 0 || (at > 0 && env[at - 1] === 0)) { try { process.kill(pid, 'SIGKILL'); } catch {} }
  }
  process.exit(0);
};
process.stdin.on('end', reap);
process.stdin.on('error', reap);
`;

let reaper: ChildProcess | undefined;

/** Tell the reaper (started on first use) about a server's process group, or that it is gone. */
function tellReaper(line: string): void {
  if (process.platform === 'win32') return;
  if (!reaper) {
    try {
      reaper = spawn(process.execPath, ['-e', REAPER_SOURCE, TAG_VARIABLE, `${RUN_TAG}-`], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      });
    } catch {
      return;
    }
    reaper.on('error', () => {});
    reaper.stdin!.on('error', () => {});
    reaper.unref();
    // The pipe must not keep the suite alive: it closes when the suite exits.
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  }
  if (reaper.stdin?.writable) reaper.stdin.write(`${line}\n`);
}

export class ServerProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private stderrBuf = '';

  private constructor(
    readonly command: string,
    /** The value of `MCP_CONFORMANCE_SERVER` this launch and its descendants carry. */
    readonly tag: string,
    private readonly child: ReturnType<typeof execa>,
    private readonly redactor: Redactor,
    private readonly stderrLimit: number,
  ) {
    this.pid = child.pid!;
    this.stdin = child.stdin!;
    this.stdout = child.stdout!;
    // Writes to a server that has gone away must not crash the suite.
    this.stdin.on('error', () => {});
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrBuf += chunk;
      if (this.stderrBuf.length > this.stderrLimit * 2) this.stderrBuf = this.stderrBuf.slice(-this.stderrLimit);
    });
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
  }

  /** Start `command` (split like a shell would, without a shell). Rejects with a one-line cause. */
  static async launch(command: string, opts: LaunchOptions): Promise<ServerProcess> {
    const [file, ...args] = splitCommand(command);
    if (!file) throw new Error('the --server command is empty');
    const tag = `${RUN_TAG}-${++launches}`;
    tags.add(tag);
    // Before the spawn: the reaper's tag sweep covers the server from its first instant.
    tellReaper('hello 0');
    const child = execa(file, args, {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      // Its own process group, so stopping it stops everything it spawned.
      detached: true,
      cleanup: true,
      env: { ...opts.env, [TAG_VARIABLE]: tag },
      extendEnv: true,
      cwd: opts.cwd,
      stripFinalNewline: false,
    });
    // execa's own promise settles when the process ends; its result is read through events.
    child.catch(() => {});
    try {
      await Promise.race([
        once(child, 'spawn'),
        once(child, 'error').then(([err]) => {
          throw err;
        }),
      ]);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') throw new Error(`cannot start server: command not found: ${file}`);
      if (e.code === 'EACCES') throw new Error(`cannot start server: permission denied: ${file}`);
      throw new Error(`cannot start server: ${e.message}`);
    }
    const proc = new ServerProcess(command, tag, child, opts.redactor, opts.stderrLimit ?? 64 * 1024);
    live.add(proc);
    tellReaper(`group ${proc.pid}`);
    void proc.exited.then(() => {
      // The leader is gone; anything it left behind is ended too.
      signalGroup(proc.pid, 'SIGKILL');
      killPids(taggedProcesses(new Set([tag])), 'SIGKILL');
      live.delete(proc);
      tellReaper(`forget ${proc.pid}`);
    });
    return proc;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** The last `lines` lines of stderr, secrets redacted. */
  stderrTail(lines = 20): string {
    const clipped = this.stderrBuf.length > this.stderrLimit;
    const text = this.redactor.redact(this.stderrBuf.slice(-this.stderrLimit), clipped ? { clipped: 'start' } : {});
    return text
      .split('\n')
      .slice(-lines - 1)
      .join('\n')
      .trimEnd();
  }

  /** How the process ended, in words. */
  describeExit(): string {
    const e = this.exitInfo;
    if (!e) return 'still running';
    return e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
  }

  /**
   * Close stdin, wait; then SIGTERM the group and the tree, wait; then
   * SIGKILL the group, the tree and every process carrying the launch's tag.
   */
  async stop(graceMs = 2000, ledger?: StopLedger, full = false): Promise<StopOutcome> {
    // The tree is read while the leader lives: once it is gone its children are re-parented.
    const tree = descendantsOf(this.pid);
    let step: StopOutcome['step'] = 'itself';
    // A step the run has seen fail is not waited out again (see StopLedger), unless the stop is to go the whole way.
    const stdinWait = ledger?.stdinIgnored && !full ? 0 : graceMs;
    const sigtermWait = ledger?.sigtermIgnored && !full ? 0 : graceMs;
    if (this.running) {
      step = 'stdin';
      this.stdin.end();
      if (!(await this.waitExit(stdinWait))) {
        step = 'SIGTERM';
        tree.push(...descendantsOf(this.pid));
        signalGroup(this.pid, 'SIGTERM');
        killPids(tree, 'SIGTERM');
        if (!(await this.waitExit(sigtermWait))) {
          step = 'SIGKILL';
          signalGroup(this.pid, 'SIGKILL');
          await this.waitExit(graceMs);
        }
      }
    }
    this.reap(tree);
    const skipped = [...(stdinWait < graceMs ? (['stdin'] as const) : []), ...(sigtermWait < graceMs ? (['SIGTERM'] as const) : [])];
    const outcome: StopOutcome = {
      step,
      graceMs,
      ...(this.exitInfo ? { exit: this.exitInfo } : {}),
      ...(skipped.length ? { skipped } : {}),
    };
    if (stdinWait === graceMs && sigtermWait === graceMs) ledger?.learn(outcome);
    return outcome;
  }

  /** Stop by signal only (for servers that do not read stdin, e.g. HTTP servers). */
  async terminate(graceMs = 2000): Promise<void> {
    const tree = descendantsOf(this.pid);
    if (this.running) {
      signalGroup(this.pid, 'SIGTERM');
      killPids(tree, 'SIGTERM');
      if (!(await this.waitExit(graceMs))) signalGroup(this.pid, 'SIGKILL');
      await this.waitExit(graceMs);
    }
    this.reap(tree);
  }

  /** SIGKILL whatever is left: the group, the known tree, everything with the tag. */
  private reap(tree: number[]): void {
    signalGroup(this.pid, 'SIGKILL');
    killPids(tree, 'SIGKILL');
    killPids(taggedProcesses(new Set([this.tag])), 'SIGKILL');
    live.delete(this);
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (!this.running) return true;
    if (ms <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        waitedOut('a server process to exit', ms);
        resolve(false);
      }, ms);
    });
    const done = await Promise.race([this.exited.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return done;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function killPids(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

/** Every pid in /proc (Linux); empty where there is no /proc. */
function procPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/** Descendants of `root` (children, grandchildren, ...), read from /proc; empty where there is none. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of procPids()) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    for (const c of children.get(stack.pop()!) ?? []) {
      if (out.includes(c)) continue;
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Processes whose environment carries one of `wanted` as the launch tag (Linux /proc). */
export function taggedProcesses(wanted: Set<string>): number[] {
  if (wanted.size === 0) return [];
  const needles = [...wanted].map((t) => Buffer.from(`${TAG_VARIABLE}=${t}\0`));
  const out: number[] = [];
  for (const pid of procPids()) {
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    for (const needle of needles) {
      const at = env.indexOf(needle);
      // A whole entry: at the start of the block or right after a NUL.
      if (at === 0 || (at > 0 && env[at - 1] === 0)) {
        out.push(pid);
        break;
      }
    }
  }
  return out;
}

/**
 * Synchronously SIGKILL every process this run started that is still alive
 * (interrupt / fatal error path): every live group, and every process that
 * carries one of the run's launch tags.
 */
export function killAllServers(): void {
  for (const p of live) signalGroup(p.pid, 'SIGKILL');
  live.clear();
  killPids(taggedProcesses(tags), 'SIGKILL');
}

/**
 * SIGKILL every process that carries a launch tag of this process, whichever
 * thread launched it (the CLI's watchdog, for a run thread it had to stop).
 */
export function killServersOfThisProcess(): void {
  killAllServers();
  const needle = Buffer.from(`${TAG_VARIABLE}=${process.pid}-`);
  const pids: number[] = [];
  for (const pid of procPids()) {
    if (pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`);
      const at = env.indexOf(needle);
      if (at === 0 || (at > 0 && env[at - 1] === 0)) pids.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  killPids(pids, 'SIGKILL');
}

/** Stop every live server gracefully, then forcibly. */
export async function stopAllServers(graceMs = 1000): Promise<void> {
  await Promise.all([...live].map((p) => p.stop(graceMs)));
}

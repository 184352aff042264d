/**
 * Server processes: launch a command in its own process group, keep a bounded
 * tail of its stderr, and stop it the way the stdio transport page says
 * (close stdin, wait, SIGTERM, SIGKILL), taking its whole process group with it.
 */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { execa, parseCommandString } from 'execa';
import type { Redactor } from './redact.js';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
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

export class ServerProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private stderrBuf = '';

  private constructor(
    readonly command: string,
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
    const [file, ...args] = parseCommandString(command);
    if (!file) throw new Error('the --server command is empty');
    const child = execa(file, args, {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      // Its own process group, so stopping it stops everything it spawned.
      detached: true,
      cleanup: true,
      env: opts.env,
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
    const proc = new ServerProcess(command, child, opts.redactor, opts.stderrLimit ?? 64 * 1024);
    live.add(proc);
    void proc.exited.then(() => {
      // The leader is gone; anything it left in its group is ended too.
      signalGroup(proc.pid, 'SIGKILL');
      live.delete(proc);
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
    const text = this.redactor.redact(this.stderrBuf.slice(-this.stderrLimit));
    return text.split('\n').slice(-lines - 1).join('\n').trimEnd();
  }

  /** How the process ended, in words. */
  describeExit(): string {
    const e = this.exitInfo;
    if (!e) return 'still running';
    return e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
  }

  /** Close stdin, wait; then SIGTERM the group, wait; then SIGKILL the group. */
  async stop(graceMs = 2000): Promise<void> {
    if (this.running) {
      this.stdin.end();
      if (!(await this.waitExit(graceMs))) {
        signalGroup(this.pid, 'SIGTERM');
        if (!(await this.waitExit(graceMs))) {
          signalGroup(this.pid, 'SIGKILL');
          await this.waitExit(graceMs);
        }
      }
    }
    signalGroup(this.pid, 'SIGKILL');
    live.delete(this);
  }

  /** Stop by signal only (for servers that do not read stdin, e.g. HTTP servers). */
  async terminate(graceMs = 2000): Promise<void> {
    if (this.running) {
      signalGroup(this.pid, 'SIGTERM');
      if (!(await this.waitExit(graceMs))) signalGroup(this.pid, 'SIGKILL');
      await this.waitExit(graceMs);
    }
    signalGroup(this.pid, 'SIGKILL');
    live.delete(this);
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (!this.running) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
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

/** Synchronously SIGKILL every process group still alive (interrupt / fatal error path). */
export function killAllServers(): void {
  for (const p of live) signalGroup(p.pid, 'SIGKILL');
  live.clear();
}

/** Stop every live server gracefully, then forcibly. */
export async function stopAllServers(graceMs = 1000): Promise<void> {
  await Promise.all([...live].map((p) => p.stop(graceMs)));
}

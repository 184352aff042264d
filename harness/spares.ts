/**
 * Warm spares (stdio): a few server processes launched ahead of the
 * connections that will need them, so a fresh connection does not wait for
 * the server to start. A spare is a fresh process, never spoken to and never
 * reused: the connection that takes it gets a process no other connection has
 * touched, as if launched at that moment. The one difference, when the
 * process started, is made invisible: a spare launched before the run made
 * a call that may change what a server reads at start-up (a tools/call, a
 * shell-command trigger) is stopped unused, and the connection gets a
 * process launched after that call.
 */
import type { LaunchOptions } from './process.js';
import { ServerProcess } from './process.js';

interface Spare {
  proc: Promise<ServerProcess>;
  /** The state epoch when it was launched. */
  epoch: number;
  /** Set once the process has exited on its own (e.g. a port or a lock another process holds): never handed out. */
  dead?: boolean;
}

export interface SpareOptions {
  command: string;
  launch: LaunchOptions;
  /** How many spares to keep ready. */
  size: number;
  /** The run's state epoch: it moves on with every call that may change what a server reads at start-up. */
  epoch: () => number;
}

export class SparePool {
  private readonly spares: Spare[] = [];
  private closed = false;
  /** Spares stopped unused because the state epoch moved on (the bench reports them). */
  discarded = 0;

  constructor(private readonly opts: SpareOptions) {}

  /** A spare launched in the current epoch, if one is ready (stale ones are stopped). */
  take(): Promise<ServerProcess> | undefined {
    const epoch = this.opts.epoch();
    let found: Spare | undefined;
    while (!found && this.spares.length) {
      const s = this.spares.shift()!;
      if (s.epoch === epoch && !s.dead) found = s;
      else this.discard(s);
    }
    return found?.proc;
  }

  /** Launch spares up to the pool's size (after the first connection: the run's opening is not slowed). */
  fill(): void {
    while (!this.closed && this.spares.length < this.opts.size) {
      const proc = ServerProcess.launch(this.opts.command, this.opts.launch);
      // A launch that fails is the taker's to report (its connect rejects); an untaken one is only dropped.
      const spare: Spare = { proc, epoch: this.opts.epoch() };
      // A spare that exits before it is taken (a server that cannot run twice at once, say) is dropped, and the
      // connection launches its own process then, as it would without spares.
      proc.then(
        (p) => void p.exited.then(() => (spare.dead = true)),
        () => {},
      );
      this.spares.push(spare);
    }
  }

  /** Stops of dropped spares still under way (close waits for them). */
  private readonly ending = new Set<Promise<void>>();

  private discard(s: Spare): void {
    this.discarded++;
    const done = end(s).finally(() => this.ending.delete(done));
    this.ending.add(done);
  }

  /** Stop every spare not taken, and wait for the dropped ones to be gone; none is launched after this. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.spares.splice(0).map(end), ...this.ending]);
  }
}

/**
 * Stop a spare nobody spoke to: its stdin closed and, with no wait (there is
 * nothing it could finish), killed. How a server stops is judged on the
 * connections that used it, never on a spare.
 */
async function end(s: Spare): Promise<void> {
  const p = await s.proc.catch(() => undefined);
  await p?.stop(0).catch(() => {});
  // stop(0) sends SIGKILL without waiting for it: the spare is gone only once it exited (it does, on SIGKILL).
  await p?.exited.catch(() => {});
}

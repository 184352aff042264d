/**
 * Warm spares (harness/spares.ts, `--spares N`): what the pool promises, held
 * to events, never to the clock. A spare handed out is a fresh process nobody
 * has written to; a spare launched before the state epoch moved on is stopped
 * unused, never handed out; one that exited on its own is never handed out;
 * closing the pool leaves no spare running. And a whole run of the reference
 * with spares gives the verdicts of a run without them.
 */
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ServerProcess } from '../harness/process.js';
import { Redactor } from '../harness/redact.js';
import { SparePool } from '../harness/spares.js';
import { runConformance } from '../engine/run.js';
import { quote } from 'shell-quote';
import { describeRun, processesWith, referenceCommand } from './helpers.js';

/** A stand-in server: answers each stdin line with how many lines it has read (so "1" means nothing came before). */
const COUNTER = 'let n = 0; process.stdin.on("data", (b) => { n += String(b).split("\\n").length - 1; process.stdout.write(n + "\\n"); });';

function pool(command: string, epoch: () => number = () => 0, size = 1): SparePool {
  return new SparePool({ command, launch: { redactor: new Redactor() }, size, epoch });
}

/** The first line the process writes after `line` is written to it. */
async function answer(p: ServerProcess, line: string): Promise<string> {
  const lines = createInterface({ input: p.stdout });
  const first = new Promise<string>((resolve) => lines.once('line', resolve));
  p.stdin.write(`${line}\n`);
  const got = await first;
  lines.close();
  return got;
}

/** The processes the pool holds now (its private list, read for the test only). */
const launched = (p: SparePool) => (p as unknown as { spares: Array<{ proc: Promise<ServerProcess> }> }).spares.map((s) => s.proc);

const alive = (pid: number) => processesWith(String(pid)).includes(pid);

describe('warm spares', () => {
  it('hand out a launched process nobody has written to, and only once filled', async () => {
    const spares = pool(quote(['node', '-e', COUNTER]));
    try {
      expect(spares.take(), 'nothing is launched before fill()').toBeUndefined();
      spares.fill();
      const taken = await spares.take()!;
      expect(await answer(taken, 'hello'), 'the first line it ever read').toBe('1');
      expect(spares.take(), 'a spare is handed out once').toBeUndefined();
      await taken.stop(0);
    } finally {
      await spares.close();
    }
  });

  it('stop a spare launched before the state epoch moved on, and never hand it out', async () => {
    let epoch = 0;
    const spares = pool(quote(['node', '-e', COUNTER]), () => epoch);
    spares.fill();
    const stale = await launched(spares)[0]!;
    // A call that may change what a server reads at start-up (the target counts them): the spare is of the past now.
    epoch++;
    expect(spares.take(), 'the spare of the earlier epoch').toBeUndefined();
    expect(spares.discarded).toBe(1);
    spares.fill();
    const fresh = await spares.take()!;
    expect(fresh.pid).not.toBe(stale.pid);
    expect(await answer(fresh, 'x')).toBe('1');
    await fresh.stop(0);
    await spares.close();
    expect(alive(stale.pid), 'the stale spare, after close()').toBe(false);
  });

  it('never hand out a spare that exited on its own, and leave none running once closed', async () => {
    const exits = pool(quote(['node', '-e', 'process.exit(0)']));
    exits.fill();
    // The pool's own record of the exit is set by the same event this waits for.
    await (
      await launched(exits)[0]!
    ).exited;
    await Promise.resolve();
    expect(exits.take(), 'a spare that is gone').toBeUndefined();
    await exits.close();

    const waiting = pool(quote(['node', '-e', COUNTER]), () => 0, 2);
    waiting.fill();
    const pids = (await Promise.all(launched(waiting))).map((p) => p.pid);
    expect(pids.every(alive)).toBe(true);
    await waiting.close();
    expect(pids.filter(alive), 'spares still running after close()').toEqual([]);
  });

  it('a run of the reference with spares gives the verdicts of a run without them, and leaves nothing running', async () => {
    const marker = `spares-${process.pid}`;
    const command = referenceCommand('--tag', marker);
    const verdicts = (r: Awaited<ReturnType<typeof runConformance>>) => r.checks.map((c) => [c.id, c.results.map((x) => x.verdict)]);
    const without = await runConformance({ command, requestTimeoutMs: 5000, seed: 1 });
    const withSpares = await runConformance({ command, requestTimeoutMs: 5000, seed: 1, spares: 2 });
    expect(withSpares.aborted, describeRun(withSpares)).toBeUndefined();
    expect(verdicts(withSpares), describeRun(withSpares)).toEqual(verdicts(without));
    expect(processesWith(marker)).toEqual([]);
  });
});

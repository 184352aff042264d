/**
 * Live progress of a run: each check's lines are printed as soon as its
 * result is known (in the order checks run). On a terminal a one-line
 * progress display (log-update) sits below them; elsewhere (CI logs, pipes)
 * only the plain lines are written.
 */
import logUpdate from 'log-update';
import type { CheckResult, RunResult } from '../model/results.js';
import { liveConsole } from '../render/index.js';

export interface LiveOptions {
  color: boolean;
  tty: boolean;
  version: string;
  write?: (text: string) => void;
}

export function liveProgress(opts: LiveOptions) {
  const write = opts.write ?? ((text: string) => void process.stdout.write(text));
  let view = liveConsole({ color: opts.color });
  let started = Date.now();
  const bar = (index: number, total: number, id: string) => {
    const width = 24;
    const done = Math.round(((index + 1) / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    return `[${'█'.repeat(done)}${'░'.repeat(width - done)}] ${index + 1}/${total} checks done, ${secs} s — last: ${id}`;
  };
  return {
    start(): void {
      started = Date.now();
      write(view.start(opts.version));
    },
    /** The engine's onResult. `--spec all` runs the catalogue once per era: a new pass starts at index 0. */
    onResult(check: CheckResult, index: number, total: number): void {
      if (index === 0) view = liveConsole({ color: opts.color });
      const text = view.check(check);
      if (opts.tty) {
        logUpdate.clear();
        write(text);
        logUpdate(bar(index, total, check.id));
      } else {
        write(text);
      }
    },
    end(run: RunResult): void {
      if (opts.tty) {
        logUpdate.clear();
        logUpdate.done();
      }
      write(view.end(run));
    },
  };
}

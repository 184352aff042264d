/**
 * Live progress of a run: each check's lines are printed as soon as its
 * result is known (in the order checks run). On a terminal a one-line
 * progress display (log-update) sits below them; elsewhere (CI logs, pipes)
 * only the plain lines are written.
 */
import type { CheckResult, RunResult } from '../model/results.js';
import type { Era } from '../model/wire.js';
import { liveConsole } from '../render/index.js';

export interface LiveOptions {
  color: boolean;
  tty: boolean;
  version: string;
  /** `--spec all`: the engine runs the catalogue once per era; each pass gets a heading. */
  passes?: number;
  /** List the other era's skipped checks one by one (and everything else `--verbose` shows). */
  verbose?: boolean;
  /** Where the reports go (the recap names them). */
  reports?: string[];
  write?: (text: string) => void;
}

/** log-update, loaded only for a terminal (elsewhere nothing draws the display). */
type LogUpdate = (typeof import('log-update'))['default'];

/** The live progress of a run; on a terminal with the one-line display. */
export async function liveProgress(opts: LiveOptions) {
  const logUpdate: LogUpdate | undefined = opts.tty ? (await import('log-update')).default : undefined;
  return progressView(opts, logUpdate);
}

function progressView(opts: LiveOptions, logUpdate: LogUpdate | undefined) {
  const write = opts.write ?? ((text: string) => void process.stdout.write(text));
  const consoleOpts = { color: opts.color, verbose: opts.verbose === true, reports: opts.reports ?? [] };
  let view = liveConsole(consoleOpts);
  let started = Date.now();
  let pass = 0;
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
    onResult(check: CheckResult, index: number, total: number, era?: Era): void {
      let text = '';
      if (index === 0) {
        view = liveConsole(consoleOpts);
        pass++;
        if ((opts.passes ?? 1) > 1) text += `\n━━ era ${pass} of ${opts.passes} ━━\n`;
      }
      text += view.check(check, era);
      if (logUpdate) {
        logUpdate.clear();
        write(text);
        logUpdate(bar(index, total, check.id));
      } else {
        write(text);
      }
    },
    end(run: RunResult): void {
      if (logUpdate) {
        logUpdate.clear();
        logUpdate.done();
      }
      write(view.end(run));
    },
  };
}

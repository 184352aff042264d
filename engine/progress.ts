/**
 * Progress of a run as it happens: after each check, its result (redacted,
 * copied) and the run's header go to the one listener, if any. The CLI's
 * watchdog (cli/watchdog.ts) keeps them, so that a run ended by a signal
 * while its thread is busy still gets reports written from what is known.
 */
import type { Redactor } from '../harness/redact.js';
import type { CheckResult, RunResult } from '../model/results.js';

export interface Progress {
  /** The run so far, without its checks. */
  run: Omit<RunResult, 'checks'>;
  /** The check just finished. */
  check: CheckResult;
}

let listener: ((p: Progress) => void) | undefined;

/** Receive every run's progress (one listener per thread; undefined to stop). */
export function onProgress(fn: ((p: Progress) => void) | undefined): void {
  listener = fn;
}

/** Hand one finished check to the listener: a redacted copy, never the live objects. */
export function reportProgress(result: RunResult, check: CheckResult, redactor: Redactor): void {
  if (!listener) return;
  const { checks: _checks, ...run } = result;
  let copy: Progress;
  try {
    copy = structuredClone({ run, check });
  } catch {
    // Too deep to copy: the verdicts without their evidence.
    copy = {
      run: structuredClone({ ...run, harnessErrors: [...run.harnessErrors] }),
      check: { ...check, results: check.results.map((r) => ({ ...r, findings: [], details: undefined })) },
    };
  }
  redactor.redactDeep(copy);
  try {
    listener(copy);
  } catch {
    // A listener's failure is not the run's.
  }
}

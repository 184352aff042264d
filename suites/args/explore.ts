/**
 * The property-based driver: fast-check draws values from an arbitrary, the
 * property makes the call (through the run's shared call records, so through
 * the Session) and judges what came back. A failing call is shrunk by
 * fast-check to the smallest call that still fails; its seed and path
 * identify it, and the same seed and path replay exactly that case.
 *
 * Shrinking sends new calls, so it has a budget: past it, candidates not
 * already sent count as passing and the smallest failure found so far is
 * reported. A call that timed out is not shrunk (each candidate could wait
 * the full timeout), and one that lost the connection only a little (each
 * candidate may cost a server restart).
 */
import fc from 'fast-check';
import { VerdictSignal } from '../check.js';
import type { CallRecord } from './calls.js';
import type { WireFrame } from '../../model/wire.js';

/** One thing wrong with a call, for the check that judged it. */
export interface Problem {
  expected: string;
  actual: string;
  /** The check's part this problem breaks (its own quote and level), instead of the main rule. */
  part?: string;
  /** Frames beyond the call's own that show it (e.g. the follow-up request). */
  moreWire?: WireFrame[];
}

/** Calls shrinking may send for one failure. */
export const SHRINK_BUDGET = 40;
/** ... when the failure is a dropped connection (each candidate may cost a server restart). */
export const SHRINK_BUDGET_NO_ANSWER = 4;

/** How many of `runs` calls may be edge values: three quarters, at least one; the rest are random. */
export function edgeBudget(runs: number): number {
  return Math.max(1, Math.floor((runs * 3) / 4));
}

export interface ExploreOptions<T> {
  arb: fc.Arbitrary<T>;
  seed: number;
  runs: number;
  /** Values tried first, before the random ones (edge values); at most three quarters of `runs` of them. */
  examples?: T[];
  /** Replay exactly the case at this fast-check path (no shrinking). */
  path?: string;
  /** Make (or look up) the call for a drawn value. */
  call: (value: T) => Promise<CallRecord>;
  /** Whether the call for this value was already made. */
  cached: (value: T) => boolean;
  /** Whether a value not yet sent may be sent now, given the calls judged so far (default: yes); a refused value counts as passing. */
  maySend?: (value: T, judged: number) => boolean;
  /** What is wrong with the call; undefined when this check cannot judge it (e.g. no answer came). */
  judge: (record: CallRecord, value: T) => Problem[] | undefined;
}

export interface Failure<T> {
  value: T;
  record: CallRecord;
  problems: Problem[];
  seed: number;
  path: string;
  /** Drawn values up to and including the first failure. */
  runsToFailure: number;
  shrinks: number;
}

export interface Exploration<T> {
  /** Values drawn. */
  runs: number;
  /** Calls this check could judge (before any failure). */
  judged: number;
  failure?: Failure<T>;
  /** The last reason a call could not be judged, for a not-observed verdict. */
  unjudged?: string;
}

export async function explore<T>(o: ExploreOptions<T>): Promise<Exploration<T>> {
  let judged = 0;
  let failing = false;
  let shrinkCalls = 0;
  let budget = SHRINK_BUDGET;
  let unjudged: string | undefined;
  let fatal: unknown;
  let drawn = 0;

  const property = fc.asyncProperty(o.arb, async (value) => {
    if (fatal !== undefined) return true;
    const cached = o.cached(value);
    if (!cached && o.maySend && !o.maySend(value, judged)) return true;
    if (failing && !cached) {
      if (shrinkCalls >= budget) return true;
      shrinkCalls++;
    }
    if (!failing) drawn++;
    let record: CallRecord;
    try {
      record = await o.call(value);
    } catch (err) {
      // An interrupt or an internal error: stop drawing and let the engine see it.
      fatal = err;
      return true;
    }
    let problems: Problem[] | undefined;
    try {
      problems = o.judge(record, value);
    } catch (err) {
      // A verdict (e.g. not-observed: the judge could not evaluate a pattern in time) ends the exploration.
      fatal = err;
      return true;
    }
    if (problems === undefined) {
      unjudged = record.noAnswer ?? unjudged;
      return true;
    }
    if (!failing) judged++;
    if (problems.length === 0) return true;
    if (!failing) {
      failing = true;
      if (record.timedOut) budget = 0;
      else if (record.noAnswer !== undefined) budget = SHRINK_BUDGET_NO_ANSWER;
    }
    return false;
  });

  let details: fc.RunDetails<[T]>;
  try {
    details = await fc.check(property, {
      seed: o.seed,
      numRuns: o.runs,
      examples: (o.examples ?? []).slice(0, edgeBudget(o.runs)).map((v) => [v] as [T]),
      ...(o.path !== undefined ? { path: o.path, endOnFailure: true } : {}),
    });
  } catch (err) {
    if (o.path === undefined || err instanceof VerdictSignal) throw err;
    throw new VerdictSignal(
      'not-observed',
      `--replay path ${o.path} names no case here (${(err as Error).message}): was it printed for this tool, check and --seed?`,
    );
  }
  if (fatal !== undefined) throw fatal;
  const out: Exploration<T> = { runs: drawn, judged, ...(unjudged ? { unjudged } : {}) };
  if (details.failed && details.counterexample) {
    const value = details.counterexample[0] as T;
    const record = await o.call(value);
    out.failure = {
      value,
      record,
      problems: o.judge(record, value) ?? [],
      seed: details.seed,
      path: details.counterexamplePath ?? o.path ?? '',
      runsToFailure: details.numRuns,
      shrinks: details.numShrinks,
    };
  }
  return out;
}

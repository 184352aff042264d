/**
 * Regular expressions from untrusted schemas (`pattern`, `patternProperties`),
 * evaluated with a time budget.
 *
 * A server controls both a schema's `pattern` and (in its results) the text
 * matched against it, so a pattern that backtracks catastrophically (`^(a+)+$`
 * against "aaaa…!") could hang the suite. JavaScript's engine backtracks and
 * cannot be interrupted from the thread that runs it, so matches against long
 * inputs run on a worker thread while the caller waits on shared memory with
 * a deadline; a match that overruns is abandoned by terminating the worker
 * (a fresh one starts on the next call), and the pattern is remembered as
 * catastrophic so later matches fail at once. Short inputs (where even an
 * exponential pattern finishes in microseconds) are matched in place. The
 * semantics are exactly those of the built-in engine; only the cost is bounded.
 */
import { Worker } from 'node:worker_threads';

/** Time one match may take before it is abandoned, in milliseconds. */
export const REGEX_BUDGET_MS = 500;
/** Inputs up to this length are matched in place. */
const INLINE_MAX = 8;
/** How long a fresh worker may take to start. */
const WORKER_START_MS = 10_000;

/** A pattern could not be evaluated within the budget. */
export class RegexBudgetError extends Error {
  override name = 'RegexBudgetError';
  constructor(
    readonly pattern: string,
    readonly budgetMs: number,
  ) {
    super(`pattern ${JSON.stringify(pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern)} could not be evaluated within ${budgetMs} ms (catastrophic backtracking)`);
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const cell = new Int32Array(workerData);
Atomics.store(cell, 1, 1);
Atomics.notify(cell, 1);
parentPort.on('message', ({ pattern, flags, input }) => {
  let answer;
  try { answer = new RegExp(pattern, flags).test(input) ? 1 : 2; } catch { answer = 3; }
  Atomics.store(cell, 0, answer);
  Atomics.notify(cell, 0);
});
`;

/** cell[0]: 0 waiting, 1 match, 2 no match, 3 error; cell[1]: 1 once the worker runs. */
let worker: { thread: Worker; cell: Int32Array } | undefined;
const catastrophic = new Set<string>();

function getWorker(): { thread: Worker; cell: Int32Array } {
  if (!worker) {
    const shared = new SharedArrayBuffer(8);
    const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: shared });
    thread.unref();
    thread.on('error', () => {
      if (worker?.thread === thread) worker = undefined;
    });
    worker = { thread, cell: new Int32Array(shared) };
  }
  return worker;
}

function discardWorker(): void {
  const w = worker;
  worker = undefined;
  void w?.thread.terminate().catch(() => {});
}

/** Match `input` against `pattern` on the worker; throws RegexBudgetError past the budget. */
function testBounded(pattern: string, flags: string, input: string, budgetMs: number): boolean {
  if (catastrophic.has(`${flags}/${pattern}`)) throw new RegexBudgetError(pattern, budgetMs);
  const w = getWorker();
  if (Atomics.load(w.cell, 1) === 0 && Atomics.wait(w.cell, 1, 0, WORKER_START_MS) === 'timed-out') {
    discardWorker();
    throw new Error('the regular-expression worker did not start');
  }
  Atomics.store(w.cell, 0, 0);
  w.thread.postMessage({ pattern, flags, input });
  if (Atomics.wait(w.cell, 0, 0, budgetMs) === 'timed-out') {
    discardWorker();
    catastrophic.add(`${flags}/${pattern}`);
    throw new RegexBudgetError(pattern, budgetMs);
  }
  const answer = Atomics.load(w.cell, 0);
  if (answer === 3) throw new SyntaxError(`invalid regular expression: ${pattern}`);
  return answer === 1;
}

/**
 * A RegExp engine for ajv's `code.regExp` option: compiles like `new RegExp`
 * (an invalid pattern still fails at compile time) and matches with a budget.
 */
export function boundedRegExp(pattern: string, flags: string): { test: (input: string) => boolean; toString: () => string } {
  const native = new RegExp(pattern, flags);
  return {
    test(input: string): boolean {
      if (input.length <= INLINE_MAX) return native.test(input);
      return testBounded(pattern, flags, input, REGEX_BUDGET_MS);
    },
    // ajv shares compiled patterns by this key.
    toString: () => native.toString(),
  };
}
boundedRegExp.code = 'boundedRegExp';

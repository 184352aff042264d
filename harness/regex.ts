/**
 * Server-controlled patterns and formats, evaluated with a time budget: the
 * one home of every regular-expression evaluation whose pattern or input a
 * server controls (`pattern`, `patternProperties`, and the `format` checks of
 * ajv-formats on server data).
 *
 * A server controls both a schema's `pattern` and (in its results) the text
 * matched against it, so a pattern that backtracks catastrophically (`^(a+)+$`
 * against "aaaa…!") could hang the suite. JavaScript's engine backtracks and
 * cannot be interrupted from the thread that runs it, so the work is done in
 * two ways, both bounded:
 *
 * - Matching: inputs longer than a few characters are matched on a worker
 *   thread while the caller waits on shared memory with a deadline; a match
 *   that overruns is abandoned by terminating the worker (a fresh one starts
 *   on the next call), and the pattern is remembered as catastrophic so later
 *   matches fail at once (RegexBudgetError). Short inputs, where even an
 *   exponential pattern finishes in microseconds, are matched in place. The
 *   semantics are exactly those of the built-in engine; only the cost is
 *   bounded. Format checks on long strings run on the same worker.
 * - Screening (`screenPattern`), before the suite generates or mutates values
 *   for a pattern: a pattern is refused when it asks for strings beyond the
 *   generator's bounds (nested counted repetition), or when a short attack
 *   (runs of the characters it names, then a character that breaks the
 *   match) overruns the budget on the worker. Generation (fast-check,
 *   json-schema-faker), mutation and shrinking then never see the pattern:
 *   the tool's argument checks are not-observed, naming it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Time one match may take before it is abandoned, in milliseconds. */
export const REGEX_BUDGET_MS = 500;
/** Time one screening attack may take. */
export const SCREEN_BUDGET_MS = 250;
/** Inputs up to this length are matched in place. */
const INLINE_MAX = 8;
/** Strings up to this length are checked against a format in place. */
const FORMAT_INLINE_MAX = 256;
/** How long a fresh worker may take to start. */
const WORKER_START_MS = 10_000;
/** Longest string a pattern's counted repetitions may ask the generator for. */
export const MAX_PATTERN_EXPANSION = 10_000;

/** A pattern (or a format check) could not be evaluated within the budget. */
export class RegexBudgetError extends Error {
  override name = 'RegexBudgetError';
  constructor(
    readonly pattern: string,
    readonly budgetMs: number,
    what = `pattern ${showPattern(pattern)}`,
  ) {
    super(`${what} could not be evaluated within ${budgetMs} ms (catastrophic backtracking)`);
  }
}

/** A pattern as reports show it: JSON, cut short. */
export function showPattern(pattern: string): string {
  return JSON.stringify(pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern);
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const cell = new Int32Array(workerData.shared);
let formats;
Atomics.store(cell, 1, 1);
Atomics.notify(cell, 1);
parentPort.on('message', (task) => {
  let answer;
  try {
    if (task.kind === 'format') {
      formats ??= require(workerData.formatsPath).fullFormats;
      const f = formats[task.name];
      const v = f instanceof RegExp ? f : typeof f === 'function' ? f : f && f.validate;
      answer = (v instanceof RegExp ? v.test(task.input) : v(task.input)) ? 1 : 2;
    } else {
      answer = new RegExp(task.pattern, task.flags).test(task.input) ? 1 : 2;
    }
  } catch { answer = 3; }
  Atomics.store(cell, 0, answer);
  Atomics.notify(cell, 0);
});
`;

type Task = { kind: 'regex'; pattern: string; flags: string; input: string } | { kind: 'format'; name: string; input: string };

/** cell[0]: 0 waiting, 1 match, 2 no match, 3 error; cell[1]: 1 once the worker runs. */
let worker: { thread: Worker; cell: Int32Array } | undefined;
const catastrophic = new Set<string>();
const formatsPath = createRequire(import.meta.url).resolve('ajv-formats/dist/formats');

function getWorker(): { thread: Worker; cell: Int32Array } {
  if (!worker) {
    const shared = new SharedArrayBuffer(8);
    const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { shared, formatsPath } });
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

/** Run one task on the worker: 1 match, 2 no match, 3 error; 'overrun' past the budget. */
function onWorker(task: Task, budgetMs: number): 1 | 2 | 3 | 'overrun' {
  const w = getWorker();
  if (Atomics.load(w.cell, 1) === 0 && Atomics.wait(w.cell, 1, 0, WORKER_START_MS) === 'timed-out') {
    discardWorker();
    throw new Error('the regular-expression worker did not start');
  }
  Atomics.store(w.cell, 0, 0);
  w.thread.postMessage(task);
  if (Atomics.wait(w.cell, 0, 0, budgetMs) === 'timed-out') {
    discardWorker();
    return 'overrun';
  }
  return Atomics.load(w.cell, 0) as 1 | 2 | 3;
}

const keyOf = (pattern: string, flags: string) => `${flags}/${pattern}`;

/** Has this pattern overrun the budget in this process? */
export function isCatastrophic(pattern: string, flags = 'u'): boolean {
  return catastrophic.has(keyOf(pattern, flags));
}

/** Match `input` against `pattern` on the worker; throws RegexBudgetError past the budget. */
function testBounded(pattern: string, flags: string, input: string, budgetMs: number): boolean {
  if (catastrophic.has(keyOf(pattern, flags))) throw new RegexBudgetError(pattern, budgetMs);
  const answer = onWorker({ kind: 'regex', pattern, flags, input }, budgetMs);
  if (answer === 'overrun') {
    catastrophic.add(keyOf(pattern, flags));
    throw new RegexBudgetError(pattern, budgetMs);
  }
  if (answer === 3) throw new SyntaxError(`invalid regular expression: ${pattern}`);
  return answer === 1;
}

/**
 * Does `input` match the server's `pattern`? Exactly the built-in engine's
 * answer, within the budget; throws RegexBudgetError past it (and at once for
 * a pattern that overran before), SyntaxError for an invalid pattern.
 */
export function boundedTest(pattern: string, flags: string, input: string): boolean {
  if (input.length <= INLINE_MAX && !catastrophic.has(keyOf(pattern, flags))) return new RegExp(pattern, flags).test(input);
  return testBounded(pattern, flags, input, REGEX_BUDGET_MS);
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

type FormatFn = (data: string) => boolean;

/**
 * A format check of ajv-formats with a time budget: strings longer than
 * FORMAT_INLINE_MAX are checked on the worker (the formats' own regular
 * expressions, run on server data); an overrun throws RegexBudgetError.
 */
export function boundedFormat(name: string, native: FormatFn): FormatFn {
  return (data: string) => {
    if (typeof data !== 'string' || data.length <= FORMAT_INLINE_MAX) return native(data);
    const answer = onWorker({ kind: 'format', name, input: data }, REGEX_BUDGET_MS);
    if (answer === 'overrun') throw new RegexBudgetError(name, REGEX_BUDGET_MS, `format "${name}" on a ${data.length}-character string`);
    return answer === 1;
  };
}

// ---- screening -------------------------------------------------------------

const screened = new Map<string, string | undefined>();

/**
 * Why the suite refuses to generate or mutate values for `pattern`, or
 * undefined when it may. Memoized per pattern.
 */
export function screenPattern(pattern: string, flags = 'u'): string | undefined {
  const key = keyOf(pattern, flags);
  if (screened.has(key)) return screened.get(key);
  const why = screenUncached(pattern, flags);
  if (screened.size > 2000) screened.clear();
  screened.set(key, why);
  return why;
}

function screenUncached(pattern: string, flags: string): string | undefined {
  try {
    new RegExp(pattern, flags);
  } catch {
    return undefined; // not this screen's business: the schema checks judge an invalid pattern
  }
  const shown = `pattern ${showPattern(pattern)}`;
  if (catastrophic.has(keyOf(pattern, flags)))
    return `${shown} overran the ${REGEX_BUDGET_MS} ms matching budget earlier in the run (catastrophic backtracking)`;
  const expansion = countedExpansion(pattern);
  if (expansion > MAX_PATTERN_EXPANSION) {
    return `${shown} asks for strings of more than ${MAX_PATTERN_EXPANSION.toLocaleString('en-US')} characters (nested counted repetition), beyond the generator's bounds`;
  }
  for (const input of attacks(pattern)) {
    const answer = onWorker({ kind: 'regex', pattern, flags, input }, SCREEN_BUDGET_MS);
    if (answer === 'overrun') {
      catastrophic.add(keyOf(pattern, flags));
      return `${shown} backtracks catastrophically: matching a ${input.length}-character string took more than ${SCREEN_BUDGET_MS} ms`;
    }
  }
  return undefined;
}

/** Characters that break most matches, put after a run. */
const BREAKERS = ['!', '\u0000', ' ', '-'];

/** Short attack strings: runs of the characters a pattern names (and of common ones), each ended by a breaker. */
function attacks(pattern: string): string[] {
  const chars = new Set<string>(['a', '0', ' ']);
  for (const ch of pattern) {
    if (chars.size >= 14) break;
    if (/[\p{L}\p{N}_.,:;@#/=-]/u.test(ch)) chars.add(ch);
  }
  if (/\\d/.test(pattern)) chars.add('1');
  if (/\\s/.test(pattern)) chars.add('\t');
  const out: string[] = [];
  for (const length of [32, 2048]) {
    for (const c of chars) for (const b of BREAKERS) if (b !== c) out.push(c.repeat(length) + b);
    // Alternating pairs catch overlaps like (ab|a)* too.
    out.push('ab'.repeat(length / 2) + '!', 'a0'.repeat(length / 2) + '!');
  }
  return out;
}

/**
 * The largest product of counted repetitions (`{n}`, `{n,m}`) along any
 * nesting path of a pattern: a rough bound on how long a string the
 * generator must build. Escapes and classes are skipped; `{n,}` counts n.
 */
export function countedExpansion(pattern: string): number {
  // Per open group, the largest factor of its atoms so far.
  const stack: number[] = [1];
  let atom = 1;
  const raise = (f: number) => {
    const top = stack.length - 1;
    stack[top] = Math.max(stack[top]!, f);
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      i++;
      atom = 1;
    } else if (ch === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      atom = 1;
    } else if (ch === '(') {
      stack.push(1);
      atom = 1;
    } else if (ch === ')') {
      atom = stack.length > 1 ? stack.pop()! : 1;
    } else if (ch === '{' && /^\{\d+(?:,\d*)?\}/.test(pattern.slice(i))) {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i))!;
      atom *= Math.max(1, Number(m[1]), m[2] ? Number(m[2]) : 0);
      i += m[0].length - 1;
    } else if (ch !== '*' && ch !== '+' && ch !== '?' && ch !== '|') {
      atom = 1;
    }
    raise(atom);
  }
  return Math.max(...stack);
}

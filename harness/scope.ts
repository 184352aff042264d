/**
 * Abort scopes: everything a piece of work sends through a session while
 * running inside `withAbortScope(signal, fn)` is abandoned when `signal`
 * aborts, including requests it starts after the caller stopped waiting for
 * it. The engine runs each check in a scope, so a check that overruns its
 * budget cannot keep talking to the server while the next check runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<AbortSignal>();

export function withAbortScope<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return scope.run(signal, fn);
}

/** The signal of the innermost scope the caller runs in, if any. */
export function currentAbortScope(): AbortSignal | undefined {
  return scope.getStore();
}

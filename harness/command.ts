/**
 * A shell command the user named to act on the server's world (e.g. the
 * list-changed trigger of the configuration file): run it with a deadline and
 * report how it ended. The server itself is never started this way.
 */
import { execa } from 'execa';
import type { Redactor } from './redact.js';

export interface CommandOutcome {
  ok: boolean;
  /** How it ended, in words (exit code, signal, timeout), with the end of its stderr. */
  detail: string;
  /** What it printed on stdout (unredacted: a command may print a secret the caller registers). */
  stdout?: string;
}

let commandsRun = 0;

/** How many shell commands this process has started (a command may change what a server reads at start-up). */
export function shellCommandsRun(): number {
  return commandsRun;
}

export async function runShellCommand(
  command: string,
  opts: { timeoutMs: number; cwd?: string; signal?: AbortSignal; redactor?: Redactor },
): Promise<CommandOutcome> {
  commandsRun++;
  const r = await execa(command, {
    shell: true,
    reject: false,
    timeout: opts.timeoutMs,
    cwd: opts.cwd,
    stdin: 'ignore',
    ...(opts.signal ? { cancelSignal: opts.signal } : {}),
    forceKillAfterDelay: 1000,
  });
  const stderr = String(r.stderr ?? '')
    .trim()
    .split('\n')
    .slice(-3)
    .join(' | ');
  const tail = stderr ? `; stderr: ${opts.redactor ? opts.redactor.redact(stderr) : stderr}` : '';
  if (r.timedOut) return { ok: false, detail: `did not finish within ${opts.timeoutMs} ms${tail}` };
  if (r.isCanceled) return { ok: false, detail: 'was cancelled (the run was interrupted)' };
  if (r.exitCode !== 0) {
    return { ok: false, detail: `${r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`}${tail}` };
  }
  return { ok: true, detail: 'exited with code 0', stdout: String(r.stdout ?? '') };
}

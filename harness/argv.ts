/**
 * Splitting a `--server` command line into words the way a POSIX shell
 * would (quotes, backslashes, `$VAR` from the suite's environment), without
 * running a shell. Operators (`|`, `&&`, `>`, …) and globs have no meaning
 * without a shell, so they are refused with the word that caused it rather
 * than passed on as something the user did not mean.
 */
import { parse } from 'shell-quote';

export function splitCommand(command: string, env: Record<string, string | undefined> = process.env): string[] {
  const words: string[] = [];
  for (const entry of parse(command, (key) => env[key] ?? '')) {
    if (typeof entry === 'string') {
      words.push(entry);
      continue;
    }
    if ('comment' in entry) break;
    if ('op' in entry && entry.op === 'glob') {
      // A glob is kept as the literal word: no shell is there to expand it.
      words.push((entry as { pattern: string }).pattern);
      continue;
    }
    const op = 'op' in entry ? String(entry.op) : JSON.stringify(entry);
    throw new Error(
      `the --server command contains the shell operator ${JSON.stringify(op)}, which only a shell understands; quote it, or wrap the command: --server 'sh -c "…"'`,
    );
  }
  return words;
}

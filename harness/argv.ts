/**
 * Splitting a `--server` command line into words the way a POSIX shell
 * would (quotes, backslashes, `$VAR` from the suite's environment), without
 * running a shell. Operators (`|`, `&&`, `>`, …) and globs have no meaning
 * without a shell, so they are refused with the word that caused it rather
 * than passed on as something the user did not mean.
 */
import { parse } from 'shell-quote';

/**
 * The command with every `#` inside a word escaped: a shell starts a comment
 * only at a `#` that begins a word, but the parser also at one inside a word
 * (`--break check#part`).
 */
function escapeInnerHashes(command: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === '\\' && quote !== "'") {
      out += ch + (command[i + 1] ?? '');
      i++;
    } else if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '#' && i > 0 && !/\s/.test(command[i - 1]!) ? '\\#' : ch;
  }
  return out;
}

export function splitCommand(command: string, env: Record<string, string | undefined> = process.env): string[] {
  const words: string[] = [];
  for (const entry of parse(escapeInnerHashes(command), (key) => env[key] ?? '')) {
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

/**
 * Splitting a `--server` command line into words the way a POSIX shell
 * would (quotes, backslashes, `$VAR` from the suite's environment), without
 * running a shell. Operators (`|`, `&&`, `>`, …) and globs have no meaning
 * without a shell, so they are refused with the word that caused it rather
 * than passed on as something the user did not mean.
 */
import { parse } from 'shell-quote';

/**
 * A POSIX shell starts a comment only with a `#` that begins a word; the
 * parser takes any unquoted `#` for one. Each `#` inside a word (e.g.
 * `--break the/id#part`) is escaped so that it stays part of the word.
 */
function escapeInnerHashes(command: string): string {
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") quote = c === "'" ? undefined : quote;
    else if (c === '\\') {
      out += c + (command[i + 1] ?? '');
      i++;
      continue;
    } else if (quote === '"') quote = c === '"' ? undefined : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && i > 0 && !/\s/.test(command[i - 1]!)) {
      out += '\\#';
      continue;
    }
    out += c;
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

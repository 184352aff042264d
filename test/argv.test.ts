/**
 * splitCommand: a `--server` command split into words as a POSIX shell
 * would; a `#` starts a comment only at the start of a word.
 */
import { describe, expect, it } from 'vitest';
import { splitCommand } from '../harness/argv.js';

describe('splitCommand', () => {
  it('keeps a # inside a word (a part break id) and drops a comment', () => {
    expect(splitCommand('node server.js --break tasks/timestamps#ttl')).toEqual(['node', 'server.js', '--break', 'tasks/timestamps#ttl']);
    expect(splitCommand('node server.js # a comment')).toEqual(['node', 'server.js']);
    expect(splitCommand(`echo "a#b" 'c#d' e\\#f 'g'#h`)).toEqual(['echo', 'a#b', 'c#d', 'e#f', 'g#h']);
  });
});

/**
 * Splitting a --server command line as a shell would: a `#` begins a comment
 * only where it begins a word (a part variant's id, `check#part`, is one word).
 */
import { describe, expect, it } from 'vitest';
import { splitCommand } from '../harness/argv.js';

describe('splitCommand', () => {
  it('keeps a # inside a word, and ends the line at a # that begins one', () => {
    expect(splitCommand('node server.js --break streamable-http/param-headers#provided')).toEqual([
      'node',
      'server.js',
      '--break',
      'streamable-http/param-headers#provided',
    ]);
    expect(splitCommand('node server.js # a comment')).toEqual(['node', 'server.js']);
    expect(splitCommand('node a#b #c')).toEqual(['node', 'a#b']);
  });

  it('leaves quoted and escaped # as they are', () => {
    expect(splitCommand(`node "a # b" 'c#d' e\\#f`)).toEqual(['node', 'a # b', 'c#d', 'e#f']);
  });
});

/**
 * Every check's words are the spec's own: each citation's quote stands
 * verbatim in its cited section of the bundled pages (or schema definition),
 * and each citation's level (the check's and every part's) is no higher than
 * the RFC 2119 keyword of any sentence it quotes, and grounded in one. A later spec edit that changes a quoted sentence names the
 * checks to review here.
 */
import { describe, expect, it } from 'vitest';
import { findQuote, plain, QUOTE_GAP, specSource } from '../engine/spec-pages.js';
import { levelAtMost, strongestLevel, type Citation, type Level } from '../model/spec.js';
import { citationsOf } from '../suites/check.js';
import { catalogue } from '../suites/index.js';

const source = specSource();

/** A TypeScript declaration of the schema (it ends with `;`): a schema rule, MUST as a whole, unlike its prose comment. */
const DEFINITION = /;\s*$/;

/**
 * Why a citation's level is not grounded in its words. Each sentence of the
 * quote that carries a keyword carries one at least as strong as the level
 * (a SHOULD joined to a MUST is not judged at MUST); and some sentence grounds
 * the level: a keyword sentence, or a declaration of the schema. Sentences
 * without a keyword (a list's items, a continuation) may stand beside one.
 */
function levelProblems(where: string, level: Level, citation: Citation): string[] {
  const problems: string[] = [];
  let grounded = false;
  for (const part of citation.quote.split(QUOTE_GAP)) {
    const strongest = strongestLevel(plain(part));
    if (strongest && !levelAtMost(level, strongest)) problems.push(`${where}: level ${level} is above "${part}" (${strongest})`);
    else if (strongest || (citation.spec.page === 'schema' && DEFINITION.test(part))) grounded = true;
  }
  if (!grounded)
    problems.push(`${where}: no sentence of the quote has an RFC 2119 keyword (or is a schema declaration), so it can back no verdict`);
  return problems;
}

describe('spec quotes', () => {
  it('normalises markdown the way a reader reads it', () => {
    expect(plain('Servers **MUST** declare the `tools` [capability](#x):\n  - one')).toBe('Servers MUST declare the tools capability: one');
  });

  it('every citation of every check is found verbatim in its section', () => {
    const problems: string[] = [];
    for (const check of catalogue) {
      for (const { where, citation } of citationsOf(check)) {
        const p = findQuote(source, citation.spec, citation.quote);
        if (p) problems.push(`${where}: ${p.detail}`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it("every citation's level, the check's and each part's, is at most its quote's strongest keyword", () => {
    const problems: string[] = [];
    for (const check of catalogue) {
      for (const { where, level, citation } of citationsOf(check)) problems.push(...levelProblems(where, level, citation));
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('flags a keyword-less citation, a SHOULD sentence judged at MUST and a schema comment without its definition', () => {
    const at = (page: string, quote: string) => ({ spec: { revision: 'draft' as const, page, section: 's' }, quote });
    expect(levelProblems('a', 'MUST', at('server/tools', 'Responses are sent in reply to requests.'))).toHaveLength(1);
    expect(levelProblems('b', 'MUST', at('basic/index', 'Servers SHOULD x. … State MUST be y.'))).toHaveLength(1);
    expect(levelProblems('c', 'MUST', at('schema', 'The value is the id of the request.'))).toHaveLength(1);
    expect(levelProblems('d', 'MUST', at('schema', 'The value is the id. … id: RequestId;'))).toEqual([]);
    expect(levelProblems('e', 'SHOULD', at('basic/index', 'A subscription ends when: … it SHOULD send x.'))).toEqual([]);
  });
});

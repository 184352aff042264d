/**
 * Every check's words are the spec's own: each citation's quote stands
 * verbatim in its cited section of the bundled pages (or schema definition),
 * and the check's level is no higher than the strongest RFC 2119 keyword of
 * its quote. A later spec edit that changes a quoted sentence names the
 * checks to review here.
 */
import { describe, expect, it } from 'vitest';
import { findQuote, plain, specSource } from '../engine/spec-pages.js';
import { levelAtMost, strongestLevel } from '../model/spec.js';
import { citationsOf } from '../suites/check.js';
import { catalogue } from '../suites/index.js';

const source = specSource();

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

  it("every check's level is at most its quote's strongest keyword", () => {
    const problems: string[] = [];
    for (const check of catalogue) {
      for (const { where, level, citation } of citationsOf(check)) {
        const strongest = strongestLevel(plain(citation.quote));
        // A schema definition is a MUST as a whole (a required property, an enum): its quote needs no keyword.
        if (!strongest) {
          if (citation.spec.page !== 'schema') problems.push(`${where}: the quote has no RFC 2119 keyword, so it can back no verdict`);
        } else if (!levelAtMost(level, strongest)) problems.push(`${where}: level ${level} is above the quote's ${strongest}`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

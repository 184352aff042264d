/**
 * A rule of the configuration file (`fromConfig`) is the user's in whichever
 * era the server speaks: it applies in both, and takes no legacy citation.
 */
import { describe, expect, it } from 'vitest';
import { defineCheck } from '../suites/check.js';
import { fixtureContent, fixtureOutcome } from '../suites/fixtures.js';
import { CONFIG_PAGE } from '../model/spec.js';

const base = {
  title: 'a rule of the file',
  level: 'MUST' as const,
  fromConfig: 'fixtures',
  spec: { revision: 'draft' as const, page: CONFIG_PAGE, section: 'fixtures' },
  quote: 'Declared in your configuration file.',
  run: async () => {},
};

describe('checks of the configuration file', () => {
  it('apply in both eras', () => {
    expect(defineCheck({ id: 'x/from-config', ...base }).revisions).toEqual(['modern', 'legacy']);
    expect(fixtureOutcome.revisions).toEqual(['modern', 'legacy']);
    expect(fixtureContent.revisions).toEqual(['modern', 'legacy']);
  });

  it('take no legacy citation', () => {
    const legacy = { spec: { revision: '2025-11-25' as const, page: CONFIG_PAGE, section: 'fixtures' } };
    expect(() => defineCheck({ id: 'x/from-config', ...base, legacy })).toThrow(/no spec citation/);
  });
});

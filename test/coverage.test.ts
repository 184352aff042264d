/**
 * The coverage matrix and the spec author's tools: how sentences are found
 * and addressed, when a quote covers a sentence, that the reviewed exclusions
 * all still match, and what `quotes` / `coverage --spec-dir` say about a spec
 * working copy whose quoted sentence was edited.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COVERAGE_PAGES, coverage, loadExclusions, partyOf, quoteCovers, specDrift, type CoverageReport } from '../engine/coverage.js';
import { findQuote, keywordSentences, pageText, plain, QUOTE_GAP, specSource } from '../engine/spec-pages.js';
import { citationsOf, defineCheck } from '../suites/check.js';
import { catalogue } from '../suites/index.js';
import type { SpecRevision } from '../model/spec.js';
import { ROOT, runCli, tempDir } from './helpers.js';

const bundled = specSource();

describe('keyword sentences of a page', () => {
  const page = [
    '---',
    'title: T',
    '---',
    'Intro without keywords. Servers MUST do one thing, e.g. this. Then more.',
    '',
    '## Rules',
    '',
    'Servers **MUST**:',
    '',
    '- Validate all inputs',
    '- Answer; clients SHOULD wait',
    '  - nested detail',
    '',
    '```json',
    '{ "a": "MUST not count" }',
    '```',
    '',
    '### Deeper',
    '',
    '| field | rule |',
    '|---|---|',
    '| x | MAY be empty |',
    '',
    'The server MAY send it:',
    '',
    '```json',
    '{}',
    '```',
  ].join('\n');
  const found = keywordSentences(page);

  it('splits sentences (abbreviations kept), puts the opening under the title, gives list items their lead-in keyword, skips code, reads table rows', () => {
    expect(found.map((s) => [s.section, s.level, s.text, s.lead ?? ''])).toEqual([
      ['T', 'MUST', 'Servers MUST do one thing, e.g. this.', ''],
      ['Rules', 'MUST', 'Validate all inputs', 'Servers MUST:'],
      ['Rules', 'SHOULD', 'Answer; clients SHOULD wait', 'Servers MUST:'],
      ['Deeper', 'MAY', 'x MAY be empty', ''],
      ['Deeper', 'MAY', 'The server MAY send it:', ''],
    ]);
    expect(found[3]!.sections).toEqual(['Rules', 'Deeper']);
  });

  it('finds sentences on every page in scope of both revisions', () => {
    for (const revision of Object.keys(COVERAGE_PAGES) as SpecRevision[]) {
      for (const p of COVERAGE_PAGES[revision]) {
        const text = pageText(bundled, revision, p);
        expect(text, `${revision}/${p}`).toBeDefined();
        expect(keywordSentences(text!).length, `${revision}/${p}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('who a sentence is addressed to', () => {
  it.each([
    ['Servers MUST declare the tools capability.', 'server'],
    ['Clients MUST treat cursors as opaque tokens.', 'client'],
    ['If the server returns an error, the client SHOULD retry.', 'client'],
    ['A server that does not support such clients MUST reject a request without the header.', 'server'],
    ['Clients and servers MUST use case-insensitive comparisons for header names.', 'server'],
    ['When the list changes, servers SHOULD send a notification to clients.', 'server'],
    ['Tool names SHOULD be unique within a server.', 'either'],
    ['Error codes MUST be integers.', 'either'],
    ['Servers MUST: Validate all tool inputs', 'server'],
    ['Non-conforming client Server MUST reject the request', 'server'],
  ])('%s → %s', (text, party) => {
    expect(partyOf(text)).toBe(party);
  });
});

describe('when a quote holds a sentence', () => {
  const sentence =
    'Servers SHOULD return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed).';
  it('a quote containing the sentence, or contained in it with a keyword, holds it', () => {
    expect(quoteCovers(`Before. ${sentence} After.`, sentence)).toBe(true);
    expect(quoteCovers('Servers **SHOULD** return tools in a deterministic order', sentence)).toBe(true);
  });
  it('shared words are no link: a quote sharing eight words, or a fragment without a keyword, does not', () => {
    expect(quoteCovers('the same ordering across requests when the underlying set changed', sentence)).toBe(false);
    expect(quoteCovers('Servers SHOULD return prompts in any order', sentence)).toBe(false);
    expect(quoteCovers('the same ordering across requests when', sentence)).toBe(false);
  });
});

describe('the coverage matrix', () => {
  const draft = coverage({ revision: 'draft', checks: catalogue });

  it('loads the reviewed exclusions: every entry gives a reason and matches a sentence of the bundled pages', () => {
    const all = loadExclusions();
    expect(all.length).toBeGreaterThan(0);
    const legacy = coverage({ revision: '2025-11-25', checks: catalogue });
    const stale = [...draft.unusedExclusions, ...legacy.unusedExclusions].map((e) => `${e.revision} ${e.page}: ${e.match ?? e.pattern}`);
    expect(stale, stale.join('\n')).toEqual([]);
  });

  it('gives every sentence one status, with its checks or its reason; totals and the figures add up', () => {
    const check = (r: CoverageReport) => {
      for (const p of r.pages) {
        expect(p.found, p.page).toBe(true);
        for (const s of p.sentences) {
          if (s.status === 'proven') expect(s.links.some((l) => l.provenBy)).toBe(true);
          else if (s.status === 'quoted') expect(s.links.length > 0 && s.links.every((l) => !l.provenBy)).toBe(true);
          else if (s.status === 'excluded') expect(s.exclusion?.reason).toBeTruthy();
          else if (s.status === 'may') expect(s.level).toBe('MAY');
          else expect(s.links).toEqual([]);
          if (s.level === 'MAY') expect(['may', 'excluded']).toContain(s.status);
        }
        expect(p.proven + p.quoted + p.excluded + p.uncovered + p.may).toBe(p.sentences.length);
      }
      const t = r.totals;
      expect(t.proven + t.quoted + t.excluded + t.uncovered + t.may).toBe(t.sentences);
      expect(t.requirements).toBe(t.proven + t.quoted + t.uncovered);
      expect(r.proven).toBe(Math.round((t.proven / t.requirements) * 1000) / 10);
      expect(r.quoted).toBe(Math.round(((t.proven + t.quoted) / t.requirements) * 1000) / 10);
      expect(r.unlinked, r.unlinked.join('\n')).toEqual([]);
    };
    check(draft);
    check(coverage({ revision: '2025-11-25', checks: catalogue }));
  });

  it('a sentence is proven only by a declared defect of its own citation, alone in its quote', () => {
    const sentences = keywordSentences(pageText(bundled, 'draft', 'server/tools')!);
    const order = sentences.find((s) => s.text.startsWith('Servers SHOULD return tools in a deterministic order'))!;
    const unique = sentences.find((s) => s.text.startsWith('Tool names SHOULD be unique within a server'))!;
    const probe = defineCheck({
      id: 'probe/order',
      title: 'probe',
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
      quote: order.text,
      parts: { both: { level: 'SHOULD', spec: { revision: 'draft', page: 'server/tools', section: 'Tool Names' }, quote: unique.text } },
      run: async () => {},
    });
    const statusOf = (breaks: string[], text: string) =>
      coverage({ revision: 'draft', checks: [probe], breaks })
        .pages.find((p) => p.page === 'server/tools')!
        .sentences.find((s) => s.text === text)!;
    expect(statusOf([], order.text)).toMatchObject({ status: 'quoted', checks: ['probe/order'] });
    expect(statusOf(['probe/order'], order.text)).toMatchObject({
      status: 'proven',
      links: [{ check: 'probe/order', provenBy: 'probe/order' }],
    });
    // The check's own defect proves its own citation, not its part's.
    expect(statusOf(['probe/order'], unique.text).status).toBe('quoted');
    expect(statusOf(['probe/order#both'], unique.text).status).toBe('proven');
    // A quote joining two requirements proves neither: which one the defect broke is not declared.
    const other = sentences.find((s) => s.section === order.section && s !== order && s.level !== 'MAY')!;
    const joined = defineCheck({ ...probe, id: 'probe/joined', parts: undefined, quote: `${other.text} … ${order.text}` });
    const both = coverage({ revision: 'draft', checks: [joined], breaks: ['probe/joined'] }).pages.find((p) => p.page === 'server/tools')!;
    expect(both.sentences.filter((s) => s.checks.includes('probe/joined')).map((s) => s.status)).toEqual(['quoted', 'quoted']);
  });

  it('links identical sentences of one section to the citation whose context they stand in', () => {
    const index = coverage({ revision: 'draft', checks: catalogue }).pages.find((p) => p.page === 'basic/index')!;
    const twice = index.sentences.filter((s) => s.text === 'On HTTP, the response status MUST be 400 Bad Request.');
    expect(twice).toHaveLength(2);
    expect(twice[0]!.checks).toEqual(['meta/required-fields']);
    expect(twice[1]!.checks).not.toContain('meta/required-fields');
    expect(twice[1]!.checks).toContain('meta/missing-capability');
  });

  it('counts MAY sentences apart: never a requirement of the figure', () => {
    const mays = draft.pages.flatMap((p) => p.sentences).filter((s) => s.status === 'may');
    expect(mays.length).toBe(draft.totals.may);
    expect(mays.every((s) => s.level === 'MAY')).toBe(true);
    expect(draft.totals.requirements).toBe(draft.totals.sentences - draft.totals.excluded - draft.totals.may);
  });

  it('a sentence is linked to exactly the checks whose quotes hold it; client rules are excluded by rule', () => {
    const text = keywordSentences(pageText(bundled, 'draft', 'server/tools')!).find((s) =>
      s.text.startsWith('Servers SHOULD return tools in a deterministic order'),
    )!;
    const probe = defineCheck({
      id: 'probe/order',
      title: 'probe',
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
      quote: text.text,
      run: async () => {},
    });
    const only = coverage({ revision: 'draft', checks: [probe], breaks: [] });
    const tools = only.pages.find((p) => p.page === 'server/tools')!;
    expect(tools.sentences.filter((s) => s.links.length).map((s) => [s.text, s.checks])).toEqual([[text.text, ['probe/order']]]);
    const client = tools.sentences.find((s) => s.text.startsWith('Clients SHOULD log a warning when rejecting a tool definition'))!;
    expect(client.status).toBe('excluded');
    expect(client.exclusion).toMatchObject({ kind: 'client', source: 'rule' });
  });

  it('counts a check as covering only sentences of its own cited section', () => {
    const probe = defineCheck({
      id: 'probe/elsewhere',
      title: 'probe',
      level: 'SHOULD',
      spec: { revision: 'draft', page: 'server/tools', section: 'Error Handling' },
      quote: 'Servers SHOULD return tools in a deterministic order',
      run: async () => {},
    });
    const tools = coverage({ revision: 'draft', checks: [probe], breaks: [] }).pages.find((p) => p.page === 'server/tools')!;
    expect(tools.proven + tools.quoted).toBe(0);
  });

  it('`coverage` prints the matrix per page with the figure; --json and --revision work', async () => {
    const r = await runCli(['coverage']);
    expect(r.code, r.stderr).toBe(0);
    for (const page of COVERAGE_PAGES.draft) expect(r.stdout).toContain(page);
    expect(r.stdout).toContain(`total`);
    expect(r.stdout).toContain(`Proven = proven / (proven + quoted + uncovered) = ${draft.proven.toFixed(1)}%`);
    const json = await runCli(['coverage', '--json', '--revision', '2025-11-25']);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as CoverageReport;
    expect(parsed.revision).toBe('2025-11-25');
    expect(typeof parsed.proven).toBe('number');
    expect(parsed.pages.map((p) => p.page)).toEqual([...COVERAGE_PAGES['2025-11-25']]);
    expect((await runCli(['coverage', '--revision', '2099-01-01'])).code).toBe(2);
  });
});

/** A spec working copy laid out as the spec repository is: docs/specification/<revision>/ and schema/<revision>/. */
function workingCopy(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'docs'), { recursive: true });
  cpSync(join(ROOT, 'spec'), join(dir, 'docs', 'specification'), { recursive: true });
  cpSync(join(ROOT, 'schemas'), join(dir, 'schema'), { recursive: true });
  return dir;
}

describe('a spec working copy (--spec-dir)', () => {
  const staleNow = new Set(specDrift({ checks: catalogue, source: bundled }).staleQuotes.map((q) => q.where));

  it('an unchanged copy reports exactly what the bundled pages report', () => {
    const drift = specDrift({ checks: catalogue, source: specSource(workingCopy()) });
    expect(new Set(drift.staleQuotes.map((q) => q.where))).toEqual(staleNow);
    expect(drift.newSentences).toEqual([]);
  });

  it('a folder without spec pages is a bad argument (exit 2), not a spec where every quote is gone', async () => {
    const r = await runCli(['quotes', '--spec-dir', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no docs/specification/draft/');
  });

  it('an edited quoted sentence names its check; a new keyword sentence is listed as uncovered', async () => {
    // A citation whose quote stands verbatim today, on a page in scope.
    const target = catalogue
      .flatMap((c) => citationsOf(c).map((x) => ({ check: c, ...x })))
      .find(({ citation }) => citation.spec.page !== 'schema' && !findQuote(bundled, citation.spec, citation.quote));
    expect(target, 'no check quotes its page verbatim yet').toBeDefined();
    const { spec, quote } = target!.citation;
    const dir = workingCopy();
    const file = [
      join(dir, 'docs/specification', spec.revision, `${spec.page}.mdx`),
      join(dir, 'docs/specification', spec.revision, spec.page, 'index.mdx'),
    ].find((f) => {
      try {
        return readFileSync(f, 'utf8').length > 0;
      } catch {
        return false;
      }
    })!;
    const raw = readFileSync(file, 'utf8');
    // Edit one word of the quote everywhere on the page (the word as the markdown spells it).
    const word = plain(quote.split(QUOTE_GAP)[0]!)
      .split(/[^A-Za-z]+/)
      .filter((w) => w.length >= 6 && raw.includes(w))
      .sort((a, b) => b.length - a.length)[0]!;
    expect(word).toBeTruthy();
    const added = 'Servers MUST frobnicate every widget before answering a request.';
    const edited = raw.replaceAll(word, `${word}zz`).replace(/\n## /, `\n${added}\n\n## `);
    writeFileSync(file, edited);

    const drift = specDrift({ checks: catalogue, source: specSource(dir) });
    const named = drift.staleQuotes.filter((q) => !staleNow.has(q.where));
    expect(named.map((q) => q.check)).toContain(target!.check.id);
    expect(named.every((q) => q.page === spec.page && q.revision === spec.revision)).toBe(true);
    expect(drift.newSentences.map((s) => s.text)).toContain(added);

    const cli = await runCli(['quotes', '--spec-dir', dir]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(target!.where);
    expect(cli.stdout).toContain(added);
    const cov = await runCli(['coverage', '--spec-dir', dir, '--revision', spec.revision]);
    expect(cov.code, cov.stderr).toBe(0);
    expect(cov.stdout).toContain(target!.where);
  });
});

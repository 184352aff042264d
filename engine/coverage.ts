/**
 * The coverage matrix: every sentence with an RFC 2119 keyword on the pages
 * the suite enforces, who it is addressed to, and what answers for it: the
 * checks that quote it, or an exclusion with its reason, or nothing
 * (uncovered). Also the spec author's view of a working copy of the spec:
 * the check quotes it no longer holds, and the keyword sentences it adds that
 * no check covers.
 *
 * The rules, in order (the first that applies decides):
 * 1. covered: a citation of a check (its own, a part's, a legacy one; see
 *    `citationsOf`) on the same revision and page, whose section is the
 *    sentence's section or one enclosing it, has a quote part (quotes join
 *    non-adjacent sentences with ' … ') that contains the sentence, is
 *    contained in it and carries an RFC 2119 keyword, or shares a run of
 *    OVERLAP_WORDS consecutive words with it (case and markdown ignored);
 * 2. excluded, client: every keyword of the sentence is addressed to a client
 *    (the nearest party named before the keyword is the client, the host or
 *    the application); or an entry of the exclusions file says so;
 * 3. excluded, by the exclusions file (coverage/exclusions.yaml): an entry on
 *    the sentence's revision and page (and section, when it names one) whose
 *    `match` the sentence contains or whose `pattern` it matches;
 * 4. excluded, permission: the sentence's strongest keyword is MAY/OPTIONAL
 *    (a choice the spec leaves to the server: nothing a check can fail);
 * 5. uncovered.
 * The figure is covered / (covered + uncovered): the share of server-side,
 * observable requirements that a check enforces.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../harness/paths.js';
import { citationsOf, type Check } from '../suites/check.js';
import { KEYWORDS, strongestLevel, type SpecRevision } from '../model/spec.js';
import { findQuote, keywordSentences, pageText, plain, QUOTE_GAP, specSource, type SpecSentence, type SpecSource } from './spec-pages.js';

/** The pages whose sentences the matrix counts, per revision. */
export const COVERAGE_PAGES: Record<SpecRevision, readonly string[]> = {
  draft: [
    'server/discover',
    'server/tools',
    'server/prompts',
    'server/resources',
    'server/utilities/pagination',
    'server/utilities/caching',
    'server/utilities/completion',
    'server/utilities/logging',
    'basic/index',
    'basic/versioning',
    'basic/patterns/mrtr',
    'basic/patterns/subscriptions',
    'basic/patterns/cancellation',
    'basic/patterns/progress',
    'basic/transports/index',
    'basic/transports/stdio',
    'basic/transports/streamable-http',
  ],
  '2025-11-25': [
    'server/tools',
    'server/prompts',
    'server/resources',
    'server/utilities/pagination',
    'server/utilities/completion',
    'server/utilities/logging',
    'client/elicitation',
    'basic/index',
    'basic/lifecycle',
    'basic/transports',
    'basic/utilities/cancellation',
    'basic/utilities/ping',
    'basic/utilities/progress',
    'basic/utilities/tasks',
  ],
};

/** Consecutive words a quote and a sentence must share for the quote to cover it (when neither contains the other). */
export const OVERLAP_WORDS = 8;

/** The reviewed exclusions file, at the package root beside spec/. */
export const EXCLUSIONS_FILE = join(packageRoot(), 'coverage', 'exclusions.yaml');

/**
 * client: addressed to the client (or to whoever sends requests, which in the
 * modern era is the client); unobservable: a client cannot see whether the
 * server keeps it (the reason says why); restated: repeats a rule whose home
 * is another sentence, counted there; out-of-scope: addressed to
 * intermediaries or to custom transports, or rests on the authorization
 * spec, none of which the suite tests; permission: a MAY (rule 4, never in
 * the file).
 */
export type ExclusionKind = 'client' | 'unobservable' | 'restated' | 'out-of-scope' | 'permission';

/** One entry of the exclusions file. */
export interface Exclusion {
  revision: SpecRevision;
  /** A page of COVERAGE_PAGES, or `*` for every page of the revision. */
  page: string;
  /** Only sentences under this heading (or a heading below it). */
  section?: string;
  /** The sentence contains this text (compared as `plain` text, case ignored). */
  match?: string;
  /** The sentence (its lead-in included) matches this regular expression. */
  pattern?: string;
  kind: ExclusionKind;
  reason: string;
}

export type Party = 'server' | 'client' | 'either';
export type Status = 'covered' | 'excluded' | 'uncovered';

export interface SentenceCoverage extends SpecSentence {
  revision: SpecRevision;
  page: string;
  /** Who the sentence's keywords are addressed to, as the words before them name it. */
  party: Party;
  status: Status;
  /** Covered: the ids of the checks that quote it. */
  checks: string[];
  /** Excluded: why. */
  exclusion?: { kind: ExclusionKind; reason: string; source: 'rule' | 'file' };
}

export interface PageCoverage {
  revision: SpecRevision;
  page: string;
  /** False when the page is missing from the spec source. */
  found: boolean;
  covered: number;
  excluded: number;
  uncovered: number;
  sentences: SentenceCoverage[];
}

export interface CoverageTotals {
  sentences: number;
  covered: number;
  excluded: number;
  uncovered: number;
  /** covered / (covered + uncovered), in percent, one decimal. */
  percent: number;
}

export interface CoverageReport {
  revision: SpecRevision;
  pages: PageCoverage[];
  totals: CoverageTotals;
  /** Exclusion entries of this revision that matched no sentence (stale: review them). */
  unusedExclusions: Exclusion[];
}

const KINDS: readonly ExclusionKind[] = ['client', 'unobservable', 'restated', 'out-of-scope'];

/** Reads and validates the exclusions file. */
export function loadExclusions(path = EXCLUSIONS_FILE): Exclusion[] {
  if (!existsSync(path)) throw new Error(`no exclusions file at ${path}`);
  const doc = parseYaml(readFileSync(path, 'utf8')) as unknown;
  const out: Exclusion[] = [];
  const where = (rev: string, page: string, i: number) => `${path}: ${rev} ${page} entry ${i + 1}`;
  if (!doc || typeof doc !== 'object') throw new Error(`${path}: expected revisions at the top level`);
  for (const [revision, pages] of Object.entries(doc as Record<string, unknown>)) {
    if (!(revision in COVERAGE_PAGES)) throw new Error(`${path}: unknown revision ${revision}`);
    for (const [page, entries] of Object.entries((pages ?? {}) as Record<string, unknown>)) {
      if (!Array.isArray(entries)) throw new Error(`${path}: ${revision} ${page}: expected a list of entries`);
      entries.forEach((raw: Record<string, unknown>, i) => {
        const e = { revision: revision as SpecRevision, page, ...raw } as Exclusion;
        if (page !== '*' && !COVERAGE_PAGES[revision as SpecRevision].includes(page))
          throw new Error(`${where(revision, page, i)}: ${page} is not a page in scope`);
        if (!KINDS.includes(e.kind)) throw new Error(`${where(revision, page, i)}: kind must be one of ${KINDS.join(', ')}`);
        if (typeof e.reason !== 'string' || !e.reason.trim())
          throw new Error(`${where(revision, page, i)}: every exclusion gives its reason`);
        if (!e.match === !e.pattern) throw new Error(`${where(revision, page, i)}: give exactly one of match or pattern`);
        if (e.pattern) new RegExp(e.pattern);
        out.push(e);
      });
    }
  }
  return out;
}

/** Text compared for coverage: plain, lower case. */
function norm(text: string): string {
  return plain(text).toLowerCase();
}

function words(text: string): string[] {
  return norm(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

function runs(text: string, n: number): string[] {
  const w = words(text);
  const out: string[] = [];
  for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n).join(' '));
  return out;
}

/** Whether a quote part covers a sentence (rule 1 above). */
export function quoteCovers(part: string, sentence: string): boolean {
  const q = norm(part);
  const s = norm(sentence);
  if (!q || !s) return false;
  if (q.includes(s)) return true;
  // A fragment of the sentence covers it when it carries a keyword (the quote test demands one of every quote anyway).
  if (s.includes(q)) return strongestLevel(plain(part)) !== undefined;
  const qRuns = new Set(runs(part, OVERLAP_WORDS));
  return runs(sentence, OVERLAP_WORDS).some((r) => qRuns.has(r));
}

/** Any RFC 2119 keyword (model/spec.ts lists them, longest first). */
const KEYWORD = new RegExp(KEYWORDS.map(([re]) => re.source).join('|'), 'g');
const PARTY = /\b(?:(servers?)|(clients?|hosts?|applications?))\b(?!-)/gi;

function firstParty(text: string): Party | undefined {
  const m = PARTY.exec(text);
  PARTY.lastIndex = 0;
  return m ? (m[1] ? 'server' : 'client') : undefined;
}

/**
 * Who a sentence's keywords are addressed to. Per keyword, in order: the
 * party named right before it ("Server MUST", "the client MUST"); both, when the clause before
 * it names both ("Clients and servers MUST", "Both parties SHOULD"); the
 * first party named in that clause ("If the server fails, the client MUST":
 * the client; "A server that does not support such clients MUST": the
 * server); the previous keyword's party; the first party named anywhere
 * before it; else either. A sentence is a client rule when every keyword is
 * the client's alone.
 */
export function partyOf(text: string): Party {
  const parties: Party[] = [];
  let from = 0;
  let previous: Party | undefined;
  for (const k of text.matchAll(KEYWORD)) {
    const before = text.slice(0, k.index);
    const clause =
      before
        .slice(from)
        .split(/[,;:—–)]/)
        .pop() ?? '';
    const party = clauseParty(clause) ?? previous ?? firstParty(before) ?? 'either';
    parties.push(party);
    previous = party;
    from = k.index! + k[0].length;
  }
  if (parties.length && parties.every((p) => p === 'client')) return 'client';
  return parties.includes('server') ? 'server' : 'either';
}

const ADJACENT =
  /(?:\b(?:[Tt]he|[Aa]n?)\s+(?:(servers?)|clients?|hosts?|applications?)|\b(?:(Servers?)|Clients?|Hosts?|Applications?))\s*$/;
const BOTH = /\b(?:clients? (?:and|or) servers?|servers? (?:and|or) clients?|both parties)\b/i;

/** The party a clause addresses: named right before the keyword, both, or the first it names. */
function clauseParty(clause: string): Party | undefined {
  const adjacent = ADJACENT.exec(clause);
  if (adjacent) return adjacent[1] || adjacent[2] ? 'server' : 'client';
  if (BOTH.test(clause)) return 'server';
  return firstParty(clause);
}

function sectionIn(sentence: SpecSentence, section: string): boolean {
  const want = plain(section).toLowerCase();
  return sentence.sections.some((s) => s.toLowerCase() === want);
}

function exclusionMatches(e: Exclusion, s: SpecSentence): boolean {
  if (e.section && !sectionIn(s, e.section)) return false;
  if (e.match) return norm(s.text).includes(norm(e.match));
  return new RegExp(e.pattern!).test(s.lead ? `${s.lead} ${s.text}` : s.text);
}

interface PageCitation {
  check: string;
  section: string;
  parts: string[];
}

function citationsByPage(checks: readonly Check[]): Map<string, PageCitation[]> {
  const out = new Map<string, PageCitation[]>();
  for (const check of checks) {
    for (const { citation } of citationsOf(check)) {
      const key = `${citation.spec.revision}/${citation.spec.page}`;
      const list = out.get(key) ?? [];
      list.push({ check: check.id, section: citation.spec.section, parts: citation.quote.split(QUOTE_GAP) });
      out.set(key, list);
    }
  }
  return out;
}

function judge(s: SentenceCoverage, cites: PageCitation[], exclusions: Exclusion[], used: Set<Exclusion>): void {
  const by = [...new Set(cites.filter((c) => sectionIn(s, c.section) && c.parts.some((p) => quoteCovers(p, s.text))).map((c) => c.check))];
  const entry = exclusions.find((e) => exclusionMatches(e, s));
  if (entry) used.add(entry);
  if (by.length) {
    s.status = 'covered';
    s.checks = by;
  } else if (s.party === 'client') {
    s.status = 'excluded';
    s.exclusion = { kind: 'client', reason: 'addressed to the client: never judged against a server', source: 'rule' };
  } else if (entry) {
    s.status = 'excluded';
    s.exclusion = { kind: entry.kind, reason: entry.reason, source: 'file' };
  } else if (s.level === 'MAY') {
    s.status = 'excluded';
    s.exclusion = { kind: 'permission', reason: 'MAY: a choice left to the server, nothing a check can fail', source: 'rule' };
  }
}

export interface CoverageOptions {
  revision: SpecRevision;
  checks: readonly Check[];
  source?: SpecSource;
  exclusions?: Exclusion[];
}

/** The coverage matrix of one revision's pages. */
export function coverage(opts: CoverageOptions): CoverageReport {
  const source = opts.source ?? specSource();
  const exclusions = (opts.exclusions ?? loadExclusions()).filter((e) => e.revision === opts.revision);
  const cites = citationsByPage(opts.checks);
  const used = new Set<Exclusion>();
  const pages: PageCoverage[] = COVERAGE_PAGES[opts.revision].map((page) => {
    const text = pageText(source, opts.revision, page);
    const sentences: SentenceCoverage[] = (text === undefined ? [] : keywordSentences(text)).map((s) => ({
      ...s,
      revision: opts.revision,
      page,
      party: partyOf(s.lead ? `${s.lead} ${s.text}` : s.text),
      status: 'uncovered',
      checks: [],
    }));
    const pageExclusions = exclusions.filter((e) => e.page === page || e.page === '*');
    for (const s of sentences) judge(s, cites.get(`${opts.revision}/${page}`) ?? [], pageExclusions, used);
    const count = (st: Status) => sentences.filter((s) => s.status === st).length;
    return {
      revision: opts.revision,
      page,
      found: text !== undefined,
      covered: count('covered'),
      excluded: count('excluded'),
      uncovered: count('uncovered'),
      sentences,
    };
  });
  return { revision: opts.revision, pages, totals: totalsOf(pages), unusedExclusions: exclusions.filter((e) => !used.has(e)) };
}

export function totalsOf(pages: PageCoverage[]): CoverageTotals {
  const sum = (k: 'covered' | 'excluded' | 'uncovered') => pages.reduce((n, p) => n + p[k], 0);
  const covered = sum('covered');
  const uncovered = sum('uncovered');
  const judged = covered + uncovered;
  return {
    sentences: pages.reduce((n, p) => n + p.sentences.length, 0),
    covered,
    excluded: sum('excluded'),
    uncovered,
    percent: judged ? Math.round((covered / judged) * 1000) / 10 : 100,
  };
}

/** A citation of a check that a spec source no longer holds. */
export interface StaleQuote {
  check: string;
  /** `id`, `id part name`, `id (legacy)`. */
  where: string;
  revision: SpecRevision;
  page: string;
  section: string;
  problem: string;
}

/** What a working copy of the spec changes for the suite. */
export interface SpecDrift {
  /** Citations whose quote is not found verbatim in their section of the working copy. */
  staleQuotes: StaleQuote[];
  /** Keyword sentences of the working copy that the bundled pages do not have, and that no check covers or exclusion answers. */
  newSentences: SentenceCoverage[];
}

/** Compares a spec working copy with the checks (their quotes) and with the bundled pages (new uncovered sentences). */
export function specDrift(opts: {
  checks: readonly Check[];
  source: SpecSource;
  bundled?: SpecSource;
  exclusions?: Exclusion[];
}): SpecDrift {
  const staleQuotes: StaleQuote[] = [];
  for (const check of opts.checks) {
    for (const { where, citation } of citationsOf(check)) {
      const p = findQuote(opts.source, citation.spec, citation.quote);
      if (p) staleQuotes.push({ check: check.id, where, ...citation.spec, problem: p.detail });
    }
  }
  const bundled = opts.bundled ?? specSource();
  const newSentences: SentenceCoverage[] = [];
  for (const revision of Object.keys(COVERAGE_PAGES) as SpecRevision[]) {
    const report = coverage({ revision, checks: opts.checks, source: opts.source, exclusions: opts.exclusions });
    for (const page of report.pages) {
      const before = pageText(bundled, revision, page.page);
      const known = new Set((before === undefined ? [] : keywordSentences(before)).map((s) => norm(s.text)));
      newSentences.push(...page.sentences.filter((s) => s.status === 'uncovered' && !known.has(norm(s.text))));
    }
  }
  return { staleQuotes, newSentences };
}

/**
 * The coverage matrix: every sentence with an RFC 2119 keyword on the pages
 * the suite enforces, who it is addressed to, and what answers for it: the
 * checks that declare it (and whether a reference defect proves them), or an
 * exclusion with its reason, or nothing (uncovered). Also the spec author's
 * view of a working copy of the spec: the check quotes it no longer holds,
 * and the keyword sentences it adds that no check covers.
 *
 * Links are by declaration: a citation (a check's own, a part's, a legacy
 * one; see `citationsOf`) names its revision, page, section and words, and
 * is linked to the sentences its quote holds (`quoteCovers`: a quote part
 * contains the sentence, or is a fragment of it that carries a keyword),
 * under the cited section. Where identical sentences stand in several
 * sections under it, the one whose own heading is the cited one (else the
 * first) is linked; no words are matched across sentences.
 *
 * A citation is proven when the reference server declares a defect for it
 * (`--list-breaks`: `<check>` for the check's own citation, `<check>#<part>`
 * for a part's) that the kill matrix runs in the citation's era; the
 * kill-matrix tests assert that the defect is caught by that check alone,
 * with a finding that quotes the citation's words at its level
 * (test/helpers.ts expectQuoted). A proven citation proves its sentence only
 * when it holds one requirement sentence: a quote joining several proves
 * none of them (which one the defect broke is not declared).
 *
 * The status of a sentence, in order (the first that applies decides):
 * 1. may: its strongest keyword is MAY/OPTIONAL, and it is not a client
 *    rule or excluded by the file: a permission, reported apart (a check may
 *    exercise it, never fail it; never in the figure);
 * 2. proven: a proven citation holds it (and it alone);
 * 3. quoted: a citation holds it, none proves it;
 * 4. excluded, client: every keyword is addressed to a client (the nearest
 *    party named before the keyword is the client, the host or the
 *    application); or an entry of the exclusions file says so;
 * 5. excluded, by the exclusions file (coverage/exclusions.yaml): an entry on
 *    the sentence's revision and page (and section, when it names one) whose
 *    `match` the sentence contains or whose `pattern` it matches;
 * 6. uncovered.
 * The figure `proven` is proven / (proven + quoted + uncovered): the share of
 * server-side, observable requirements that a defect of the reference server
 * shows a check failing. `quoted` is (proven + quoted) / the same.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../harness/paths.js';
import { citationsOf, type Check, type Rule } from '../suites/check.js';
import { ERA_OF_REVISION, KEYWORDS, strongestLevel, type SpecRevision } from '../model/spec.js';
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
    'basic/patterns/index',
    'basic/patterns/mrtr',
    'basic/patterns/subscriptions',
    'basic/patterns/cancellation',
    'basic/patterns/progress',
    'basic/transports/index',
    'basic/transports/stdio',
    'basic/transports/streamable-http',
    'basic/authorization/index',
    'basic/authorization/authorization-server-discovery',
    'basic/authorization/client-registration',
    'basic/authorization/security-considerations',
    'client/elicitation',
    'client/sampling',
    'client/roots',
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
    'basic/authorization',
    'basic/utilities/cancellation',
    'basic/utilities/ping',
    'basic/utilities/progress',
    'basic/utilities/tasks',
  ],
};

/** The reviewed exclusions file, at the package root beside spec/. */
export const EXCLUSIONS_FILE = join(packageRoot(), 'coverage', 'exclusions.yaml');

/**
 * client: addressed to the client (or to whoever sends requests, which in the
 * modern era is the client); unobservable: a client cannot see whether the
 * server keeps it (the reason says why); restated: repeats a rule whose home
 * is another sentence, counted there; out-of-scope: addressed to
 * intermediaries, to custom transports or to the authorization server (the
 * authorization pages' third party, which the suite plays itself), none of
 * which the suite tests; permission: a MAY (rule 4, never in the file).
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
export type Status = 'proven' | 'quoted' | 'excluded' | 'uncovered' | 'may';

/** A citation linked to a sentence: which check (and part) declares it, and whether a reference defect proves it. */
export interface SentenceLink {
  check: string;
  /** The part's name, for a part's citation. */
  part?: string;
  /** A reference defect of the kill matrix breaks this citation (its id), and the citation holds this sentence alone. */
  provenBy?: string;
}

export interface SentenceCoverage extends SpecSentence {
  revision: SpecRevision;
  page: string;
  /** Who the sentence's keywords are addressed to, as the words before them name it. */
  party: Party;
  status: Status;
  /** The ids of the checks whose citations hold it (proven, quoted, or a MAY they exercise). */
  checks: string[];
  /** Every citation that holds it. */
  links: SentenceLink[];
  /** Excluded: why. */
  exclusion?: { kind: ExclusionKind; reason: string; source: 'rule' | 'file' };
}

/** Sentence counts by status (a page's or the revision's). */
export interface StatusCounts {
  proven: number;
  quoted: number;
  excluded: number;
  uncovered: number;
  /** MAY sentences (permissions), counted apart from the requirements. */
  may: number;
}

export interface PageCoverage extends StatusCounts {
  revision: SpecRevision;
  page: string;
  /** False when the page is missing from the spec source. */
  found: boolean;
  sentences: SentenceCoverage[];
}

export interface CoverageTotals extends StatusCounts {
  sentences: number;
  /** Requirements judged in the figures: proven + quoted + uncovered. */
  requirements: number;
  /** MAY sentences that a check's citation holds (exercised, never failed). */
  mayExercised: number;
}

export interface CoverageReport {
  revision: SpecRevision;
  /** The figure: proven / (proven + quoted + uncovered), in percent, one decimal. */
  proven: number;
  /** (proven + quoted) / (proven + quoted + uncovered): the share a check quotes, proven or not. */
  quoted: number;
  pages: PageCoverage[];
  totals: CoverageTotals;
  /** Exclusion entries of this revision that matched no sentence (stale: review them). */
  unusedExclusions: Exclusion[];
  /** Citations on this revision's pages in scope that hold no keyword sentence (their link is lost: review them). */
  unlinked: string[];
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

/** Whether a quote part holds a sentence: it contains it, or it is a fragment of it carrying a keyword. */
export function quoteCovers(part: string, sentence: string): boolean {
  const q = norm(part);
  const s = norm(sentence);
  if (!q || !s) return false;
  if (q.includes(s)) return true;
  // A fragment of the sentence holds it when it carries a keyword (the quote test demands one of every quote anyway).
  return s.includes(q) && strongestLevel(plain(part)) !== undefined;
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

/** One citation of a check, as the matrix links it. */
interface PageCitation {
  check: string;
  part?: string;
  /** `id`, `id part name`, `id (legacy)` (as citationsOf names it). */
  where: string;
  section: string;
  parts: string[];
  /** The reference defect that proves it, when the kill matrix runs one. */
  provenBy?: string;
}

/** The path to the reference server (its `--list-breaks` declares the kill matrix's defects). */
export const REFERENCE_SERVER = join(packageRoot(), 'fixtures', 'servers', 'reference', 'server.js');

/** The defect ids the reference server declares (`--list-breaks`), one per check or part variant. */
export function referenceBreaks(server = REFERENCE_SERVER): string[] {
  return execFileSync(process.execPath, [server, '--list-breaks'], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/**
 * The defect that proves a citation in the kill matrix, as the kill-matrix
 * tests run them: a check's own defect in each era the check applies to
 * (its draft citation in the modern matrix, its 2025-11-25 one in the legacy
 * matrix); a part's defect likewise, a part of the 2025-11-25 pages in the
 * legacy matrix only.
 */
function proofOf(check: Check, part: string | undefined, revision: SpecRevision, breaks: ReadonlySet<string>): string | undefined {
  const id = part ? `${check.id}#${part}` : check.id;
  if (!breaks.has(id)) return undefined;
  const rule: Rule = part ? check.parts![part]! : check;
  const era = ERA_OF_REVISION[revision];
  if (!check.revisions.includes(era)) return undefined;
  if (era === 'modern') return rule.spec.revision === 'draft' ? id : undefined;
  return rule.spec.revision === '2025-11-25' || rule.legacy ? id : undefined;
}

function citationsByPage(checks: readonly Check[], revision: SpecRevision, breaks: ReadonlySet<string>): Map<string, PageCitation[]> {
  const out = new Map<string, PageCitation[]>();
  for (const check of checks) {
    for (const { where, citation } of citationsOf(check)) {
      if (citation.spec.revision !== revision) continue;
      const part = /^\S+ part (\S+)/.exec(where)?.[1];
      const list = out.get(citation.spec.page) ?? [];
      list.push({
        check: check.id,
        ...(part ? { part } : {}),
        where,
        section: citation.spec.section,
        parts: citation.quote.split(QUOTE_GAP),
        provenBy: proofOf(check, part, revision, breaks),
      });
      out.set(citation.spec.page, list);
    }
  }
  return out;
}

/**
 * The sentences a citation holds, under its section, per quote part. Of
 * identical sentences (the same words twice, e.g. "On HTTP, the response
 * status MUST be 400 Bad Request."), the one next to another sentence the
 * same part holds (the part's own context), else the one whose own heading
 * is the cited section, else the first.
 */
function linkedSentences(c: PageCitation, sentences: SentenceCoverage[]): SentenceCoverage[] {
  const out = new Set<SentenceCoverage>();
  for (const part of c.parts) {
    const held = sentences.filter((s) => sectionIn(s, c.section) && quoteCovers(part, s.text));
    const byText = new Map<string, SentenceCoverage[]>();
    for (const s of held) byText.set(norm(s.text), [...(byText.get(norm(s.text)) ?? []), s]);
    const unique = new Set([...byText.values()].filter((same) => same.length === 1).map((same) => same[0]!));
    const nextToUnique = (s: SentenceCoverage) => {
      const i = sentences.indexOf(s);
      return unique.has(sentences[i - 1]!) || unique.has(sentences[i + 1]!);
    };
    const ownSection = (s: SentenceCoverage) => plain(s.section).toLowerCase() === plain(c.section).toLowerCase();
    for (const same of byText.values()) out.add(same.find(nextToUnique) ?? same.find(ownSection) ?? same[0]!);
  }
  return [...out];
}

/** Links every citation of the page to the sentences it holds; returns the citations that hold none. */
function link(sentences: SentenceCoverage[], cites: PageCitation[]): string[] {
  const unlinked: string[] = [];
  for (const c of cites) {
    const held = linkedSentences(c, sentences);
    if (held.length === 0) unlinked.push(c.where);
    // A proven citation proves its sentence only when it holds one requirement (MAY context aside).
    const alone = held.filter((s) => s.level !== 'MAY').length === 1;
    for (const s of held)
      s.links.push({ check: c.check, ...(c.part ? { part: c.part } : {}), ...(c.provenBy && alone ? { provenBy: c.provenBy } : {}) });
  }
  return unlinked;
}

function judge(s: SentenceCoverage, exclusions: Exclusion[], used: Set<Exclusion>): void {
  const entry = exclusions.find((e) => exclusionMatches(e, s));
  if (entry) used.add(entry);
  s.checks = [...new Set(s.links.map((l) => l.check))];
  if (s.level === 'MAY' && s.party !== 'client' && !(entry && !s.links.length)) s.status = 'may';
  else if (s.links.some((l) => l.provenBy)) s.status = 'proven';
  else if (s.links.length) s.status = 'quoted';
  else if (s.party === 'client') {
    s.status = 'excluded';
    s.exclusion = { kind: 'client', reason: 'addressed to the client: never judged against a server', source: 'rule' };
  } else if (entry) {
    s.status = 'excluded';
    s.exclusion = { kind: entry.kind, reason: entry.reason, source: 'file' };
  }
}

export interface CoverageOptions {
  revision: SpecRevision;
  checks: readonly Check[];
  source?: SpecSource;
  exclusions?: Exclusion[];
  /** The reference server's defect ids (default: its `--list-breaks`). */
  breaks?: readonly string[];
}

/** The coverage matrix of one revision's pages. */
export function coverage(opts: CoverageOptions): CoverageReport {
  const source = opts.source ?? specSource();
  const exclusions = (opts.exclusions ?? loadExclusions()).filter((e) => e.revision === opts.revision);
  const cites = citationsByPage(opts.checks, opts.revision, new Set(opts.breaks ?? referenceBreaks()));
  const used = new Set<Exclusion>();
  const unlinked: string[] = [];
  const pages: PageCoverage[] = COVERAGE_PAGES[opts.revision].map((page) => {
    const text = pageText(source, opts.revision, page);
    const sentences: SentenceCoverage[] = (text === undefined ? [] : keywordSentences(text)).map((s) => ({
      ...s,
      revision: opts.revision,
      page,
      party: partyOf(s.lead ? `${s.lead} ${s.text}` : s.text),
      status: 'uncovered',
      checks: [],
      links: [],
    }));
    unlinked.push(...link(sentences, cites.get(page) ?? []));
    const pageExclusions = exclusions.filter((e) => e.page === page || e.page === '*');
    for (const s of sentences) judge(s, pageExclusions, used);
    return { revision: opts.revision, page, found: text !== undefined, ...countsOf(sentences), sentences };
  });
  const totals = totalsOf(pages);
  const share = (n: number) => (totals.requirements ? Math.round((n / totals.requirements) * 1000) / 10 : 100);
  return {
    revision: opts.revision,
    proven: share(totals.proven),
    quoted: share(totals.proven + totals.quoted),
    pages,
    totals,
    unusedExclusions: exclusions.filter((e) => !used.has(e)),
    unlinked,
  };
}

function countsOf(sentences: SentenceCoverage[]): StatusCounts {
  const count = (st: Status) => sentences.filter((s) => s.status === st).length;
  return {
    proven: count('proven'),
    quoted: count('quoted'),
    excluded: count('excluded'),
    uncovered: count('uncovered'),
    may: count('may'),
  };
}

export function totalsOf(pages: PageCoverage[]): CoverageTotals {
  const sentences = pages.flatMap((p) => p.sentences);
  const counts = countsOf(sentences);
  return {
    sentences: sentences.length,
    ...counts,
    requirements: counts.proven + counts.quoted + counts.uncovered,
    mayExercised: sentences.filter((s) => s.status === 'may' && s.links.length > 0).length,
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

/**
 * Where a rule lives in the specification, and how strong its words are.
 * Ground layer: imports nothing of the project.
 */
import type { Era } from './wire.js';

/** Requirement level, as RFC 2119 words appear in the spec. */
export type Level = 'MUST' | 'SHOULD' | 'MAY';

/**
 * The spec revisions whose pages the suite carries (spec/): `draft` holds the
 * modern pages (2026-07-28 and the draft), `2025-11-25` the legacy revision.
 */
export type SpecRevision = 'draft' | '2025-11-25';

/** The era each carried revision's pages describe. */
export const ERA_OF_REVISION: Record<SpecRevision, Era> = { draft: 'modern', '2025-11-25': 'legacy' };

/** Where a requirement lives: a page section, or (page `schema`) a definition of the revision's schema. */
export interface SpecRef {
  revision: SpecRevision;
  /** Page path below the revision folder, e.g. `server/tools`; `schema` for the revision's schema.ts. */
  page: string;
  /** Section heading on that page, e.g. `Error Handling`; for `schema`, the definition's name. */
  section: string;
}

/**
 * The `page` of a rule that is the user's, not the spec's: a check judging
 * what the configuration file declares (its section is the file's key).
 */
export const CONFIG_PAGE = 'configuration file';

/** A cited rule: the place and the sentence(s) copied verbatim from it. */
export interface Citation {
  spec: SpecRef;
  /** One or more sentences copied verbatim from the section (emphasis, code ticks and links may be dropped). */
  quote: string;
}

/** RFC 2119 keywords, strongest first, with the level each gives a rule. */
export const KEYWORDS: ReadonlyArray<readonly [RegExp, Level]> = [
  [/\bMUST NOT\b/, 'MUST'],
  [/\bMUST\b/, 'MUST'],
  [/\bREQUIRED\b/, 'MUST'],
  [/\bSHALL NOT\b/, 'MUST'],
  [/\bSHALL\b/, 'MUST'],
  [/\bSHOULD NOT\b/, 'SHOULD'],
  [/\bSHOULD\b/, 'SHOULD'],
  [/\bRECOMMENDED\b/, 'SHOULD'],
  [/\bNOT RECOMMENDED\b/, 'SHOULD'],
  [/\bMAY\b/, 'MAY'],
  [/\bOPTIONAL\b/, 'MAY'],
];

const RANK: Record<Level, number> = { MUST: 3, SHOULD: 2, MAY: 1 };

/** The strongest RFC 2119 keyword in a text, as a level; undefined when it has none. */
export function strongestLevel(text: string): Level | undefined {
  let best: Level | undefined;
  for (const [re, level] of KEYWORDS) if (re.test(text) && (!best || RANK[level] > RANK[best])) best = level;
  return best;
}

/** True when `level` is no stronger than `limit`. */
export function levelAtMost(level: Level, limit: Level): boolean {
  return RANK[level] <= RANK[limit];
}

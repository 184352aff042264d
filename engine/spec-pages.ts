/**
 * The specification as data: the pages and schemas the package carries
 * (spec/, schemas/, unmodified, with the spec's LICENSE), or a working copy of
 * the spec named by --spec-dir. Finds a section of a page and tells whether a
 * quote stands in it verbatim, so every check's words can be proven to be the
 * spec's own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../harness/paths.js';
import type { SpecRef, SpecRevision } from '../model/spec.js';

/** Where the pages and schemas of each revision are read from. */
export interface SpecSource {
  /** The folder holding `<revision>/<page>.mdx`. */
  pages: string;
  /** The folder holding `<revision>/schema.ts`. */
  schemas: string;
}

/** The bundled copy, or a spec working copy (`docs/specification/<revision>/`, `schema/<revision>/`). */
export function specSource(specDir?: string): SpecSource {
  if (!specDir) return { pages: join(packageRoot(), 'spec'), schemas: join(packageRoot(), 'schemas') };
  const docs = join(specDir, 'docs', 'specification');
  return {
    pages: existsSync(docs) ? docs : specDir,
    schemas: existsSync(join(specDir, 'schema')) ? join(specDir, 'schema') : join(specDir, 'schemas'),
  };
}

/** One section of a page: its heading and its text up to the next heading of the same or a higher level. */
export interface Section {
  heading: string;
  depth: number;
  /** The section's own text, subsections included (raw markdown). */
  text: string;
}

const cache = new Map<string, string | undefined>();

function read(path: string): string | undefined {
  if (!cache.has(path)) cache.set(path, existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  return cache.get(path);
}

/** The raw text of a page (`server/tools` → `server/tools.mdx` or `server/tools/index.mdx`), or undefined. */
export function pageText(source: SpecSource, revision: SpecRevision, page: string): string | undefined {
  if (page === 'schema') return read(join(source.schemas, revision, 'schema.ts'));
  return read(join(source.pages, revision, `${page}.mdx`)) ?? read(join(source.pages, revision, page, 'index.mdx'));
}

/** The page's sections, in order (markdown `#` headings outside code fences). */
export function sectionsOf(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const heads: Array<{ line: number; depth: number; heading: string }> = [];
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) return;
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) heads.push({ line: i, depth: m[1]!.length, heading: plain(m[2]!) });
  });
  return heads.map((h, k) => {
    let end = lines.length;
    for (const next of heads.slice(k + 1)) {
      if (next.depth <= h.depth) {
        end = next.line;
        break;
      }
    }
    return { heading: h.heading, depth: h.depth, text: lines.slice(h.line + 1, end).join('\n') };
  });
}

/** The page's title (front matter `title:`), if it has one. */
function titleOf(markdown: string): string | undefined {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  return front ? /^title:\s*(.+?)\s*$/m.exec(front[1]!)?.[1]?.replace(/^["']|["']$/g, '') : undefined;
}

/** The page's text before its first heading (front matter excluded). */
function openingOf(markdown: string): string {
  const body = markdown.replace(/^---\n[\s\S]*?\n---\n/, '');
  const lines = body.split('\n');
  let fence = false;
  const out: string[] = [];
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (!fence && /^#{1,6}\s/.test(line)) break;
    out.push(line);
  }
  return out.join('\n');
}

/** A schema definition's text: from `export interface|type|const <Name>` to the next top-level export. */
function schemaDefinition(ts: string, name: string): string | undefined {
  const start = new RegExp(`^export (?:interface|type|const|enum) ${name.replace(/[$]/g, '\\$')}\\b`, 'm').exec(ts);
  if (!start) return undefined;
  // Include the JSDoc block right above the definition.
  const before = ts.lastIndexOf('/**', start.index);
  const docStart = before >= 0 && !ts.slice(before, start.index).includes('*/\n\n') && ts.slice(before, start.index).trimEnd().endsWith('*/') ? before : start.index;
  const rest = ts.slice(start.index + 1);
  const next = /^(?:\/\*\*|export )/m.exec(rest.slice(rest.indexOf('\n')));
  const end = next ? start.index + 1 + rest.indexOf('\n') + next.index : ts.length;
  return ts.slice(docStart, end);
}

/**
 * Text as a reader sees it, for comparing words: markdown emphasis, code
 * ticks, links, HTML/MDX tags, comment stars and entities dropped; list
 * markers and table bars dropped; whitespace collapsed.
 */
export function plain(text: string): string {
  return text
    .replace(/^---\n[\s\S]*?\n---\n/, '')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    // Reference-style links ([text][label]) read as their text; their definitions ([label]: url) not at all.
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' ')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/&mdash;/g, '—')
    .replace(/&ndash;/g, '–')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/^\s*\/?\*+\/?/gm, ' ')
    .replace(/^\s*(?:[-+]|\d+\.)\s+/gm, ' ')
    .replace(/^\s*>\s?/gm, ' ')
    .replace(/\|/g, ' ')
    .replace(/\*\*|__|`/g, '')
    .replace(/(^|[\s(])\*(\S[^*]*?)\*(?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/(^|[\s(])_(\S[^_]*?)_(?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Separator between non-adjacent sentences of one quote (each part must appear, in order). */
export const QUOTE_GAP = ' … ';

export type QuoteProblem =
  | { kind: 'no-page'; detail: string }
  | { kind: 'no-section'; detail: string }
  | { kind: 'not-found'; detail: string };

/** Whether the quote stands verbatim in the cited section; undefined when it does. */
export function findQuote(source: SpecSource, ref: SpecRef, quote: string): QuoteProblem | undefined {
  const text = pageText(source, ref.revision, ref.page);
  if (text === undefined) return { kind: 'no-page', detail: `no page ${ref.revision}/${ref.page}` };
  let body: string | undefined;
  if (ref.page === 'schema') {
    body = schemaDefinition(text, ref.section);
    if (body === undefined) return { kind: 'no-section', detail: `no definition ${ref.section} in the ${ref.revision} schema` };
  } else {
    const want = plain(ref.section).toLowerCase();
    const matches = sectionsOf(text).filter((s) => s.heading.toLowerCase() === want);
    // The page's opening, before its first heading, is cited by the page's title (e.g. stdio#stdio).
    const opening = matches.length === 0 && want === plain(titleOf(text) ?? '').toLowerCase() ? openingOf(text) : undefined;
    if (matches.length === 0 && opening === undefined) return { kind: 'no-section', detail: `no section "${ref.section}" on ${ref.revision}/${ref.page}` };
    body = opening ?? matches.map((s) => s.text).join('\n');
  }
  const hay = plain(body);
  let from = 0;
  for (const part of quote.split(QUOTE_GAP)) {
    const needle = plain(part);
    const at = hay.indexOf(needle, from);
    if (at < 0) return { kind: 'not-found', detail: `not in ${ref.revision}/${ref.page}#${ref.section}: "${needle.slice(0, 120)}"` };
    from = at + needle.length;
  }
  return undefined;
}

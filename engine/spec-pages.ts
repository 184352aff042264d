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
import { strongestLevel, type Level, type SpecRef, type SpecRevision } from '../model/spec.js';

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
  const docStart =
    before >= 0 && !ts.slice(before, start.index).includes('*/\n\n') && ts.slice(before, start.index).trimEnd().endsWith('*/')
      ? before
      : start.index;
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
  return (
    text
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
      .trim()
  );
}

/** Separator between non-adjacent sentences of one quote (each part must appear, in order). */
export const QUOTE_GAP = ' … ';

export type QuoteProblem =
  { kind: 'no-page'; detail: string } | { kind: 'no-section'; detail: string } | { kind: 'not-found'; detail: string };

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
    // The page's opening, before its first heading, is cited by the page's title (e.g. stdio#stdio), also
    // when a heading repeats the title (mrtr#Multi Round-Trip Requests).
    const opening = want === plain(titleOf(text) ?? '').toLowerCase() ? openingOf(text) : undefined;
    if (matches.length === 0 && opening === undefined)
      return { kind: 'no-section', detail: `no section "${ref.section}" on ${ref.revision}/${ref.page}` };
    body = [...(opening === undefined ? [] : [opening]), ...matches.map((s) => s.text)].join('\n');
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

/** One sentence of a page that carries an RFC 2119 keyword (its own, or its list's lead-in). */
export interface SpecSentence {
  /** The innermost heading above it (before the first heading: the page's title, or ''). */
  section: string;
  /** Every heading above it, outermost first. */
  sections: string[];
  /** The sentence as a reader sees it (see `plain`). */
  text: string;
  /** For a list item: the sentence that leads into the list ("Servers MUST:"), whose keyword it carries. */
  lead?: string;
  /** The strongest keyword of the sentence (or, when it has none, of its lead-in). */
  level: Level;
}

const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx)\.$/i;

/** Sentences of a plain text: split after . ! ? followed by a capital, a digit or an opening mark; abbreviations kept whole. */
export function sentencesOf(text: string): string[] {
  const pieces = text.split(/(?<=[.!?]["')\]]?)\s+(?=["'(\[]?[A-Z0-9])/);
  const out: string[] = [];
  for (const p of pieces) {
    if (out.length && ABBREVIATION.test(out[out.length - 1]!)) out[out.length - 1] += ` ${p}`;
    else out.push(p);
  }
  return out.map((s) => s.trim()).filter(Boolean);
}

interface Block {
  sections: string[];
  /** `break`: a heading or a code fence, which ends any list and its lead-in. */
  kind: 'para' | 'item' | 'row' | 'break';
  /** A list item's indentation. */
  indent: number;
  text: string;
}

const ITEM = /^(\s*)(?:[-*+]|\d+\.)\s+/;

/** The page's prose blocks in order: paragraphs, list items and table rows, code fences left out. */
function blocksOf(markdown: string): Block[] {
  const lines = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').split('\n');
  const blocks: Block[] = [];
  const path: Array<{ depth: number; heading: string }> = [];
  let fence = false;
  let current: Block | undefined;
  const flush = () => {
    if (current && plain(current.text)) blocks.push(current);
    current = undefined;
  };
  // The opening, before the first heading, is cited by the page's title (as findQuote reads it).
  const title = titleOf(markdown);
  const sections = () => (path.length ? path.map((p) => p.heading) : title ? [plain(title)] : []);
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      fence = !fence;
      blocks.push({ sections: sections(), kind: 'break', indent: 0, text: '' });
      continue;
    }
    if (fence) continue;
    const head = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (head) {
      flush();
      blocks.push({ sections: sections(), kind: 'break', indent: 0, text: '' });
      const depth = head[1]!.length;
      while (path.length && path[path.length - 1]!.depth >= depth) path.pop();
      path.push({ depth, heading: plain(head[2]!) });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      if (!/^\s*\|?[\s:|-]+\|?\s*$/.test(line)) blocks.push({ sections: sections(), kind: 'row', indent: 0, text: line });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      flush();
      current = { sections: sections(), kind: 'item', indent: item[1]!.length, text: line };
      continue;
    }
    if (current) current.text += `\n${line}`;
    else current = { sections: sections(), kind: 'para', indent: 0, text: line };
  }
  flush();
  return blocks;
}

/**
 * Every sentence of a page with an RFC 2119 keyword, in page order. A list
 * item takes the keyword of the sentence that leads into its list when it has
 * none of its own and the lead-in ends with a colon ("Servers MUST:" then
 * "- Validate all tool inputs"); a lead-in whose items carry it is not counted
 * again on its own.
 */
export function keywordSentences(markdown: string): SpecSentence[] {
  const out: SpecSentence[] = [];
  // The lead-in paragraph and the enclosing items of the current list, outermost first.
  let stack: Array<{ indent: number; text: string; sentence?: SpecSentence; used: boolean }> = [];
  const close = (keepBelow: number) => {
    while (stack.length && stack[stack.length - 1]!.indent >= keepBelow) {
      const top = stack.pop()!;
      if (top.sentence && !top.used) out.push(top.sentence);
    }
  };
  for (const block of blocksOf(markdown)) {
    close(block.kind === 'item' ? block.indent : -1);
    if (block.kind === 'break') continue;
    const sentences = sentencesOf(plain(block.text));
    const section = block.sections[block.sections.length - 1] ?? '';
    const base = { section, sections: block.sections };
    // Only the immediate lead-in gives its keyword ("Servers MUST:" to its own items, not to items nested in them).
    const parent = stack[stack.length - 1];
    const inherited = parent?.text.endsWith(':') ? parent : undefined;
    const lead = stack.length ? stack.map((s) => s.text).join(' ') : undefined;
    sentences.forEach((text, i) => {
      const own = strongestLevel(text);
      const last = i === sentences.length - 1;
      if (block.kind === 'item' && i === 0 && lead) {
        const level = own ?? (inherited ? strongestLevel(inherited.text) : undefined);
        if (!own && inherited && level) inherited.used = true;
        const sentence: SpecSentence | undefined = level ? { ...base, text, lead, level } : undefined;
        if (last && text.endsWith(':')) stack.push({ indent: block.indent, text, sentence, used: false });
        else if (sentence) out.push(sentence);
        return;
      }
      const sentence: SpecSentence | undefined = own ? { ...base, text, level: own } : undefined;
      if (last && text.endsWith(':') && block.kind !== 'row') {
        stack.push({ indent: block.kind === 'item' ? block.indent : -1, text, sentence, used: false });
        return;
      }
      if (sentence) out.push(sentence);
    });
    // An item encloses the items indented below it (shown as their lead-in).
    const top = stack[stack.length - 1];
    if (block.kind === 'item' && sentences.length && !(top && top.indent === block.indent)) {
      stack.push({ indent: block.indent, text: sentences[sentences.length - 1]!, used: true });
    }
  }
  close(-1);
  return out;
}

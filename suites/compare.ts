/**
 * Comparing what a server listed at two moments: tool definitions by name,
 * as canonical JSON (key order does not matter, everything else does).
 */
import { show } from './check.js';
import type { JsonObject } from '../model/json.js';
import { canonical } from '../model/json.js';

export interface ToolsDiff {
  added: string[];
  removed: string[];
  /** Names in both lists whose definitions differ. */
  changed: string[];
}

/** How the tool list `b` differs from `a`. */
export function toolsDiff(a: JsonObject[], b: JsonObject[], keyOf: (item: JsonObject) => string = (tool) => String(tool?.name)): ToolsDiff {
  const byName = (items: JsonObject[]) => new Map(items.map((tool) => [keyOf(tool), canonical(tool)]));
  const x = byName(a);
  const y = byName(b);
  return {
    added: [...y.keys()].filter((n) => !x.has(n)),
    removed: [...x.keys()].filter((n) => !y.has(n)),
    changed: [...x.keys()].filter((n) => y.has(n) && x.get(n) !== y.get(n)),
  };
}

export function isSame(d: ToolsDiff): boolean {
  return d.added.length + d.removed.length + d.changed.length === 0;
}

/** The difference in words (empty when there is none). */
export function describeDiff(d: ToolsDiff): string {
  return [
    d.added.length ? `added ${show(d.added)}` : '',
    d.removed.length ? `removed ${show(d.removed)}` : '',
    d.changed.length ? `definition changed: ${show(d.changed)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

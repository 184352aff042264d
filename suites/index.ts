/**
 * The catalogue: every check of every suite, in report order.
 */
import { argumentChecks } from './arguments.js';
import type { Check } from './check.js';
import { discoverChecks } from './discover.js';
import { toolsListChecks } from './tools-list.js';
import { wireChecks } from './wire.js';

export const catalogue: Check[] = [...discoverChecks, ...toolsListChecks, ...argumentChecks, ...wireChecks];

const ids = new Set<string>();
for (const c of catalogue) {
  if (ids.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
  ids.add(c.id);
}

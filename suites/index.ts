/**
 * The catalogue: every check of every suite, in report order.
 */
import { argumentChecks } from './arguments.js';
import type { Check } from './check.js';
import { cachingChecks } from './caching.js';
import { discoverChecks } from './discover.js';
import { fixtureChecks } from './fixtures.js';
import { lifecycleChecks } from './lifecycle.js';
import { mrtrChecks } from './mrtr.js';
import { paginationChecks } from './pagination.js';
import { statelessnessChecks } from './statelessness.js';
import { subscriptionChecks } from './subscriptions.js';
import { toolsListChecks } from './tools-list.js';
import { wireChecks } from './wire.js';

export const catalogue: Check[] = [
  ...discoverChecks,
  ...lifecycleChecks,
  ...toolsListChecks,
  ...argumentChecks,
  ...paginationChecks,
  ...cachingChecks,
  ...mrtrChecks,
  ...fixtureChecks,
  ...subscriptionChecks,
  ...statelessnessChecks,
  ...wireChecks,
];

const ids = new Set<string>();
for (const c of catalogue) {
  if (ids.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
  ids.add(c.id);
}

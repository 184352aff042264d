/**
 * The catalogue: every check of every suite, in report order.
 */
import { toolsCallChecks } from './tools-call.js';
import type { Check } from './check.js';
import { cachingChecks } from './caching.js';
import { cancellationChecks } from './cancellation.js';
import { discoverChecks } from './discover.js';
import { fixtureChecks } from './fixtures.js';
import { lifecycleChecks } from './lifecycle.js';
import { mrtrChecks } from './mrtr.js';
import { paginationChecks } from './pagination.js';
import { statelessnessChecks } from './statelessness.js';
import { subscriptionChecks } from './subscriptions.js';
import { toolsListChecks } from './tools-list.js';
import { transportChecks } from './transport.js';
import { protocolChecks } from './protocol.js';
import { metaChecks } from './meta.js';
import { versioningChecks } from './versioning.js';
import { streamableHttpChecks } from './streamable-http.js';
import { promptChecks } from './prompts.js';
import { resourceChecks } from './resources.js';
import { progressChecks } from './progress.js';
import { errorCodeChecks } from './error-codes.js';
import { resultMetaChecks } from './result-meta.js';
import { encodingChecks } from './encoding.js';

export const catalogue: Check[] = [
  ...discoverChecks,
  ...lifecycleChecks,
  ...toolsListChecks,
  ...toolsCallChecks,
  ...paginationChecks,
  ...cachingChecks,
  ...mrtrChecks,
  ...fixtureChecks,
  ...subscriptionChecks,
  ...cancellationChecks,
  ...metaChecks,
  ...versioningChecks,
  ...statelessnessChecks,
  ...protocolChecks,
  ...transportChecks,
  ...streamableHttpChecks,
  ...promptChecks,
  ...resourceChecks,
  ...progressChecks,
  ...errorCodeChecks,
  ...resultMetaChecks,
  ...encodingChecks,
];

const ids = new Set<string>();
for (const c of catalogue) {
  if (ids.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
  ids.add(c.id);
}

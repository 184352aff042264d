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
import { pingChecks } from './ping.js';
import { loggingChecks } from './logging.js';
import { listChangedChecks } from './list-changed.js';
import { legacyCancellationChecks } from './cancellation-legacy.js';
import { sessionChecks } from './sessions.js';
import { elicitationChecks } from './elicitation.js';
import { taskChecks } from './tasks.js';
import { negotiationChecks } from './lifecycle.js';

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
  // The legacy era's own rules (2025-11-25): ping, logging, list changes on the
  // session, cancellation, the HTTP session; the capability check last, so it
  // judges what every connection before it received.
  ...pingChecks,
  ...loggingChecks,
  ...listChangedChecks,
  ...legacyCancellationChecks,
  ...sessionChecks,
  ...elicitationChecks,
  ...taskChecks,
  ...negotiationChecks,
];

const ids = new Set<string>();
for (const c of catalogue) {
  if (ids.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
  ids.add(c.id);
}

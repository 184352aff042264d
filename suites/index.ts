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

/**
 * Each suite module and the checks it defines, in report order: the one place
 * that says which file holds a check (`list` prints it; a test proves each
 * file exports exactly these checks).
 */
export const suiteModules: ReadonlyArray<{ file: string; checks: readonly Check[] }> = [
  { file: 'suites/discover.ts', checks: discoverChecks },
  { file: 'suites/lifecycle.ts', checks: lifecycleChecks },
  { file: 'suites/tools-list.ts', checks: toolsListChecks },
  { file: 'suites/tools-call.ts', checks: toolsCallChecks },
  { file: 'suites/pagination.ts', checks: paginationChecks },
  { file: 'suites/caching.ts', checks: cachingChecks },
  { file: 'suites/mrtr.ts', checks: mrtrChecks },
  { file: 'suites/fixtures.ts', checks: fixtureChecks },
  { file: 'suites/subscriptions.ts', checks: subscriptionChecks },
  { file: 'suites/cancellation.ts', checks: cancellationChecks },
  { file: 'suites/meta.ts', checks: metaChecks },
  { file: 'suites/versioning.ts', checks: versioningChecks },
  { file: 'suites/statelessness.ts', checks: statelessnessChecks },
  { file: 'suites/protocol.ts', checks: protocolChecks },
  { file: 'suites/transport.ts', checks: transportChecks },
];

export const catalogue: Check[] = suiteModules.flatMap((m) => m.checks);

const fileOf = new Map<string, string>(suiteModules.flatMap((m) => m.checks.map((c) => [c.id, m.file] as const)));

/** The suite file (relative to the package root) that defines a check. */
export function sourceFileOf(check: Pick<Check, 'id'>): string | undefined {
  return fileOf.get(check.id);
}

const ids = new Set<string>();
for (const c of catalogue) {
  if (ids.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
  ids.add(c.id);
}

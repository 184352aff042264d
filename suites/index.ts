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
import { completionChecks } from './completion.js';
import { progressChecks } from './progress.js';
import { errorCodeChecks } from './error-codes.js';
import { resultMetaChecks } from './result-meta.js';
import { encodingChecks } from './encoding.js';
import { pingChecks } from './ping.js';
import { loggingChecks } from './logging.js';
import { listChangedChecks } from './list-changed.js';
import { legacyCancellationChecks } from './cancellation-legacy.js';
import { sessionChecks } from './sessions.js';
import { elicitationChecks } from './elicitation.js';
import { taskChecks } from './tasks.js';
import { negotiationChecks } from './lifecycle.js';
import { authorizationChecks } from './authorization.js';

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
  { file: 'suites/streamable-http.ts', checks: streamableHttpChecks },
  { file: 'suites/prompts.ts', checks: promptChecks },
  { file: 'suites/resources.ts', checks: resourceChecks },
  { file: 'suites/completion.ts', checks: completionChecks },
  { file: 'suites/progress.ts', checks: progressChecks },
  { file: 'suites/error-codes.ts', checks: errorCodeChecks },
  { file: 'suites/result-meta.ts', checks: resultMetaChecks },
  { file: 'suites/encoding.ts', checks: encodingChecks },
  { file: 'suites/authorization.ts', checks: authorizationChecks },
  // The legacy era's own rules (2025-11-25): ping, logging, list changes on the
  // session, cancellation, the HTTP session, elicitation modes, tasks; the
  // negotiated-capability check last, so it judges what every connection before it received.
  { file: 'suites/ping.ts', checks: pingChecks },
  { file: 'suites/logging.ts', checks: loggingChecks },
  { file: 'suites/list-changed.ts', checks: listChangedChecks },
  { file: 'suites/cancellation-legacy.ts', checks: legacyCancellationChecks },
  { file: 'suites/sessions.ts', checks: sessionChecks },
  { file: 'suites/elicitation.ts', checks: elicitationChecks },
  { file: 'suites/tasks.ts', checks: taskChecks },
  { file: 'suites/lifecycle.ts', checks: negotiationChecks },
];

export const catalogue: Check[] = suiteModules.flatMap((m) => m.checks);

/*
 * What the engine needs of particular suites, named here so that the engine
 * imports the catalogue (and the check model, check.ts) and no suite file by
 * name (test/layering.test.ts): the owner of the tools/list walk the run
 * opens with, and the settings of generated tool calls.
 */
export { resultSchema as toolsListOwner } from './tools-list.js';
export { DEFAULT_RUNS, parseReplay, type ArgumentSettings } from './args/calls.js';
export { chosenTriggers } from './triggers.js';
export { answeredInitialize } from './versioning.js';
export { callGuard, HELD_BACK_FLAG, whyNotCallable } from './safety.js';

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

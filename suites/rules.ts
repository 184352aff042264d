/**
 * Rules shared by several suites, written once.
 */
import type { JsonObject } from '../harness/session.js';

/**
 * server/utilities/caching "Cacheable Results": a complete result of a
 * cacheable operation MUST carry `ttlMs` (an integer >= 0) and `cacheScope`
 * ("public" or "private"); an `input_required` result carries no caching hints.
 * Returns what is wrong with `result` (empty when nothing is).
 */
export function cachingHintProblems(result: JsonObject | undefined): string[] {
  if (!result) return ['no result'];
  const problems: string[] = [];
  if (result.resultType === 'input_required') {
    if ('ttlMs' in result) problems.push(`an input_required result carries ttlMs ${JSON.stringify(result.ttlMs)}`);
    if ('cacheScope' in result) problems.push(`an input_required result carries cacheScope ${JSON.stringify(result.cacheScope)}`);
    return problems;
  }
  const ttl = result.ttlMs;
  if (ttl === undefined) problems.push('ttlMs is missing');
  else if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) problems.push(`ttlMs ${JSON.stringify(ttl)} is not an integer >= 0`);
  const scope = result.cacheScope;
  if (scope === undefined) problems.push('cacheScope is missing');
  else if (scope !== 'public' && scope !== 'private') problems.push(`cacheScope ${JSON.stringify(scope)} is not "public" or "private"`);
  return problems;
}

/** The cacheable operations of server/utilities/caching. */
export const CACHEABLE_METHODS = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
] as const;

import type { JsonObject } from '../model/json.js';
/**
 * Rules shared by several suites, written once.
 */

/**
 * server/utilities/caching "Cacheable Results": a complete result of a
 * cacheable operation MUST carry `ttlMs` (an integer >= 0) and `cacheScope`
 * ("public" or "private"); an `input_required` result carries no caching hints.
 * Returns what is wrong with `result` (empty when nothing is).
 */
export function cachingHintProblems(result: JsonObject | undefined): string[] {
  if (!result) return ['no result'];
  if (result.resultType === 'input_required') return inputRequiredHintProblems(result);
  return [...ttlProblems(result), ...cacheScopeProblems(result)];
}

/** The `ttlMs` part of the rule, for a complete result. */
export function ttlProblems(result: JsonObject): string[] {
  const ttl = result.ttlMs;
  if (ttl === undefined) return ['ttlMs is missing'];
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) return [`ttlMs ${JSON.stringify(ttl)} is not an integer >= 0`];
  return [];
}

/** The `cacheScope` part of the rule, for a complete result. */
export function cacheScopeProblems(result: JsonObject): string[] {
  const scope = result.cacheScope;
  if (scope === undefined) return ['cacheScope is missing'];
  if (scope !== 'public' && scope !== 'private') return [`cacheScope ${JSON.stringify(scope)} is not "public" or "private"`];
  return [];
}

/** The `input_required` part of the rule: no caching hints at all. */
export function inputRequiredHintProblems(result: JsonObject): string[] {
  const problems: string[] = [];
  if ('ttlMs' in result) problems.push(`an input_required result carries ttlMs ${JSON.stringify(result.ttlMs)}`);
  if ('cacheScope' in result) problems.push(`an input_required result carries cacheScope ${JSON.stringify(result.cacheScope)}`);
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

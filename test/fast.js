#!/usr/bin/env node
/**
 * `npm run test:fast`: the developer's inner loop (`npm test` stays the whole
 * gate). It runs, in one vitest invocation:
 *
 *   - the unit tests (the files below: no server is started);
 *   - one pass of the catalogue against the reference server, stdio and HTTP
 *     (the kill matrix's reference cases);
 *   - the kill-matrix cases (modern and legacy era, parts included) of the
 *     checks the working tree changed: the suite files changed since HEAD
 *     (or since the merge-base with FAST_BASE, e.g. FAST_BASE=origin/main),
 *     untracked ones included, give their check ids; a changed reference
 *     server file gives the ids of the defects its changed lines name.
 *
 * A change to the harness or the engine reaches every check: the catalogue
 * pass covers it here, the whole kill matrix in `npm test`.
 *
 *   npm run test:fast            (FAST_BASE=<ref> to diff against a merge-base)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Test files that start no server: the unit tests. */
const UNIT = [
  'argv',
  'config-rule-eras',
  'contributing',
  'coverage-checks',
  'harness',
  'layering',
  'legacy-rules',
  'limits',
  'quotes',
  'render',
].map((name) => `test/${name}.test.ts`);

/** @param {...string} args */
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });

/** The commit the working tree is compared with: HEAD, or the merge-base with FAST_BASE. */
function base() {
  const against = process.env.FAST_BASE;
  return against ? git('merge-base', 'HEAD', against).trim() : 'HEAD';
}

/**
 * Files changed since `from` (tracked), and the untracked ones.
 * @param {string} from
 */
function changedFiles(from) {
  const tracked = git('diff', '--name-only', from).split('\n');
  const untracked = git('ls-files', '--others', '--exclude-standard').split('\n');
  return [...new Set([...tracked, ...untracked].filter(Boolean))];
}

/**
 * The ids of the checks a suite file defines.
 * @param {string} file
 */
function checkIdsIn(file) {
  const text = existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : '';
  return [...text.matchAll(/defineCheck\(\{\s*id:\s*'([^']+)'/g)].map((m) => m[1]);
}

/**
 * The defect ids a reference server file's changed lines name (`broken('<check>#<part>')`, `Defect (<check>)`).
 * @param {string} file
 * @param {string} from
 * @param {Set<string>} untracked
 */
function defectIdsIn(file, from, untracked) {
  const text = untracked.has(file) ? readFileSync(join(ROOT, file), 'utf8') : git('diff', '-U0', from, '--', file);
  const changed = untracked.has(file)
    ? text
    : text
        .split('\n')
        .filter((l) => /^[+-]/.test(l))
        .join('\n');
  const ids = [...changed.matchAll(/(?:broken\(\s*['"]|Defect \()([a-z-]+\/[a-z0-9-]+)/g)].map((m) => m[1]);
  return ids;
}

/** The check ids whose kill-matrix cases test:fast runs. */
export function changedChecks(from = base()) {
  const files = changedFiles(from);
  const untracked = new Set(git('ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean));
  const ids = new Set();
  for (const file of files) {
    if (/^suites\/.*\.ts$/.test(file)) for (const id of checkIdsIn(file)) ids.add(id);
    if (/^fixtures\/servers\/reference\/.*\.js$/.test(file)) for (const id of defectIdsIn(file, from, untracked)) ids.add(id);
  }
  return [...ids].sort();
}

function main() {
  const checks = changedChecks();
  process.stdout.write(
    `test:fast: unit tests, the catalogue against the reference, and the kill-matrix cases of ${checks.length} changed check(s)${checks.length ? `: ${checks.join(', ')}` : ''}\n`,
  );
  const files = [...UNIT, 'test/kill-matrix.test.ts', ...(checks.length ? ['test/kill-matrix-legacy.test.ts'] : [])];
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...files, ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, KILL_MATRIX_CHECKS: checks.join(',') },
  });
  process.stdout.write(`test:fast: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.exit(r.status ?? 1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

/**
 * The corpus's results matrix as a reader sees it, in a real headless
 * Chromium (Debian's package, driven by playwright-core): the corpus's cheap
 * targets (the reference over stdio and HTTP, the 2.x-SDK fixtures over
 * stdio and HTTP in both eras, server-memory, server-filesystem) plus one
 * broken reference variant, run by `mcp-conformance matrix` as
 * `npm run matrix` runs the whole corpus. The page loads nothing; its
 * filters work; and a failing cell leads to the target's report at the
 * check, with the failure's quote and wire in view. A screenshot is kept
 * under reports/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import type { TargetSpec } from '../model/matrix.js';
import { checkAnchor } from '../render/html.js';
import { FAIL_BREAK } from './gate-helpers.js';
import { ROOT, runCli, tempDir, launchChromium } from './helpers.js';
import { readValidMatrix } from './matrix-helpers.js';

const CHEAP = ['reference', 'reference-http', 'sdk2-stdio', 'sdk2-http', 'memory', 'filesystem'];
const BROKEN = 'reference-broken';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** The corpus's cheap targets and the broken variant, in a targets file of its own ({dir} and configs pointing at corpus/). */
function corpusSubset(dir: string): string {
  const corpus = join(ROOT, 'corpus');
  const all = (parseYaml(readFileSync(join(corpus, 'targets.yaml'), 'utf8')) as { targets: TargetSpec[] }).targets;
  const chosen = CHEAP.map((label) => all.find((t) => t.label === label)!);
  expect(chosen.every(Boolean), 'the corpus names every cheap target').toBe(true);
  const targets = [...chosen, { label: BROKEN, server: `reference --break ${FAIL_BREAK}` }].map((t) => ({
    ...t,
    ...(t.config ? { config: join(corpus, t.config) } : {}),
  }));
  const file = join(dir, 'targets.yaml');
  writeFileSync(file, stringify({ targets }).replaceAll('{dir}', corpus));
  return file;
}

describe('the results matrix in headless Chromium', () => {
  it('the corpus: ≥6 targets with counts, filters, no network; a failing cell opens the report at the check with its quote and wire', async () => {
    const dir = tempDir();
    const out = join(dir, 'matrix');
    const started = Date.now();
    const r = await runCli(['matrix', corpusSubset(dir), '--out', out, '--jobs', '2', '--timeout', '5000'], { timeoutMs: 400_000 });
    const took = Date.now() - started;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const m = readValidMatrix(out);
    expect(new Set(m.columns.map((c) => c.target)).size).toBe(CHEAP.length + 1);
    for (const c of m.columns) expect(c.aborted, c.id).toBeUndefined();
    const row = m.rows.find((x) => x.id === FAIL_BREAK)!;
    expect(m.cells.find((c) => c.column === BROKEN && c.check === FAIL_BREAK)?.verdict).toBe('fail');

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    page.on('request', (req) => void requests.push(req.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(e.message));
    try {
      await page.goto(pathToFileURL(join(out, 'matrix.html')).href);
      expect(requests, 'the page loads nothing but itself').toEqual([pathToFileURL(join(out, 'matrix.html')).href]);
      // Columns with their counts.
      const heads = page.locator('th.column');
      expect(await heads.count()).toBe(m.columns.length);
      const brokenHead = page.locator(`th.column[data-column="${BROKEN}"]`);
      const s = m.columns.find((c) => c.id === BROKEN)!.summary;
      expect(await brokenHead.locator('[data-count="fail"]').innerText()).toBe(`✗ ${s.fail} fail`);
      expect(await brokenHead.locator('[data-count="pass"]').innerText()).toBe(`✓ ${s.pass} pass`);
      // Rows grouped by area; the level and the quote on hover.
      const tr = page.locator(`tr.row[data-check="${FAIL_BREAK}"]`);
      const hover = await tr.locator('th.check').getAttribute('title');
      expect(hover).toContain(`${row.level}: ${row.requirement.slice(0, 60)}`);
      const cell = tr.locator(`td.cell[data-column="${BROKEN}"]`);
      expect(await cell.innerText()).toBe('✗ fail');
      expect(await tr.locator('td.cell[data-column="reference"]').innerText()).toBe('✓ pass');

      // Filters: fails only; then one area; then one era (columns).
      for (const v of ['pass', 'warn', 'skip', 'not-observed', 'expected'])
        await page.locator(`#filters input[data-verdict="${v}"]`).uncheck();
      expect(await tr.isVisible()).toBe(true);
      const visibleRows = await page.locator('tr.row:not(.hidden)').evaluateAll((rows) => rows.map((x) => x.getAttribute('data-check')));
      const failing = new Set(m.cells.filter((c) => c.verdict === 'fail').map((c) => c.check));
      expect(new Set(visibleRows)).toEqual(failing);
      await page.screenshot({ path: shotPath('matrix-fails.png'), fullPage: false });
      for (const v of ['pass', 'warn', 'skip', 'not-observed', 'expected'])
        await page.locator(`#filters input[data-verdict="${v}"]`).check();
      await page.locator('#area-filter').selectOption(row.area);
      const areas = await page
        .locator('tr.row:not(.hidden)')
        .evaluateAll((rows) => [...new Set(rows.map((x) => x.getAttribute('data-area')))]);
      expect(areas).toEqual([row.area]);
      await page.locator('#era-filter').selectOption('legacy');
      const shown = await page.locator('th.column:not(.hidden)').evaluateAll((hs) => hs.map((x) => x.getAttribute('data-column')));
      expect(shown).toEqual(m.columns.filter((c) => c.era === 'legacy').map((c) => c.id));
      await page.locator('#era-filter').selectOption('');
      await page.locator('#area-filter').selectOption('');
      await page.screenshot({ path: shotPath('matrix.png'), fullPage: false });

      // The failing cell leads to the target's report, at the check: its quote and its wire in view.
      await cell.locator('a').click();
      await page.waitForURL(/report\.html#check-/);
      expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#${checkAnchor(FAIL_BREAK)}`);
      const check = page.locator(`[id="${checkAnchor(FAIL_BREAK)}"]`);
      const top = await check.evaluate((el) => el.getBoundingClientRect().top);
      const bar = await page.locator('#filter').evaluate((el) => el.getBoundingClientRect().bottom);
      expect(top, 'the check is scrolled into view, below the sticky filter bar').toBeGreaterThanOrEqual(bar - 1);
      expect(top).toBeLessThan(900);
      expect(await check.locator('blockquote.quote').first().innerText()).toContain(row.requirement.slice(0, 60));
      const wire = check.locator('pre.wire').first();
      expect(await wire.isVisible()).toBe(true);
      expect(await wire.innerText()).toMatch(/^→ .*"method":"tools\/list"/m);
      await page.screenshot({ path: shotPath('matrix-report-at-check.png'), fullPage: false });
      expect(errors).toEqual([]);
      expect(
        requests.filter((u) => !u.startsWith('file:')),
        'no network',
      ).toEqual([]);
    } finally {
      await page.close();
    }
    process.stdout.write(`matrix of ${m.columns.length} columns (${CHEAP.length + 1} targets) took ${(took / 1000).toFixed(1)} s\n`);
  }, 600_000);
});

function shotPath(name: string): string {
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  return join(ROOT, 'reports', name);
}

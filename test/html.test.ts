/**
 * The HTML report in a real headless Chromium (Debian's package, driven by
 * playwright-core): what a reader sees, the verdict filter, and that the
 * page loads nothing from anywhere. A screenshot is kept under reports/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../model/results.js';
import { renderHtml, writeReports } from '../render/index.js';
import { cli, everyVerdict, FAIL_BREAK } from './gate-helpers.js';
import { referenceCommand, ROOT, tempDir, launchChromium } from './helpers.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Opens a report file; every request the page makes is recorded. */
async function open(file: string) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const requests: string[] = [];
  page.on('request', (req) => void requests.push(req.url()));
  const errors: string[] = [];
  page.on('pageerror', (e) => void errors.push(e.message));
  await page.goto(pathToFileURL(file).href);
  return { page, requests, errors };
}

describe('HTML report in headless Chromium', () => {
  it('a real failing run: summary, areas, the failure with quote, expected, actual and wire; the verdict filter; no network', async () => {
    const dir = tempDir();
    const html = join(dir, 'report.html');
    const r = await cli([
      '--server',
      referenceCommand('--break', FAIL_BREAK),
      '--seed',
      '1',
      '--junit',
      join(dir, 'j.xml'),
      '--json',
      join(dir, 'r.json'),
      '--html',
      html,
    ]);
    expect(r.code).toBe(1);
    const run = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as RunResult;
    const { page, requests, errors } = await open(html);
    try {
      expect(await page.title()).toMatch(/^mcp-conformance: FAILED/);
      expect(await page.locator('#summary .result').innerText()).toBe('Result: FAILED (1 fail)');
      // Failures first: the list above the areas links to the failing check's details.
      expect(await page.locator('#problems a').evaluateAll((els) => els.map((e) => e.textContent))).toEqual([FAIL_BREAK]);
      expect(await page.locator('#summary [data-count="fail"]').innerText()).toContain(`${run.summary.fail} fail`);
      expect(await page.locator('#summary [data-count="pass"]').innerText()).toContain(`${run.summary.pass} pass`);
      const areas = await page.locator('section.area h2').allInnerTexts();
      expect(areas).toEqual([...new Set(run.checks.map((c) => c.area))]);

      const failed = page.locator(`.check[data-check="${FAIL_BREAK}"]`);
      expect(await failed.getAttribute('open')).not.toBeNull(); // failures are open
      const text = await failed.innerText();
      expect(text).toContain('MUST NOT vary per-connection or as a side effect of other requests on the connection.');
      expect(text).toMatch(/Expected\s+the same \d+ tool name\(s\) on connection \d+/);
      expect(text).toMatch(/Actual\s+missing there/);
      expect(await failed.locator('pre.wire').innerText()).toMatch(/→ .*"method":"tools\/list"/);
      expect(await failed.locator('.spec a').getAttribute('href')).toBe(
        'https://modelcontextprotocol.io/specification/draft/server/tools#capabilities',
      );

      const visible = () => page.locator('.check:visible').count();
      const total = run.checks.length;
      expect(await visible()).toBe(total);
      await page.locator('#filter input[data-verdict="pass"]').uncheck();
      const passing = run.checks.filter(
        (c) =>
          c.results.length > 0 &&
          c.results.every((x) => x.verdict === 'pass' || x.verdict === 'skip') &&
          c.results.some((x) => x.verdict === 'pass'),
      ).length;
      expect(await visible()).toBe(total - passing);
      for (const v of ['skip', 'not-observed', 'warn']) await page.locator(`#filter input[data-verdict="${v}"]`).uncheck();
      expect(await page.locator('.check:visible').evaluateAll((els) => els.map((e) => e.getAttribute('data-check')))).toEqual([FAIL_BREAK]);
      mkdirSync(join(ROOT, 'reports'), { recursive: true });
      await page.locator('#filter input[data-verdict="pass"]').check();
      await page.screenshot({ path: join(ROOT, 'reports', 'html-report.png'), fullPage: false });
      expect(existsSync(join(ROOT, 'reports', 'html-report.png'))).toBe(true);

      expect(errors).toEqual([]);
      expect(requests).toEqual([pathToFileURL(html).href]);
    } finally {
      await page.close();
    }
  });

  it('one self-contained file: no external reference; what a server sent stays text', async () => {
    const run = everyVerdict();
    run.checks[1]!.results[0]!.findings[0]!.actual =
      '<img src="http://127.0.0.1:9/x.png" onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
    const text = renderHtml(run);
    expect(text).not.toMatch(/<(link|img|iframe)\b/i);
    expect(text).not.toMatch(/src=["']?(https?:)?\/\//i);
    expect(text.match(/<script>/g)).toHaveLength(1);
    const dir = tempDir();
    const file = join(dir, 'r.html');
    await writeReports(run, { htmlPath: file });
    const { page, requests, errors } = await open(file);
    try {
      expect(await page.title()).not.toContain('pwned');
      expect(await page.locator('.check[data-check="tools-list/b-fail"]').innerText()).toContain('<script>document.title="pwned"</script>');
      expect(await page.locator('.check[data-check="tools-call/f-expected"]').getAttribute('data-verdict')).toBe('expected');
      expect(await page.locator('#baseline').innerText()).toContain('stale: tools-list/a-pass no longer fails');
      expect(await page.locator('#stderr pre').innerText()).toContain('Error: something <odd> & "quoted"');
      expect(errors).toEqual([]);
      expect(requests).toEqual([pathToFileURL(file).href]);
    } finally {
      await page.close();
    }
  });
});

/**
 * HTML report (`--html`): one self-contained file, to open in a browser or
 * keep as a CI artifact. No external asset and no network: the styles and
 * the small filter script are inline, and a Content-Security-Policy forbids
 * the page to load anything (links to the spec site are plain links).
 *
 * It shows the run's header and summary, every area with its checks (a
 * verdict filter hides or shows checks by verdict), and for each fail or
 * warn: the requirement quoted from the spec, expected, actual, the wire
 * frames and a link to the spec section. The server's stderr, harness
 * errors and the baseline's outcome close the page.
 *
 * Every string from the result model goes through `safeText` (terminal and
 * XML safety) and then HTML escaping, so nothing a server sent can become
 * markup.
 */
import type { CheckResult, Finding, RunResult, SubjectResult, Verdict } from '../model/results.js';
import { COUNT_LABELS, VERDICTS, countRun } from '../model/results.js';
import { safeClip, safeText } from './escape.js';
import {
  VERDICT_LABEL,
  configFileText,
  leftOutCount,
  leftOutLines,
  countVerdicts,
  countsText,
  formatDuration,
  frameText,
  groupByArea,
  overallVerdict,
  replayCommand,
  resultText,
  specText,
  specUrl,
} from './text.js';

const FIELD_CHARS = 8000;
const WIRE_CHARS = 4000;
const STDERR_LINES = 200;

/** HTML-escaped safe text (newlines kept when `multiline`). */
function h(value: unknown, max = FIELD_CHARS, multiline = true): string {
  return safeClip(value, max, { multiline })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A check's verdict for the filter: `expected` when all its fails and warns are in the baseline. */
export function checkVerdict(c: CheckResult): Verdict | 'expected' {
  const v = overallVerdict(c.results);
  const problems = c.results.filter((r) => r.verdict === 'fail' || r.verdict === 'warn');
  if ((v === 'fail' || v === 'warn') && problems.every((r) => r.expected)) return 'expected';
  return c.results.length === 0 ? 'skip' : v;
}

/** The id of a check's element in the report (with `--spec all`, per era): `check-<id>`, `legacy-check-<id>`. */
/** The anchor of a check's details in the report: `check-<id>`, qualified by the era with --spec all (links from the recap and the matrix). */
export function checkAnchor(id: string, era?: string): string {
  return `check-${era ? `${era}-` : ''}${id}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

const FILTERS: Array<Verdict | 'expected'> = [...VERDICTS, 'expected'];
const FILTER_LABEL: Record<Verdict | 'expected', string> = { ...VERDICT_LABEL, expected: 'expected (baseline)' };
const MARK: Record<Verdict | 'expected', string> = { pass: '✓', fail: '✗', warn: '!', skip: '-', 'not-observed': '?', expected: '~' };

const STYLE = `
:root { --fail:#b42318; --warn:#b54708; --pass:#067647; --skip:#667085; --no:#6941c6; --exp:#475467; font-family: system-ui, sans-serif; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color:#101828; }
h1 { font-size: 1.4rem; margin: .2rem 0 .6rem; }
h2 { font-size: 1.15rem; margin: 1.4rem 0 .4rem; border-bottom: 1px solid #eaecf0; }
table.meta td { padding: .1rem .8rem .1rem 0; vertical-align: top; }
.result { font-weight: 700; font-size: 1.1rem; }
.result.r0 { color: var(--pass); } .result.r1, .result.r2 { color: var(--fail); }
.counts span { display:inline-block; margin-right: 1rem; }
#filter { position: sticky; top: 0; background: #fff; padding: .5rem 0; border-bottom: 1px solid #eaecf0; z-index: 1; }
#filter label { margin-right: 1rem; white-space: nowrap; }
.check { border-left: 4px solid #eaecf0; margin: .35rem 0; padding: .15rem .6rem; scroll-margin-top: 3.5rem; }
.check > summary { cursor: pointer; list-style: none; }
.check > summary::-webkit-details-marker { display: none; }
.v-fail { border-color: var(--fail); } .v-warn { border-color: var(--warn); } .v-pass { border-color: var(--pass); }
.v-skip { border-color: #d0d5dd; } .v-not-observed { border-color: var(--no); } .v-expected { border-color: var(--exp); border-left-style: dashed; }
.mark { display:inline-block; width: 1.2rem; font-weight: 700; }
.m-fail { color: var(--fail); } .m-warn { color: var(--warn); } .m-pass { color: var(--pass); } .m-skip { color: var(--skip); } .m-not-observed { color: var(--no); } .m-expected { color: var(--exp); }
.id { font-family: ui-monospace, monospace; font-weight: 600; }
.title, .counts-small, .reason, .notes { color: #475467; }
.subject { margin: .4rem 0 .6rem 1.2rem; }
.finding { margin: .3rem 0 .6rem; }
.finding dt { font-weight: 600; float: left; width: 7.5rem; clear: left; }
.finding dd { margin: 0 0 .2rem 7.5rem; white-space: pre-wrap; word-break: break-word; }
blockquote.quote { margin: .3rem 0; padding: .2rem .8rem; border-left: 3px solid #98a2b3; background: #f9fafb; white-space: pre-wrap; }
pre { background: #f2f4f7; padding: .5rem; overflow-x: auto; font-size: .85rem; white-space: pre-wrap; word-break: break-all; }
.hidden { display: none; }
`;

const SCRIPT = `
(function () {
  var boxes = document.querySelectorAll('#filter input[data-verdict]');
  function apply() {
    var shown = {};
    boxes.forEach(function (b) { shown[b.getAttribute('data-verdict')] = b.checked; });
    document.querySelectorAll('.check').forEach(function (el) {
      el.classList.toggle('hidden', !shown[el.getAttribute('data-verdict')]);
    });
    document.querySelectorAll('section.area').forEach(function (s) {
      s.classList.toggle('hidden', s.querySelectorAll('.check:not(.hidden)').length === 0);
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  apply();
})();
`;

export function renderHtml(run: RunResult): string {
  const parts = run.eras ?? [run];
  const all = parts.flatMap((p) => p.checks);
  const tally: Record<Verdict | 'expected', number> = { pass: 0, fail: 0, warn: 0, skip: 0, 'not-observed': 0, expected: 0 };
  for (const c of all) tally[checkVerdict(c)]++;
  const body: string[] = [];
  body.push(`<h1>${h(run.tool.name)} ${h(run.tool.version)} — conformance report</h1>`);
  body.push(header(run));
  body.push(summary(run));
  body.push(problems(run));
  body.push(
    `<div id="filter" role="group" aria-label="verdict filter">Show: ${FILTERS.filter((v) => v !== 'expected' || tally.expected > 0)
      .map(
        (v) =>
          `<label><input type="checkbox" data-verdict="${v}" checked> <span class="mark m-${v}">${MARK[v]}</span>${h(FILTER_LABEL[v])} (${tally[v]})</label>`,
      )
      .join('')}</div>`,
  );
  for (const part of parts) {
    if (run.eras) body.push(`<h2>${h(part.revision)}${part.era ? ` (${h(part.era.era)} era)` : ''}</h2>`);
    for (const [area, checks] of groupByArea(part.checks)) {
      body.push(`<section class="area" data-area="${h(area, 200, false)}"><h2>${h(area)}</h2>`);
      for (const c of checks) body.push(checkHtml(c, run, run.eras ? (part.era?.era ?? part.revision) : undefined));
      body.push('</section>');
    }
  }
  body.push(footer(run));
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(run.tool.name)}: ${h(resultText(run), 300, false)} — ${h(run.target.command ?? run.target.url ?? '', 200, false)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    ...body,
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

function header(run: RunResult): string {
  const where = run.target.transport === 'http' ? run.target.url : run.target.command;
  const rows: Array<[string, string]> = [
    ['Target', `${h(run.target.transport)} <code>${h(where ?? '(unknown)')}</code>`],
    ['Revision', `${h(run.revision)}${run.era ? ` (${h(run.era.era)} era, ${h(run.era.how)}: ${h(run.era.evidence, 300)})` : ''}`],
    ['Server', run.server ? `${h(run.server.name ?? '(unnamed)', 200)} ${h(run.server.version ?? '', 100)}` : '(did not identify itself)'],
    ['Started', `${h(run.startedAt)}, took ${h(formatDuration(run.durationMs))}`],
  ];
  if (run.seed !== undefined) rows.push(['Seed', h(run.seed)]);
  if (run.strict) rows.push(['Mode', 'strict (warnings count as failures)']);
  rows.push(...leftOutRows(run));
  return `<table class="meta">${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
}

/** The configuration file the run read, and the checks it left out, each pattern with its source. */
function leftOutRows(run: RunResult): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const config = configFileText(run);
  if (config !== undefined) rows.push(['Config', `<code>${h(config)}</code>`]);
  const lines = leftOutLines(run);
  if (lines.length > 0) {
    const n = leftOutCount(run);
    const items = lines.map((l) => `<li>${h(l)}</li>`).join('');
    rows.push(['Left out', `<span id="left-out">${n} check${n === 1 ? '' : 's'} (not run, not counted)</span><ul>${items}</ul>`]);
  }
  return rows;
}

/** The count keys as the page's data-count attributes (and the filter's verdicts) name them. */
const COUNT_KEY: Record<string, string> = { notObserved: 'not-observed' };

function summary(run: RunResult): string {
  const s = countRun(run);
  const mark = (k: string) => (k in MARK ? `<span class="mark m-${k}">${MARK[k as Verdict]}</span>` : '');
  return [
    `<section id="summary"><h2>Summary</h2>`,
    `<p class="result r${run.exitCode}" data-exit-code="${run.exitCode}">Result: ${h(resultText(run), 1000)}</p>`,
    `<p class="counts">${COUNT_LABELS.map(([k, label]) => {
      const key = COUNT_KEY[k] ?? k;
      return `<span data-count="${key}">${mark(key)}${s[k]} ${h(label)}</span>`;
    }).join('')}` + ` <span class="counts-small">(${s.total} results)</span></p>`,
    run.incomplete !== undefined ? `<p class="m-fail" id="incomplete"><strong>INCOMPLETE:</strong> ${h(run.incomplete, 4000)}</p>` : '',
    run.aborted !== undefined
      ? `<p class="m-fail"><strong>ABORTED:</strong> <span style="white-space:pre-wrap">${h(run.aborted, 4000)}</span></p>`
      : '',
    '</section>',
  ].join('\n');
}

/** Failures first: each unexpected fail and warn (linked to its details), and each stale baseline entry. */
function problems(run: RunResult): string {
  const items: string[] = [];
  for (const part of run.eras ?? [run]) {
    const revision = run.eras ? part.revision : '';
    const qualifier = run.eras ? (part.era?.era ?? part.revision) : undefined;
    for (const c of part.checks) {
      for (const r of c.results) {
        if ((r.verdict !== 'fail' && r.verdict !== 'warn') || r.expected) continue;
        const subject = r.subject === 'server' ? '' : ` [${h(r.subject, 300)}]`;
        items.push(
          `<li data-verdict="${r.verdict}"><span class="mark m-${r.verdict}">${MARK[r.verdict]}</span><a href="#${h(checkAnchor(c.id, qualifier), 300, false)}">${revision ? `${h(revision)} ` : ''}${h(c.id, 200)}${subject}</a> <span class="reason">${h(c.title, 400)}</span></li>`,
        );
      }
    }
  }
  for (const e of run.baseline?.stale ?? []) items.push(`<li class="m-fail">✗ stale baseline entry: ${h(e.why, 600)}</li>`);
  if (items.length === 0) return '';
  return `<section id="problems"><h2>Failures and warnings first (${items.length})</h2><ul>${items.join('')}</ul></section>`;
}

function checkHtml(c: CheckResult, run: RunResult, era?: string): string {
  const v = checkVerdict(c);
  const problem = v === 'fail' || v === 'warn';
  const counts = c.results.length > 1 ? ` <span class="counts-small">(${h(countsText(countVerdicts(c.results)))})</span>` : '';
  const single = c.results.length === 1 ? c.results[0]! : undefined;
  const inlineReason =
    single && (single.verdict === 'skip' || single.verdict === 'not-observed')
      ? ` <span class="reason">— ${h(VERDICT_LABEL[single.verdict])}: ${h(single.reason ?? '', 1000)}</span>`
      : '';
  const subjects = c.results.map((r) => subjectHtml(c, r, run)).join('\n');
  return [
    `<details class="check v-${v}" id="${h(checkAnchor(c.id, era), 300, false)}" data-verdict="${v}" data-check="${h(c.id, 200, false)}"${problem ? ' open' : ''}>`,
    `<summary><span class="mark m-${v}">${MARK[v]}</span><span class="id">${h(c.id, 200)}</span> <span class="title">${h(c.title, 400)}</span>${counts}${inlineReason}</summary>`,
    `<div class="spec">Spec: <a href="${h(specUrl(c.spec), 500, false)}">${h(specText(c))}</a></div>`,
    `<blockquote class="quote">${h(c.requirement)}</blockquote>`,
    subjects,
    '</details>',
  ].join('\n');
}

function subjectHtml(c: CheckResult, r: SubjectResult, run: RunResult): string {
  const v: Verdict | 'expected' = r.expected && (r.verdict === 'fail' || r.verdict === 'warn') ? 'expected' : r.verdict;
  const note = r.expected
    ? ` <span class="reason">— expected ${h(r.verdict)} (baseline: ${h(r.expected.reason, 500)})</span>`
    : r.reason
      ? ` <span class="reason">— ${h(r.reason, 2000)}</span>`
      : '';
  const findings = r.findings.map((f, i) => findingHtml(f, i, r.findings.length, run, c.requirement)).join('\n');
  // Notes: what no sentence rules but a user wants to know; never a verdict.
  const notes = r.notes?.length ? `<ul class="notes">${r.notes.map((n) => `<li>note: ${h(n, 2000)}</li>`).join('')}</ul>` : '';
  return `<div class="subject" data-subject="${h(r.subject, 300, false)}" data-verdict="${r.verdict}"><span class="mark m-${v}">${MARK[v]}</span>${h(r.subject, 300)} <span class="counts-small">${h(VERDICT_LABEL[r.verdict])}</span>${note}${notes}${findings}</div>`;
}

function findingHtml(f: Finding, i: number, n: number, run: RunResult, quoted: string): string {
  const rows: Array<[string, string]> = [
    // The check's quote is shown above; a finding's own requirement (a part's rule) is shown when it differs.
    ...(f.requirement !== quoted
      ? ([['Requirement', `<blockquote class="quote">${h(f.requirement)}</blockquote>`]] as Array<[string, string]>)
      : []),
    ['Expected', h(f.expected)],
    ['Actual', h(f.actual)],
  ];
  if (f.replay) rows.push(['Replay', `<code>${h(replayCommand(run, f.replay), 2000)}</code>`]);
  const wire = f.wire.length
    ? `<dt>Wire</dt><dd><pre class="wire">${f.wire.map((w) => h(frameText(w, WIRE_CHARS), WIRE_CHARS + 100, false)).join('\n')}</pre></dd>`
    : '';
  return `<dl class="finding">${n > 1 ? `<p><strong>Finding ${i + 1} of ${n}</strong></p>` : ''}${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}${wire}</dl>`;
}

function footer(run: RunResult): string {
  const out: string[] = [];
  const b = run.baseline;
  if (b) {
    out.push(
      `<section id="baseline"><h2>Baseline</h2><p>${h(b.path)}: ${b.expected} expected, ${b.stale.length} stale, ${b.unconfirmed.length} not confirmed.</p>`,
    );
    if (b.stale.length)
      out.push(`<ul>${b.stale.map((e) => `<li class="m-fail">stale: ${h(e.why)} (reason was: ${h(e.reason, 500)})</li>`).join('')}</ul>`);
    if (b.unconfirmed.length) out.push(`<ul>${b.unconfirmed.map((e) => `<li>${h(e.why)}</li>`).join('')}</ul>`);
    out.push('</section>');
  }
  if (run.harnessErrors.length) {
    out.push(
      `<section id="harness-errors"><h2>Harness errors</h2><ul>${run.harnessErrors.map((e) => `<li><pre>${h(e)}</pre></li>`).join('')}</ul></section>`,
    );
  }
  const stderr = run.stderr.replace(/\s+$/, '');
  if (stderr !== '') {
    const lines = safeText(stderr, { multiline: true }).split('\n').slice(-STDERR_LINES).join('\n');
    out.push(
      `<section id="stderr"><h2>Server stderr</h2><p class="reason">Attached, never judged.</p><pre>${h(lines, 200_000)}</pre></section>`,
    );
  }
  return out.join('\n');
}

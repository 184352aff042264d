/**
 * The results matrix as one self-contained HTML page (`matrix.html`: inline
 * styles and filter script, a Content-Security-Policy that loads nothing),
 * and as console text. Rows are checks grouped by area (the level and the
 * quote on hover), columns are targets (with their counts; a proxied
 * column beside its direct one), each cell a verdict linking to that
 * target's report at the check. A verdict a gateway changed is marked.
 *
 * Every string from the result goes through `safeClip` and HTML escaping.
 */
import type { MatrixCell, MatrixColumn, MatrixMove, MatrixResult, MatrixRow, MatrixVerdict } from '../model/matrix.js';
import { MATRIX_VERDICTS } from '../model/matrix.js';
import { safeClip } from './escape.js';
import { formatDuration } from './text.js';

function h(value: unknown, max = 4000): string {
  return safeClip(value, max, { multiline: true })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const MARK: Record<MatrixVerdict, string> = { pass: '✓', fail: '✗', warn: '!', skip: '-', 'not-observed': '?', expected: '~' };
const LABEL: Record<MatrixVerdict, string> = {
  pass: 'pass',
  fail: 'fail',
  warn: 'warn',
  skip: 'skip',
  'not-observed': 'not observed',
  expected: 'expected',
};

const STYLE = `
:root { --fail:#b42318; --warn:#b54708; --pass:#067647; --skip:#667085; --no:#6941c6; --exp:#475467; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 1rem 1.5rem; color:#101828; }
h1 { font-size: 1.4rem; margin: .2rem 0 .6rem; } h2 { font-size: 1.1rem; margin: 1rem 0 .4rem; }
#filters { position: sticky; top: 0; background: #fff; padding: .5rem 0; border-bottom: 1px solid #eaecf0; z-index: 2; }
#filters label { margin-right: .8rem; white-space: nowrap; }
table.matrix { border-collapse: collapse; font-size: .85rem; }
table.matrix th, table.matrix td { border: 1px solid #eaecf0; padding: .2rem .4rem; }
table.matrix thead th { position: sticky; top: 2.6rem; background: #f9fafb; vertical-align: bottom; z-index: 1; }
th.check { text-align: left; font-family: ui-monospace, monospace; font-weight: 600; white-space: nowrap; cursor: help; }
tr.area th { text-align: left; background: #f2f4f7; font-size: .95rem; }
td.cell { text-align: center; white-space: nowrap; }
td.cell a { text-decoration: none; color: inherit; display: block; }
.v-fail { color: var(--fail); font-weight: 700; } .v-warn { color: var(--warn); font-weight: 700; } .v-pass { color: var(--pass); }
.v-skip { color: var(--skip); } .v-not-observed { color: var(--no); } .v-expected { color: var(--exp); }
td.changed { background: #fef0c7; outline: 2px solid #b54708; }
.level { font-size: .75rem; color: #475467; margin-left: .3rem; }
.counts span { display: block; font-weight: 400; font-size: .75rem; }
.via { color: #b54708; font-size: .75rem; display: block; }
.era { color: #475467; font-size: .75rem; display: block; font-weight: 400; }
.hidden { display: none; }
`;

const SCRIPT = `
(function () {
  var verdicts = document.querySelectorAll('#filters input[data-verdict]');
  var area = document.getElementById('area-filter');
  var era = document.getElementById('era-filter');
  function apply() {
    var shown = {};
    verdicts.forEach(function (b) { shown[b.getAttribute('data-verdict')] = b.checked; });
    var e = era.value;
    document.querySelectorAll('[data-era]').forEach(function (el) {
      el.classList.toggle('hidden', e !== '' && el.getAttribute('data-era') !== e);
    });
    document.querySelectorAll('tr.row').forEach(function (tr) {
      var inArea = area.value === '' || tr.getAttribute('data-area') === area.value;
      var any = false;
      tr.querySelectorAll('td.cell:not(.hidden)').forEach(function (td) { if (shown[td.getAttribute('data-verdict')]) any = true; });
      tr.classList.toggle('hidden', !inArea || !any);
    });
    document.querySelectorAll('tr.area').forEach(function (tr) {
      var a = tr.getAttribute('data-area');
      var rows = document.querySelectorAll('tr.row[data-area="' + a + '"]:not(.hidden)');
      tr.classList.toggle('hidden', rows.length === 0);
    });
  }
  verdicts.forEach(function (b) { b.addEventListener('change', apply); });
  area.addEventListener('change', apply);
  era.addEventListener('change', apply);
  apply();
})();
`;

function columnHead(c: MatrixColumn): string {
  const s = c.summary;
  const counts = [
    ['pass', s.pass],
    ['fail', s.fail],
    ['warn', s.warn],
    ['skip', s.skip],
    ['not-observed', s.notObserved],
  ] as const;
  const title = `${c.transport}: ${c.command ?? c.url ?? ''}${c.via ? `\nthrough the gateway: ${c.via}` : ''}\n${c.revision}${c.era ? ` (${c.era} era)` : ''}`;
  return [
    `<th class="column" data-column="${h(c.id, 300)}" data-era="${h(c.era ?? '', 50)}" title="${h(title, 2000)}">`,
    `<a href="${h(c.reports.html, 500)}">${h(c.id, 300)}</a>`,
    c.era && !c.id.includes(`[${c.era}]`) ? `<span class="era">${h(c.era, 20)} era</span>` : '',
    c.variant === 'via' ? '<span class="via">via gateway</span>' : '',
    c.aborted !== undefined ? `<span class="v-fail" title="${h(c.aborted, 2000)}">could not run</span>` : '',
    `<span class="counts">${counts.map(([v, n]) => `<span class="v-${v}" data-count="${v}">${MARK[v]} ${n} ${LABEL[v]}</span>`).join('')}</span>`,
    '</th>',
  ].join('');
}

function cellHtml(cell: MatrixCell | undefined, column: MatrixColumn): string {
  const era = `data-era="${h(column.era ?? '', 50)}"`;
  if (!cell) return `<td class="cell none" ${era} data-verdict="none"></td>`;
  const changed = cell.direct !== undefined;
  const title = [
    `${column.id}: ${LABEL[cell.verdict]}${cell.subjects > 1 ? ` (${cell.subjects} subjects)` : ''}`,
    ...(changed ? [`the gateway changed it: directly ${LABEL[cell.direct!]}, through the gateway ${LABEL[cell.verdict]}`] : []),
    ...(cell.detail ? [cell.detail] : []),
  ].join('\n');
  return (
    `<td class="cell v-${cell.verdict}${changed ? ' changed' : ''}" ${era} data-verdict="${cell.verdict}" data-column="${h(column.id, 300)}"${changed ? ` data-direct="${cell.direct}"` : ''}>` +
    `<a href="${h(cell.href, 1000)}" title="${h(title, 2000)}">${MARK[cell.verdict]} ${LABEL[cell.verdict]}${changed ? ' Δ' : ''}</a></td>`
  );
}

function rowsHtml(m: MatrixResult): string[] {
  const byKey = new Map(m.cells.map((c) => [`${c.column}\u0000${c.check}`, c]));
  const areas = new Map<string, MatrixRow[]>();
  for (const r of m.rows) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  const out: string[] = [];
  for (const [area, rows] of areas) {
    out.push(`<tr class="area" data-area="${h(area, 200)}"><th colspan="${m.columns.length + 1}">${h(area, 200)}</th></tr>`);
    for (const r of rows) {
      const hover = `${r.level}: ${r.requirement}\n— ${r.spec.revision}/${r.spec.page}#${r.spec.section}`;
      out.push(
        `<tr class="row" data-area="${h(area, 200)}" data-check="${h(r.id, 300)}"><th class="check" title="${h(hover, 6000)}">${h(r.id, 300)}<span class="level">${h(r.level, 10)}</span></th>` +
          m.columns.map((c) => cellHtml(byKey.get(`${c.id}\u0000${r.id}`), c)).join('') +
          '</tr>',
      );
    }
  }
  return out;
}

function gatewayHtml(m: MatrixResult): string {
  if (m.gatewayChanges.length === 0) return '';
  const items = m.gatewayChanges.map(
    (g) =>
      `<li data-gateway-change="${h(g.check, 300)}"><strong>${h(g.target, 200)}${g.era ? ` [${h(g.era, 20)}]` : ''}</strong> <code>${h(g.check, 300)}</code>: directly <span class="v-${g.direct}">${LABEL[g.direct]}</span>, through the gateway <span class="v-${g.via}">${LABEL[g.via]}</span>${g.detail ? ` — ${h(g.detail, 400)}` : ''}</li>`,
  );
  return `<section id="gateway-changes"><h2>Verdicts the gateway changed (${m.gatewayChanges.length})</h2><ul>${items.join('')}</ul></section>`;
}

export function renderMatrixHtml(m: MatrixResult): string {
  const areas = [...new Set(m.rows.map((r) => r.area))];
  const eras = [...new Set(m.columns.map((c) => c.era).filter((e): e is NonNullable<typeof e> => !!e))];
  const filters = [
    '<div id="filters" role="group" aria-label="filters">Show: ',
    ...MATRIX_VERDICTS.map(
      (v) => `<label><input type="checkbox" data-verdict="${v}" checked> <span class="v-${v}">${MARK[v]} ${LABEL[v]}</span></label>`,
    ),
    `<label>Area <select id="area-filter"><option value="">all</option>${areas.map((a) => `<option value="${h(a, 200)}">${h(a, 200)}</option>`).join('')}</select></label>`,
    `<label>Era <select id="era-filter"><option value="">all</option>${eras.map((e) => `<option value="${e}">${e}</option>`).join('')}</select></label>`,
    '</div>',
  ];
  const spec = m.spec
    ? `<p id="spec">Judged against ${m.spec.dir ? `the spec at <code>${h(m.spec.dir, 500)}</code>` : ''}${m.spec.schema ? ` with the schema <code>${h(m.spec.schema, 500)}</code>` : ''}; verdicts withheld (their quote is gone): ${m.spec.withheld.length ? m.spec.withheld.map((w) => `<code>${h(w, 300)}</code>`).join(', ') : 'none'}.</p>`
    : '';
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(m.tool.name, 100)}: results matrix (${m.columns.length} columns)</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${h(m.tool.name, 100)} ${h(m.tool.version, 50)} — results matrix</h1>`,
    `<p>${m.columns.length} columns, ${m.rows.length} checks; started ${h(m.startedAt, 50)}, took ${h(formatDuration(m.durationMs), 50)}. Hover a check for its level and quote, a cell for its finding; a cell links to the target's report at the check.</p>`,
    spec,
    gatewayHtml(m),
    ...filters,
    `<table class="matrix"><thead><tr><th>check</th>${m.columns.map(columnHead).join('')}</tr></thead><tbody>`,
    ...rowsHtml(m),
    '</tbody></table>',
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** The console's view of a matrix: each column's counts, then the gateway's changes. */
export function renderMatrixText(m: MatrixResult): string {
  const lines = m.columns.map((c) => {
    const s = c.summary;
    const state =
      c.aborted !== undefined
        ? `could not run: ${safeClip(c.aborted, 300)}`
        : `${s.pass} pass, ${s.fail} fail, ${s.warn} warn, ${s.skip} skip, ${s.notObserved} not observed`;
    return `  ${safeClip(c.id, 200)}: ${state}`;
  });
  const changes = m.gatewayChanges.map(
    (g) =>
      `  ${safeClip(g.target, 200)}${g.era ? ` [${g.era}]` : ''} ${safeClip(g.check, 200)}: directly ${LABEL[g.direct]}, via the gateway ${LABEL[g.via]}`,
  );
  return [
    `Results matrix: ${m.columns.length} columns, ${m.rows.length} checks, ${formatDuration(m.durationMs)}`,
    ...lines,
    ...(changes.length ? [`Verdicts the gateway changed (${changes.length}):`, ...changes] : []),
    '',
  ].join('\n');
}

/** `matrix --compare`: the verdicts that moved, worst first. */
export function renderMoves(moves: readonly MatrixMove[]): string {
  if (moves.length === 0) return 'No verdict moved.\n';
  const label = (v?: MatrixVerdict) => (v ? LABEL[v] : '(absent)');
  const out = moves.map(
    (m) =>
      `${m.worse ? 'worse ' : 'better'}  ${safeClip(m.column, 200)}  ${safeClip(m.check, 200)}: ${label(m.before)} → ${label(m.after)}${m.detail ? `\n        ${safeClip(m.detail, 300)}` : ''}`,
  );
  return `${out.join('\n')}\n${moves.length} verdicts moved, ${moves.filter((m) => m.worse).length} worse.\n`;
}

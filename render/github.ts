/**
 * GitHub Actions output: workflow-command annotations (an error for each
 * failure, a warning for each warning) and a Markdown step summary (the
 * counts, then each failure and warning with its requirement, expected,
 * actual and a link to the spec section on the published spec site).
 *
 * Results the baseline accepts are listed in the summary, never annotated.
 * Everything a server sent is escaped for the medium: workflow-command
 * escaping for annotations, HTML and Markdown escaping for the summary.
 */
import type { CheckResult, RunResult, SubjectResult } from '../model/results.js';
import { safeClip } from './escape.js';
import { countRun, COUNT_LABELS, gateVerdict } from '../model/results.js';
import { configFileText, leftOutCount, leftOutLines, resultText, specText, specUrl } from './text.js';

/** GitHub shows at most a few annotations per step; more are noise. */
const MAX_ANNOTATIONS = 50;
const MAX_SUMMARY_ITEMS = 100;
const FIELD_CHARS = 1500;

/** Workflow-command data: %, CR and LF escaped. */
function cmdData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow-command property values: also `:` and `,`. */
function cmdProperty(text: string): string {
  return cmdData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Problem {
  check: CheckResult;
  r: SubjectResult;
  revision?: string;
}

function problems(run: RunResult): Problem[] {
  const out: Problem[] = [];
  for (const part of run.eras ?? [run]) {
    for (const check of part.checks) {
      for (const r of check.results) {
        if (r.verdict === 'fail' || r.verdict === 'warn') out.push({ check, r, ...(run.eras ? { revision: part.revision } : {}) });
      }
    }
  }
  return out;
}

function label(p: Problem): string {
  return `${p.revision ? `${p.revision} ` : ''}${p.check.id}${p.r.subject === 'server' ? '' : ` [${p.r.subject}]`}`;
}

/** `::error title=…::…` lines, one per unexpected fail and warn (and per stale baseline entry). */
export function renderAnnotations(run: RunResult): string {
  const lines: string[] = [];
  for (const p of problems(run)) {
    if (p.r.expected) continue;
    const kind = p.r.verdict === 'fail' || run.strict ? 'error' : 'warning';
    const f = p.r.findings[0];
    const message = [
      `${p.r.verdict === 'fail' ? 'FAIL' : 'WARN'} ${label(p)}: ${p.check.title}`,
      `Requirement: ${f?.requirement ?? p.check.requirement}`,
      ...(f ? [`Expected: ${f.expected}`, `Actual: ${f.actual}`] : p.r.reason ? [`Note: ${p.r.reason}`] : []),
      `Spec: ${specText(p.check)} ${specUrl(p.check.spec)}`,
    ]
      .map((l) => safeClip(l, FIELD_CHARS))
      .join('\n');
    lines.push(`::${kind} title=${cmdProperty(safeClip(`mcp-conformance ${label(p)}`, 300))}::${cmdData(message)}`);
  }
  for (const e of run.baseline?.stale ?? []) {
    lines.push(
      `::error title=${cmdProperty('mcp-conformance stale baseline entry')}::${cmdData(safeClip(`${e.why} (${run.baseline!.path})`, FIELD_CHARS))}`,
    );
  }
  if (run.incomplete !== undefined)
    lines.push(
      `::error title=${cmdProperty('mcp-conformance incomplete merge')}::${cmdData(safeClip(`INCOMPLETE (not a pass): ${run.incomplete}`, FIELD_CHARS))}`,
    );
  if (run.aborted !== undefined)
    lines.push(
      `::error title=${cmdProperty('mcp-conformance run aborted')}::${cmdData(safeClip(run.aborted, FIELD_CHARS, { multiline: true }))}`,
    );
  const shown = lines.slice(0, MAX_ANNOTATIONS);
  if (lines.length > shown.length)
    shown.push(
      `::notice title=mcp-conformance::${lines.length - shown.length} more annotations left out; see the step summary and the reports`,
    );
  return shown.length ? shown.join('\n') + '\n' : '';
}

/** Text for Markdown: HTML and Markdown specials escaped, newlines as <br>. */
function md(value: unknown, max = FIELD_CHARS): string {
  return safeClip(value, max, { multiline: true })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_{}[\]()#+!|~-])/g, '\\$1')
    .replace(/\n/g, '<br>');
}

/** The configuration file and what the run left out (each pattern with its flag or file), for the step summary. */
function leftOutSummary(run: RunResult): string[] {
  const out: string[] = [];
  const config = configFileText(run);
  if (config !== undefined) out.push(`Config: ${md(config, 600)}`, '');
  const lines = leftOutLines(run);
  if (lines.length === 0) return out;
  const n = leftOutCount(run);
  out.push(`**Left out:** ${n} check${n === 1 ? '' : 's'} (not run, not counted)`, '', ...lines.map((l) => `- ${md(l)}`), '');
  return out;
}

/** The step summary: counts, then each failure and warning with its spec link. */
export function renderStepSummary(run: RunResult): string {
  const s = countRun(run);
  const icon = { passed: '✅', failed: '❌', error: '⛔', incomplete: '⛔' }[gateVerdict(run)];
  const word = `${icon} ${md(resultText(run), 800)}`;
  const where = run.target.transport === 'http' ? run.target.url : run.target.command;
  const out: string[] = [
    `## mcp-conformance: ${word}`,
    '',
    `Target: ${md(run.target.transport)} \`${safeClip(where ?? '', 300).replace(/`/g, "'")}\` · revision ${md(run.revision)}${run.seed !== undefined ? ` · seed ${run.seed}` : ''}`,
    '',
    `| ${COUNT_LABELS.map(([, label]) => label).join(' | ')} |`,
    `| ${COUNT_LABELS.map(() => '---:').join(' | ')} |`,
    `| ${COUNT_LABELS.map(([k]) => s[k]).join(' | ')} |`,
    '',
  ];
  if (run.incomplete !== undefined) out.push(`**Incomplete:** ${md(run.incomplete)}`, '');
  if (run.aborted !== undefined) out.push(`**Aborted:** ${md(run.aborted)}`, '');
  out.push(...leftOutSummary(run));
  const list = problems(run);
  const sections: Array<[string, Problem[]]> = [
    ['Failures', list.filter((p) => !p.r.expected && (p.r.verdict === 'fail' || (run.strict && p.r.verdict === 'warn')))],
    ['Warnings', list.filter((p) => !p.r.expected && p.r.verdict === 'warn' && !run.strict)],
    ['Expected (in the baseline)', list.filter((p) => p.r.expected)],
  ];
  let items = 0;
  for (const [title, group] of sections) {
    if (group.length === 0) continue;
    out.push(`### ${title} (${group.length})`, '');
    for (const p of group) {
      if (items++ >= MAX_SUMMARY_ITEMS) {
        out.push(`… ${list.length - MAX_SUMMARY_ITEMS} more: see the reports.`, '');
        break;
      }
      const f = p.r.findings[0];
      out.push(`#### ${p.r.verdict === 'fail' ? '✗' : '!'} \`${label(p).replace(/`/g, "'")}\` — ${md(p.check.title, 300)}`);
      out.push('');
      out.push(`> ${md(f?.requirement ?? p.check.requirement)}`);
      out.push('');
      if (p.r.expected) out.push(`- **Baseline reason:** ${md(p.r.expected.reason, 500)}`);
      if (f) out.push(`- **Expected:** ${md(f.expected)}`, `- **Actual:** ${md(f.actual)}`);
      else if (p.r.reason) out.push(`- **Note:** ${md(p.r.reason)}`);
      if (p.r.findings.length > 1) out.push(`- and ${p.r.findings.length - 1} more finding(s) in the reports`);
      out.push(`- **Spec:** [${md(specText(p.check), 300)}](${specUrl(p.check.spec)})`);
      out.push('');
    }
  }
  const b = run.baseline;
  if (b && b.stale.length) {
    out.push(`### Stale baseline entries (${b.stale.length})`, '', ...b.stale.map((e) => `- ${md(e.why, 600)}`), '');
  }
  return out.join('\n') + '\n';
}

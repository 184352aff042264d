/**
 * Human-readable report for the terminal.
 *
 * Pure: takes the run and options, returns the text. The CLI decides about
 * colour (off when NO_COLOR is set or stdout is not a TTY). Every string in
 * the result model goes through `safeText` before it is printed, so a server
 * cannot smuggle escape sequences, carriage returns or bidi overrides into
 * the user's terminal; the only control characters in the output are the
 * newlines and (with `color`) the SGR sequences added here.
 */
import { heldBackLine } from './held-back.js';
import type { CheckResult, Finding, RunResult, SubjectResult, Verdict } from '../model/results.js';
import type { Era } from '../model/wire.js';
import { countRun, gateVerdict, type GateVerdict } from '../model/results.js';
import { safeClip, safeText } from './escape.js';
import {
  LEGEND,
  configFileText,
  leftOutCount,
  leftOutLines,
  VERDICT_LABEL,
  countVerdicts,
  countsText,
  formatDuration,
  frameText,
  lastFrames,
  overallVerdict,
  replayCommand,
  resultText,
  runCountsText,
  specText,
} from './text.js';

export interface ConsoleOptions {
  /** Emit ANSI SGR colour codes. */
  color: boolean;
  /** Show passing subjects, notes, details, full wire excerpts and stderr, and the other era's skips one by one. */
  verbose?: boolean;
  /** Where the full reports go (the recap names them). */
  reports?: string[];
  /** false: no recap (each era of `--spec all`: the combined result ends with one recap). */
  recap?: boolean;
}

/** Live lines leave out replay commands (the finished, redacted run prints them at the end). */
interface RenderFlags {
  replay: boolean;
}

/** Wire frames shown per finding (verbose: all). */
const WIRE_FRAMES = 6;
/** Characters of frame text shown per frame. */
const WIRE_CHARS = 200;
const WIRE_CHARS_VERBOSE = 2000;
/** Characters shown of a requirement / expected / actual value. */
const FIELD_CHARS = 600;
const FIELD_CHARS_VERBOSE = 8000;
/** Skipped / not-observed subjects named per reason before `+N more`. */
const SUBJECT_NAMES = 5;
/** stderr lines shown when a run aborted (verbose: up to STDERR_LINES_VERBOSE). */
const STDERR_LINES = 20;
const STDERR_LINES_VERBOSE = 500;

type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta';
const SGR: Record<Style, string> = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
};

type Paint = (text: string, ...styles: Style[]) => string;

function painter(color: boolean): Paint {
  if (!color) return (text) => text;
  return (text, ...styles) => (styles.length === 0 || text === '' ? text : `\x1b[${styles.map((s) => SGR[s]).join(';')}m${text}\x1b[0m`);
}

const MARK: Record<Verdict, string> = {
  pass: '✓',
  fail: '✗',
  warn: '!',
  skip: '-',
  'not-observed': '?',
};

const VERDICT_STYLE: Record<Verdict, Style[]> = {
  pass: ['green'],
  fail: ['red', 'bold'],
  warn: ['yellow', 'bold'],
  skip: ['dim'],
  'not-observed': ['magenta'],
};

const pad = (n: number): string => ' '.repeat(n);

/** A reason this long is printed once; later checks with the same reason refer back to the first. */
const LONG_REASON = 120;

/** What one report remembers between checks: the area printed last and the long reasons already shown. */
interface ConsoleState extends RenderFlags {
  area?: string;
  reasons: Map<string, string>;
  /** The era the run speaks: the other era's checks are skipped, and collapse to one summary line unless verbose. */
  era?: Era;
}

export function renderConsole(run: RunResult, opts: ConsoleOptions): string {
  if (run.eras) return renderEras(run, opts);
  const paint = painter(opts.color);
  const verbose = opts.verbose === true;
  const out: string[] = [];
  const state: ConsoleState = { reasons: new Map(), replay: true, ...(run.era ? { era: run.era.era } : {}) };

  renderHeader(run, paint, out);
  for (const check of run.checks) renderCheckInArea(check, paint, verbose, out, run, state);
  renderFooter(run, paint, opts, out);
  return out.join('\n') + '\n';
}

/**
 * The console report in pieces, for a live run: `check()` gives each
 * check's lines as its result arrives (with its area's heading when the area
 * changes), `end()` the header rows and the summary once the run is over.
 */
export function liveConsole(opts: ConsoleOptions) {
  const paint = painter(opts.color);
  const verbose = opts.verbose === true;
  const state: ConsoleState = { reasons: new Map(), replay: false };
  return {
    start(version: string): string {
      return `${paint(`mcp-conformance ${safeText(version)}`, 'bold')}: running checks…\n`;
    },
    /** One check's lines; `era`: the era the run speaks (its other era's skips collapse into the summary). */
    check(check: CheckResult, era?: Era): string {
      const out: string[] = [];
      if (era) state.era = era;
      renderCheckInArea(check, paint, verbose, out, { invocation: [], target: { transport: 'stdio' } } as unknown as RunResult, state);
      return out.join('\n') + '\n';
    },
    end(run: RunResult): string {
      const out: string[] = [];
      for (const part of run.eras ?? [run]) renderReplays(part, paint, out);
      if (run.eras) return `${out.join('\n')}\n${renderEras(run, opts, false)}`;
      out.push('');
      renderHeader(run, paint, out);
      renderFooter(run, paint, opts, out);
      return out.join('\n') + '\n';
    },
  };
}

/** The replay command of every generated case that failed or warned. */
function renderReplays(run: RunResult, paint: Paint, out: string[]): void {
  const lines: string[] = [];
  for (const c of run.checks) {
    for (const r of c.results) {
      for (const f of r.findings)
        if (f.replay) lines.push(`  ${safeText(c.id)} [${safeClip(r.subject, 200)}]: ${replayCommand(run, f.replay)}`);
    }
  }
  if (lines.length === 0) return;
  out.push('', paint('Replay (each command reproduces one generated case):', 'bold'), ...lines);
}

/** A check of the era the run does not speak, skipped for that alone. */
function otherEra(check: CheckResult, era: Era | undefined): boolean {
  return era !== undefined && !check.revisions.includes(era) && check.results.every((r) => r.verdict === 'skip');
}

function renderCheckInArea(check: CheckResult, paint: Paint, verbose: boolean, out: string[], run: RunResult, state: ConsoleState): void {
  if (!verbose && otherEra(check, state.era)) return;
  if (check.area !== state.area) {
    state.area = check.area;
    out.push('');
    out.push(paint(safeText(check.area), 'bold'));
  }
  renderCheck(check, paint, verbose, out, run, state);
}

/** `--spec all`: each era's complete report in turn, then the combined result. */
function renderEras(run: RunResult, opts: ConsoleOptions, checks = true): string {
  const paint = painter(opts.color);
  const parts = (run.eras ?? []).map((era) => {
    const title = `━━ ${safeText(era.revision)}${era.era ? ` (${safeText(era.era.era)} era)` : ''} ━━`;
    if (checks) return `${paint(title, 'bold')}\n${renderConsole(era, { ...opts, recap: false })}`;
    // Live: the checks were printed as they ran; each era's header and summary remain.
    const out: string[] = [];
    renderHeader(era, paint, out);
    renderFooter(era, paint, { ...opts, recap: false }, out);
    return `${paint(title, 'bold')}\n${out.join('\n')}\n`;
  });
  const lines = [paint('━━ all eras ━━', 'bold')];
  renderLeftOut(run, paint, lines);
  const held = heldBackLine(run);
  lines.push(
    `${paint('Summary:', 'bold')} ${runCountsText(countRun(run))}  (${countRun(run).total} results, ${(run.eras ?? []).length} eras, ${formatDuration(run.durationMs)})`,
    ...(held ? [paint(safeText(held), 'magenta')] : []),
    ...recapLines(run, paint, opts),
    resultLine(run, paint),
  );
  return `${parts.join('\n')}\n${lines.join('\n')}\n`;
}

function renderHeader(run: RunResult, paint: Paint, out: string[]): void {
  out.push(paint(`${safeText(run.tool.name)} ${safeText(run.tool.version)}`, 'bold'));
  const where = run.target.transport === 'http' ? run.target.url : run.target.command;
  const rows: Array<[string, string]> = [
    ['Target', `${safeText(run.target.transport)}  ${where !== undefined ? safeText(where) : '(unknown)'}`],
    ['Revision', safeText(run.revision) + (run.era ? paint(`  (${eraText(run)})`, 'dim') : '')],
  ];
  if (run.server && (run.server.name !== undefined || run.server.version !== undefined)) {
    const name = run.server.name !== undefined ? safeClip(run.server.name, 200) : '(unnamed)';
    const version = run.server.version !== undefined ? ' ' + safeClip(run.server.version, 100) : '';
    rows.push(['Server', name + version]);
  } else {
    rows.push(['Server', paint('(did not identify itself)', 'dim')]);
  }
  if (run.dualEra) rows.push(['Eras', `both (${safeClip(run.dualEra.hint, 400)})`]);
  if (run.seed !== undefined) rows.push(['Seed', safeText(run.seed)]);
  if (run.strict) rows.push(['Mode', 'strict (warnings count as failures)']);
  for (const [label, value] of rows) out.push(`  ${(label + ':').padEnd(10)} ${value}`);
  renderLeftOut(run, paint, out);
}

/** The configuration file the run read, and the checks it left out (with the flag or file that did). */
function renderLeftOut(run: RunResult, paint: Paint, out: string[]): void {
  const config = configFileText(run);
  if (config !== undefined) out.push(`  ${'Config:'.padEnd(10)} ${config}`);
  const lines = leftOutLines(run);
  if (lines.length === 0) return;
  const n = leftOutCount(run);
  out.push(`  ${'Left out:'.padEnd(10)} ${n} check${n === 1 ? '' : 's'} (not run, not counted)`);
  for (const line of lines) out.push(paint(`    ${line}`, 'dim'));
}

/** `legacy era, detected: …` — how the run came to speak its era. */
function eraText(run: RunResult): string {
  const e = run.era!;
  const negotiated =
    e.negotiatedVersion && e.negotiatedVersion !== run.revision ? `; the server negotiated ${safeClip(e.negotiatedVersion, 40)}` : '';
  return `${safeText(e.era)} era, ${e.how === 'detected' ? `detected: ${safeClip(e.evidence, 300)}` : safeClip(e.evidence, 300)}${negotiated}`;
}

function verdictMark(v: Verdict, paint: Paint): string {
  return paint(MARK[v], ...VERDICT_STYLE[v]);
}

/** `— skip: reason` in dim, for the end of a line; a long reason already shown refers back to where. */
function reasonSuffix(r: SubjectResult, paint: Paint, state?: ConsoleState, checkId?: string): string {
  let reason = r.reason !== undefined && r.reason !== '' ? `: ${safeClip(r.reason, FIELD_CHARS)}` : '';
  if (state && checkId && r.reason && r.reason.length >= LONG_REASON) {
    const first = state.reasons.get(r.reason);
    if (first !== undefined && first !== checkId) reason = `: the same reason as ${safeText(first)} above`;
    else state.reasons.set(r.reason, checkId);
  }
  return paint(`— ${VERDICT_LABEL[r.verdict]}${reason}`, 'dim');
}

/** Every fail and warn of these results is in the baseline. */
function allExpected(results: readonly SubjectResult[]): boolean {
  const problems = results.filter((r) => r.verdict === 'fail' || r.verdict === 'warn');
  return problems.length > 0 && problems.every((r) => r.expected);
}

function expectedSuffix(r: SubjectResult, paint: Paint): string {
  return paint(`— expected ${r.verdict} (baseline: ${safeClip(r.expected?.reason ?? '', 300)})`, 'dim');
}

function renderCheck(check: CheckResult, paint: Paint, verbose: boolean, out: string[], run: RunResult, state: ConsoleState): void {
  renderCheckResults(check, paint, verbose, out, run, state);
  renderNotes(check.results, paint, out);
}

/** Every subject's notes (never a verdict), each once, under the check: `ⓘ subject: text`. */
function renderNotes(results: SubjectResult[], paint: Paint, out: string[]): void {
  const seen = new Set<string>();
  for (const r of results) {
    for (const note of r.notes ?? []) {
      const line = `${r.subject === 'server' ? '' : `${safeClip(r.subject, 100)}: `}${safeClip(note, FIELD_CHARS)}`;
      if (seen.has(line)) continue;
      seen.add(line);
      out.push(`${pad(6)}${paint(`ⓘ note: ${line}`, 'dim')}`);
    }
  }
}

function renderCheckResults(check: CheckResult, paint: Paint, verbose: boolean, out: string[], run: RunResult, state: ConsoleState): void {
  const results = check.results;
  const head = `${safeText(check.id)}  ${safeText(check.title)}`;

  if (results.length === 0) {
    out.push(`  ${verdictMark('skip', paint)} ${head} ${paint('— no results recorded', 'dim')}`);
    return;
  }

  const verdict = overallVerdict(results);
  const expected = allExpected(results);
  const isProblem = (verdict === 'fail' || verdict === 'warn') && !expected;

  if (results.length === 1) {
    const r = results[0];
    const subject = r.subject === 'server' ? '' : ` [${safeClip(r.subject, 200)}]`;
    const line = `  ${expected ? paint('~', 'dim') : verdictMark(r.verdict, paint)} ${head}${subject}`;
    if (r.verdict === 'skip' || r.verdict === 'not-observed') {
      out.push(`${line} ${reasonSuffix(r, paint, state, check.id)}`);
      return;
    }
    if (expected) {
      out.push(`${line} ${expectedSuffix(r, paint)}`);
      return;
    }
    out.push(line);
    if (isProblem) {
      out.push(`${pad(6)}${paint('Spec:', 'dim')} ${specText(check)}`);
      renderSubjectBody(r, paint, verbose, 6, out, run, state);
    } else if (verbose) {
      renderVerboseExtras(r, paint, 6, out);
    }
    return;
  }

  // Several subjects: counts on the line, problem subjects underneath.
  const counts = countVerdicts(results);
  out.push(`  ${expected ? paint('~', 'dim') : verdictMark(verdict, paint)} ${head}  ${paint(`(${countsText(counts)})`, 'dim')}`);
  if (isProblem) out.push(`${pad(6)}${paint('Spec:', 'dim')} ${specText(check)}`);

  for (const r of results) {
    if (r.verdict !== 'fail' && r.verdict !== 'warn') continue;
    if (r.expected) {
      out.push(`${pad(6)}${paint('~', 'dim')} ${safeClip(r.subject, 200)} ${expectedSuffix(r, paint)}`);
      continue;
    }
    out.push(`${pad(6)}${verdictMark(r.verdict, paint)} ${safeClip(r.subject, 200)}`);
    renderSubjectBody(r, paint, verbose, 10, out, run, state);
  }

  if (verbose) {
    for (const r of results) {
      if (r.verdict === 'fail' || r.verdict === 'warn') continue;
      const suffix = r.verdict === 'pass' ? '' : ` ${reasonSuffix(r, paint)}`;
      out.push(`${pad(6)}${verdictMark(r.verdict, paint)} ${safeClip(r.subject, 200)}${suffix}`);
      if (r.verdict === 'pass') renderVerboseExtras(r, paint, 10, out);
    }
  } else {
    // Skipped / not-observed subjects, one line per distinct reason.
    const groups = new Map<string, { r: SubjectResult; subjects: string[] }>();
    for (const r of results) {
      if (r.verdict !== 'skip' && r.verdict !== 'not-observed') continue;
      const key = `${r.verdict}\u0000${r.reason ?? ''}`;
      const g = groups.get(key);
      if (g) g.subjects.push(r.subject);
      else groups.set(key, { r, subjects: [r.subject] });
    }
    for (const { r, subjects } of groups.values()) {
      const names = subjects.slice(0, SUBJECT_NAMES).map((s) => safeClip(s, 100));
      const more = subjects.length > SUBJECT_NAMES ? ` +${subjects.length - SUBJECT_NAMES} more` : '';
      out.push(`${pad(6)}${verdictMark(r.verdict, paint)} ${names.join(', ')}${more} ${reasonSuffix(r, paint, state, check.id)}`);
    }
  }
}

/** Findings of a fail / warn subject, indented by `indent`. */
function renderSubjectBody(
  r: SubjectResult,
  paint: Paint,
  verbose: boolean,
  indent: number,
  out: string[],
  run: RunResult,
  flags: RenderFlags,
): void {
  const ind = pad(indent);
  if (r.reason !== undefined && r.reason !== '') {
    out.push(`${ind}${paint('Note:', 'dim')} ${safeClip(r.reason, verbose ? FIELD_CHARS_VERBOSE : FIELD_CHARS)}`);
  }
  if (r.findings.length === 0) {
    out.push(`${ind}${paint('(no finding recorded)', 'dim')}`);
  }
  r.findings.forEach((f, i) => {
    if (r.findings.length > 1) out.push(`${ind}${paint(`Finding ${i + 1} of ${r.findings.length}:`, 'bold')}`);
    renderFinding(f, paint, verbose, indent, out, run, flags);
  });
  if (verbose && r.details !== undefined) {
    out.push(`${ind}${paint('Details:', 'dim')} ${safeClip(r.details, FIELD_CHARS_VERBOSE)}`);
  }
}

function renderFinding(
  f: Finding,
  paint: Paint,
  verbose: boolean,
  indent: number,
  out: string[],
  run: RunResult,
  flags: RenderFlags,
): void {
  const ind = pad(indent);
  const max = verbose ? FIELD_CHARS_VERBOSE : FIELD_CHARS;
  const field = (label: string, value: string): void => {
    // Multi-line values keep their breaks; each continuation line is indented
    // under the value so it cannot pass for a line of the report itself.
    const lines = safeClip(value, max, { multiline: true }).split('\n');
    const labelText = (label + ':').padEnd(13);
    out.push(`${ind}${paint(labelText, 'bold')}${lines[0]}`);
    for (const line of lines.slice(1)) out.push(`${ind}${pad(13)}${line}`);
  };
  field('Requirement', f.requirement);
  field('Expected', f.expected);
  field('Actual', f.actual);
  if (f.replay && flags.replay) field('Replay', replayCommand(run, f.replay));

  if (f.wire.length > 0) {
    const { shown, omitted } = lastFrames(f.wire, verbose ? Infinity : WIRE_FRAMES);
    const label = omitted > 0 ? `Wire (last ${shown.length} of ${f.wire.length} frames):` : 'Wire:';
    out.push(`${ind}${paint(label, 'bold')}`);
    for (const frame of shown) {
      const text = frameText(frame, verbose ? WIRE_CHARS_VERBOSE : WIRE_CHARS);
      out.push(`${ind}  ${frame.dir === 'out' ? paint(text, 'cyan') : text}`);
    }
  }
}

function renderVerboseExtras(r: SubjectResult, paint: Paint, indent: number, out: string[]): void {
  const ind = pad(indent);
  if (r.reason !== undefined && r.reason !== '') {
    out.push(`${ind}${paint(`Note: ${safeClip(r.reason, FIELD_CHARS_VERBOSE)}`, 'dim')}`);
  }
  if (r.details !== undefined) {
    out.push(`${ind}${paint(`Details: ${safeClip(r.details, FIELD_CHARS_VERBOSE)}`, 'dim')}`);
  }
}

/** What the pieces of the summary get: the run, the painter and the console options. */
interface SummaryContext {
  run: RunResult;
  paint: Paint;
  opts: ConsoleOptions;
}

/**
 * The summary at the end of a console report, piece by piece: each returns
 * its lines (none when it has nothing to say). To add a line to the summary,
 * add a piece here, in the place it should print.
 */
const SUMMARY_PARTS: Array<(c: SummaryContext) => string[]> = [
  otherEraLines,
  countLines,
  ({ run, paint }) => depthLines(run, paint),
  ({ run, paint }) => baselineLines(run, paint),
  ({ run, paint }) => heldBackLines(run, paint),
  warningLines,
  abortedLines,
  harnessErrorLines,
  stderrLines,
  ({ run, paint, opts }) => recapLines(run, paint, opts),
  ({ run, paint }) => [resultLine(run, paint)],
];

function renderFooter(run: RunResult, paint: Paint, opts: ConsoleOptions, out: string[]): void {
  out.push('');
  for (const part of SUMMARY_PARTS) out.push(...part({ run, paint, opts }));
}

/** `56 checks of the 2025-11-25 era skipped (--verbose lists them)`, when they were not listed. */
function otherEraLines({ run, paint, opts }: SummaryContext): string[] {
  if (opts.verbose || !run.era) return [];
  const skipped = run.checks.filter((c) => otherEra(c, run.era!.era));
  if (skipped.length === 0) return [];
  const revisions = [...new Set(skipped.map((c) => safeText(c.spec.revision)))].join(', ');
  const other = run.era.era === 'modern' ? 'legacy' : 'modern';
  const n = `${skipped.length} check${skipped.length === 1 ? '' : 's'}`;
  return [
    paint(`${n} of the ${revisions} (${other}) era skipped: this run speaks ${safeText(run.revision)} (--verbose lists them)`, 'dim'),
  ];
}

const COUNT_STYLE: Partial<Record<keyof ReturnType<typeof countRun>, Style[]>> = {
  pass: ['green'],
  fail: ['red', 'bold'],
  warn: ['yellow', 'bold'],
  stale: ['red', 'bold'],
  notObserved: ['magenta'],
};

function countLines({ run, paint }: SummaryContext): string[] {
  const c = countRun(run);
  const parts = runCountsText(c)
    .split(', ')
    .map((text, i) => {
      const key = (['pass', 'fail', 'warn', 'expected', 'stale', 'skip', 'notObserved'] as const)[i]!;
      const style: Style[] = (c[key] ? COUNT_STYLE[key] : undefined) ?? ['dim'];
      return paint(text, ...style);
    });
  const lines = [
    `${paint('Summary:', 'bold')} ${parts.join(', ')}  (${c.total} results, ${run.checks.length} checks, ${formatDuration(run.durationMs)})`,
  ];
  if (c.total > 0) lines.push(paint(`Legend: ${LEGEND}`, 'dim'));
  return lines;
}

function warningLines({ run, paint }: SummaryContext): string[] {
  const n = countRun(run).warn;
  const s = n === 1 ? '' : 's';
  if (n > 0 && run.strict) return [paint(`--strict: ${n} warning${s} counted as failure${s}.`, 'yellow')];
  if (n > 0) return [paint(`${n} warning${s} not counted as failure${s} (use --strict to count them).`, 'dim')];
  return run.strict ? [paint('--strict: warnings count as failures.', 'dim')] : [];
}

function abortedLines({ run, paint }: SummaryContext): string[] {
  if (run.aborted === undefined) return [];
  const lines = safeClip(run.aborted, 2000, { multiline: true }).split('\n');
  return [paint(`ABORTED: ${lines[0]}`, 'red', 'bold'), ...lines.slice(1).map((line) => `         ${line}`)];
}

function harnessErrorLines({ run, paint, opts }: SummaryContext): string[] {
  if (run.harnessErrors.length === 0) return [];
  const out = [paint(`Harness errors (${run.harnessErrors.length}):`, 'red', 'bold')];
  for (const e of run.harnessErrors) {
    const lines = safeClip(e, opts.verbose ? FIELD_CHARS_VERBOSE : 2000, { multiline: true }).split('\n');
    out.push(`  - ${lines[0]}`, ...lines.slice(1).map((line) => `    ${line}`));
  }
  return out;
}

function stderrLines({ run, paint, opts }: SummaryContext): string[] {
  const stderr = run.stderr.replace(/\s+$/, '');
  if (stderr === '' || (!opts.verbose && run.aborted === undefined)) return [];
  const all = safeText(stderr, { multiline: true }).split('\n');
  const lines = all.slice(-(opts.verbose ? STDERR_LINES_VERBOSE : STDERR_LINES));
  const label = lines.length < all.length ? `Server stderr (last ${lines.length} of ${all.length} lines):` : 'Server stderr:';
  return [paint(label, 'bold'), ...lines.map((line) => `  ${paint('│', 'dim')} ${safeClip(line, 1000)}`)];
}

/** Recap lines shown before `+N more`. */
const RECAP_LINES = 40;

/**
 * The recap of a run with problems: each unexpected failure and warning (id,
 * subject, title: one line each), each stale baseline entry, what an
 * incomplete merge lacks, and where the full reports are.
 */
function recapLines(run: RunResult, paint: Paint, opts: ConsoleOptions): string[] {
  if (opts.recap === false) return [];
  const items: string[] = [];
  for (const part of run.eras ?? [run]) {
    const era = run.eras ? `${safeText(part.revision)} ` : '';
    for (const c of part.checks) {
      for (const r of c.results) {
        if ((r.verdict !== 'fail' && r.verdict !== 'warn') || r.expected) continue;
        const subject = r.subject === 'server' ? '' : ` [${safeClip(r.subject, 120)}]`;
        items.push(`  ${verdictMark(r.verdict, paint)} ${era}${safeText(c.id)}${subject}  ${paint(safeClip(c.title, 160), 'dim')}`);
      }
    }
  }
  for (const e of run.baseline?.stale ?? []) items.push(`  ${paint('✗', 'red', 'bold')} stale baseline entry: ${safeClip(e.why, 300)}`);
  if (run.incomplete !== undefined) items.push(`  ${paint('✗', 'red', 'bold')} incomplete: ${safeClip(run.incomplete, 600)}`);
  if (items.length === 0) return [];
  const shown = items.slice(0, RECAP_LINES);
  if (items.length > shown.length) shown.push(`  … and ${items.length - shown.length} more (see the reports)`);
  const reports = (opts.reports ?? []).filter((p) => p !== '');
  return [
    '',
    paint('Recap (unexpected failures and warnings, stale baseline entries):', 'bold'),
    ...shown,
    ...(reports.length ? [`Full reports: ${reports.map((p) => safeText(p)).join(', ')}`] : []),
  ];
}

const RESULT_STYLE: Record<GateVerdict, Style[]> = {
  passed: ['green', 'bold'],
  failed: ['red', 'bold'],
  error: ['red', 'bold'],
  incomplete: ['red', 'bold'],
};

/** `Result: FAILED (1 fail, 1 stale baseline entry)`: the verdict with its cause, last. */
function resultLine(run: RunResult, paint: Paint): string {
  return `${paint('Result:', 'bold')} ${paint(resultText(run), ...RESULT_STYLE[gateVerdict(run)])}`;
}

/** "Depth: judged N of M applicable checks", what would let the rest run, and the calls the suite chose on its own. */
function depthLines(run: RunResult, paint: Paint): string[] {
  const out: string[] = [];
  const d = run.depth;
  if (d) {
    const groups = d.notObserved.map((g) => `${safeText(g.unlock)} (${g.checks.length})`).join('; ');
    out.push(
      `${paint('Depth:', 'bold')} judged ${d.judged} of ${d.applicable} applicable checks` +
        (groups ? paint(`; only not observed, by what would let them run: ${groups}`, 'dim') : ''),
    );
  }
  for (const c of run.triggers ?? []) {
    const call = `${safeClip(c.tool, 200)} ${safeClip(JSON.stringify(c.arguments), 200)}`;
    out.push(
      paint(
        `Chose ${safeText(c.key)}: ${call} (${safeClip(c.why, 200)}) for ${c.checks.map((x) => safeText(x)).join(', ')}; pin it with ${safeText(c.key)} in the config file`,
        'dim',
      ),
    );
  }
  return out;
}

/** The one line naming the tools the safety policy held back, and the flag that lets them run. */
function heldBackLines(run: RunResult, paint: Paint): string[] {
  const held = heldBackLine(run);
  return held ? [paint(safeText(held), 'magenta')] : [];
}

function baselineLines(run: RunResult, paint: Paint): string[] {
  const b = run.baseline;
  if (!b) return [];
  const out = [
    paint(
      `Baseline ${safeText(b.path)}: ${b.expected} expected result${b.expected === 1 ? '' : 's'}, ${b.stale.length} stale entr${b.stale.length === 1 ? 'y' : 'ies'}`,
      'dim',
    ),
  ];
  for (const e of b.stale) out.push(paint(`  ✗ stale: ${safeClip(e.why, 600)}`, 'red', 'bold'));
  if (b.unconfirmed.length > 0) {
    out.push(
      paint(
        `  ${b.unconfirmed.length} entr${b.unconfirmed.length === 1 ? 'y' : 'ies'} not confirmed by this run (not counted): ${b.unconfirmed.map((e) => safeClip(e.check, 100)).join(', ')}`,
        'dim',
      ),
    );
  }
  return out;
}

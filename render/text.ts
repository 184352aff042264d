/**
 * Small plain-text pieces shared by the console and JUnit renderers.
 * Everything returned here has already been through `safeText`.
 */
import type { CheckResult, ReplayCase, RunResult, RunSummary, SubjectResult, Verdict } from '../model/results.js';
import { COUNT_LABELS, VERDICTS, countRun, gateVerdict } from '../model/results.js';
import { CONFIG_PAGE } from '../model/spec.js';
import { safeClip, safeText } from './escape.js';
import type { WireFrame } from '../model/wire.js';

export const VERDICT_LABEL: Record<Verdict, string> = {
  pass: 'pass',
  fail: 'fail',
  warn: 'warn',
  skip: 'skip',
  'not-observed': 'not observed',
};

export type VerdictCounts = Record<Verdict, number>;

export function countVerdicts(results: readonly SubjectResult[]): VerdictCounts {
  const counts: VerdictCounts = { pass: 0, fail: 0, warn: 0, skip: 0, 'not-observed': 0 };
  for (const r of results) counts[r.verdict]++;
  return counts;
}

/** `12 pass, 1 fail` — verdicts in model order, zeros left out. */
export function countsText(counts: VerdictCounts): string {
  return VERDICTS.filter((v) => counts[v] > 0)
    .map((v) => `${counts[v]} ${VERDICT_LABEL[v]}`)
    .join(', ');
}

/**
 * One verdict standing for a check with several subjects: any fail, else any
 * warn, else any not-observed (a gap is never shown as a pass), else any
 * pass (subjects the check did not apply to do not spoil a pass), else skip.
 */
export function overallVerdict(results: readonly SubjectResult[]): Verdict {
  const c = countVerdicts(results);
  if (c.fail) return 'fail';
  if (c.warn) return 'warn';
  if (c['not-observed']) return 'not-observed';
  if (c.pass) return 'pass';
  return 'skip';
}

/** `server/tools#Capabilities (MUST)`; a rule of the user's own: `your configuration file: fixtures (not a spec rule)` */
export function specText(check: Pick<CheckResult, 'spec' | 'level'>): string {
  if (check.spec.page === CONFIG_PAGE)
    return `your configuration file: ${safeText(check.spec.section)} (not a spec rule: judged as you declared it)`;
  return `${safeText(check.spec.page)}#${safeText(check.spec.section)} (${safeText(check.level)})`;
}

/** `→ {"jsonrpc":...}` or `← [conn 2] HTTP 200 text/event-stream {...}…` */
export function frameText(frame: WireFrame, maxChars: number): string {
  const arrow = frame.dir === 'out' ? '→' : '←';
  const tags: string[] = [];
  if (frame.connection !== 1) tags.push(`[conn ${safeText(frame.connection)}]`);
  if (frame.http?.status !== undefined) tags.push(`HTTP ${safeText(frame.http.status)}`);
  if (frame.http?.stream) tags.push('(stream)');
  const text = safeClip(frame.text, maxChars, { alreadyCut: frame.truncated === true });
  return [arrow, ...tags, text].join(' ');
}

/** The last `max` frames (all when `max` is Infinity), and how many were left out. */
export function lastFrames(frames: readonly WireFrame[], max: number): { shown: WireFrame[]; omitted: number } {
  const shown = Number.isFinite(max) && frames.length > max ? frames.slice(frames.length - max) : frames.slice();
  return { shown, omitted: frames.length - shown.length };
}

/** Group checks by area, keeping the order in which areas first appear. */
export function groupByArea(checks: readonly CheckResult[]): Map<string, CheckResult[]> {
  const groups = new Map<string, CheckResult[]>();
  for (const c of checks) {
    const list = groups.get(c.area);
    if (list) list.push(c);
    else groups.set(c.area, [c]);
  }
  return groups;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** Flags of the original command line a replay keeps (with their value): what reaches the server and shapes the case. */
const REPLAY_KEEPS = new Set([
  '--server',
  '--url',
  '--header',
  '--env',
  '--config',
  '--schema',
  '--tools',
  '--timeout',
  '--check-timeout',
  '--max-message-size',
  '--startup-timeout',
  '--max-pages',
  '--max-rounds',
  '--probe-timeout',
  '--notification-timeout',
]);
/** Flags without a value a replay keeps. */
const REPLAY_KEEPS_BARE = new Set(['--strict', '--allow-side-effects']);

/** Where a replay writes its reports: beside the run's, never over them. */
export const REPLAY_REPORTS = [
  '--junit',
  'reports/replay/junit.xml',
  '--json',
  'reports/replay/results.json',
  '--html',
  'reports/replay/report.html',
];

/** One shell word: bare when plain, else single-quoted (POSIX shells). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The flags of the run's own command line a replay keeps: the target and its limits, never a report, baseline or selection flag. */
function keptFlags(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = arg.startsWith('--') ? arg.split('=')[0]! : '';
    const inline = arg.includes('=');
    if (REPLAY_KEEPS.has(flag)) kept.push(...(inline ? [arg] : [arg, ...(argv[i + 1] !== undefined ? [argv[i + 1]!] : [])]));
    else if (REPLAY_KEEPS_BARE.has(flag)) kept.push(arg);
    // Every other flag with a value (--json, --write-baseline, --shard, --check, --seed, …) goes with its value.
    if (!inline && flag !== '' && !REPLAY_KEEPS_BARE.has(flag) && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) i++;
  }
  return kept;
}

/**
 * The command line that replays exactly one generated case, and only that:
 * the target as the run named it (its --server / --url, headers, env,
 * config and limits; secrets stay redacted: give them again), the revision
 * the run spoke, the case's check, seed and path, and reports under
 * reports/replay/. It never repeats --write-baseline, --baseline, the run's
 * report paths or its selection.
 */
export function replayCommand(run: Pick<RunResult, 'invocation' | 'target'> & { revision?: string }, replay: ReplayCase): string {
  const base: string[] = [];
  if (run.invocation) base.push(...keptFlags(run.invocation));
  else {
    if (run.target.command !== undefined) base.push('--server', run.target.command);
    if (run.target.url !== undefined) base.push('--url', run.target.url);
  }
  const spec = run.revision !== undefined && /^\d{4}-\d{2}-\d{2}$|^draft$/.test(run.revision) ? ['--spec', run.revision] : [];
  const args = [
    ...base,
    ...spec,
    '--check',
    replay.check,
    '--seed',
    String(replay.seed),
    '--replay',
    `${replay.path}@${replay.tool}`,
    ...REPLAY_REPORTS,
  ];
  return ['npx', 'mcp-conformance', ...args.map(shellWord)].join(' ');
}

/** `3 pass, 1 fail, 0 warn, 1 expected, 0 stale, 2 skip, 1 not observed`: every count, in the one order every report uses. */
export function runCountsText(c: RunSummary): string {
  return COUNT_LABELS.map(([k, label]) => `${c[k]} ${label}`).join(', ');
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The result in words, with its cause: `PASSED`; `FAILED (1 fail, 1 stale
 * baseline entry)`; `ERROR (the run could not complete)`; `INCOMPLETE (…)`.
 * Every report's verdict line is this text; it never says PASSED when the
 * exit code is not 0.
 */
export function resultText(run: RunResult): string {
  const v = gateVerdict(run);
  if (v === 'passed') return 'PASSED';
  if (v === 'error') return 'ERROR (the run could not complete)';
  if (v === 'incomplete') return `INCOMPLETE (${safeClip(run.incomplete ?? '', 600)}): not a pass`;
  const c = countRun(run);
  const causes: string[] = [];
  if (c.fail) causes.push(`${c.fail} fail`);
  if (run.strict && c.warn) causes.push(`${plural(c.warn, 'warning', 'warnings')} counted as failure${c.warn === 1 ? '' : 's'} (--strict)`);
  if (c.stale) causes.push(plural(c.stale, 'stale baseline entry', 'stale baseline entries'));
  return `FAILED (${causes.join(', ')})`;
}

/** The published spec site the reports link to. */
export const SPEC_SITE = 'https://modelcontextprotocol.io/specification';

/** A heading's anchor on the spec site: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** `https://modelcontextprotocol.io/specification/draft/server/tools#capabilities` */
export function specUrl(spec: CheckResult['spec']): string {
  const page = spec.page.replace(/(^|\/)index$/, '');
  return `${SPEC_SITE}/${encodeURI(spec.revision)}/${page.split('/').map(encodeURIComponent).join('/')}#${encodeURIComponent(headingAnchor(spec.section))}`;
}

/** What each console mark means (the footer prints it). */
export const LEGEND =
  '✓ pass  ✗ fail  ! warn  - skip (does not apply)  ? not observed (applies, but could not be exercised)  ~ expected (in the baseline)';

/**
 * The line of a server's stderr that says what went wrong: the first line
 * that reads like an error (`Error: …`, `fatal: …`, `panic: …`, a Python
 * exception), else the first non-empty line. Already safe to print.
 */
export function serverErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const errorish = /^(?:[\w.$]*(?:Error|Exception)\b|error\b|fatal\b|panic\b|FATAL\b|ERROR\b|Traceback\b(?!.*most recent call))/;
  const named = lines.find((l) => errorish.test(l) && !/^at\s/.test(l));
  const line = named ?? lines[0];
  return line === undefined ? undefined : safeClip(line, 300);
}

/**
 * The one-line cause of an aborted run. Where the cause quotes the end of
 * the server's stderr (often the tail of a stack trace), the server's own
 * first error line is shown instead.
 */
export function abortLine(run: Pick<RunResult, 'aborted' | 'stderr'>): string {
  const text = run.aborted ?? '';
  const at = text.indexOf('; stderr ends:');
  if (at < 0) return safeText(text.split('\n')[0]!);
  const prefix = text.slice(0, at);
  const quoted = text.slice(at + '; stderr ends:'.length).replace(/\)+\s*$/, '');
  const said = serverErrorLine(run.stderr) ?? serverErrorLine(quoted);
  if (!said) return safeText(text.split('\n')[0]!);
  // Close what the cause opened before the replaced tail.
  const open = (prefix.match(/\(/g) ?? []).length - (prefix.match(/\)/g) ?? []).length;
  return safeText(`${prefix}; the server said: ${said}${')'.repeat(Math.max(0, open))}`);
}

/** The configuration file a run read, and how it was found: `/p/mcp-conformance.config.yaml (found in the current folder)`. */
export function configFileText(run: Pick<RunResult, 'selection'>): string | undefined {
  const file = run.selection?.configFile;
  if (!file) return undefined;
  return `${safeText(file.path)} (${file.found === '--config' ? 'named by --config' : 'found in the current folder'})`;
}

/** The checks a run left out, one line per pattern: `--skip 'tools-list/*': 2 checks: tools-list/a, tools-list/b`. */
export function leftOutLines(run: Pick<RunResult, 'selection'>): string[] {
  return (run.selection?.leftOut ?? []).map((l) => {
    const what = `${l.source} ${shellWord(l.pattern)}`;
    if (l.checks.length === 0) return safeText(`${what}: matches no check`);
    return safeText(`${what}: ${l.checks.length} check${l.checks.length === 1 ? '' : 's'}: ${l.checks.join(', ')}`);
  });
}

/** How many checks the run left out in all. */
export function leftOutCount(run: Pick<RunResult, 'selection'>): number {
  return (run.selection?.leftOut ?? []).reduce((n, l) => n + l.checks.length, 0);
}

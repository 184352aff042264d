/**
 * Baselines: a file of known failures and warnings (`--baseline`), so a CI
 * gate stays green except for new regressions.
 *
 * An entry names a check (id or glob), optionally one subject (`tool:foo`),
 * and a required reason. A fail or warn an entry covers is marked expected:
 * every report still shows it, but it does not fail the run. An entry that
 * covers no fail or warn although its check ran and judged something is
 * stale, and fails the run with a message, so a baseline only shrinks. An
 * entry whose check was not selected, or only skipped or not observed, is
 * unconfirmed: it neither fails nor counts (nothing says the defect is gone).
 *
 * The file is YAML or JSON, validated against `schemas/baseline.schema.json`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import picomatch from 'picomatch';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { packageRoot } from '../harness/paths.js';
import type { BaselineEntry, BaselineOutcome, CheckResult, RunResult, SubjectResult } from '../model/results.js';
import { countRun, exitCodeOf } from '../model/results.js';

/** The `$schema` a written baseline names: the schema the package ships, from a project root that installed it. */
export const BASELINE_SCHEMA_ID = './node_modules/mcp-conformance/schemas/baseline.schema.json';

export interface Baseline {
  path: string;
  entries: BaselineEntry[];
}

let validator: ReturnType<Ajv2020['compile']> | undefined;

/** Reads and validates a baseline file; throws one line naming the file, the place and the reason. */
export function loadBaseline(path: string): Baseline {
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (err) {
    throw new Error(`cannot read baseline ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`baseline ${path} does not parse: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!validator) {
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'schemas', 'baseline.schema.json'), 'utf8'));
    validator = new Ajv2020({ allErrors: false, strict: false }).compile(schema);
  }
  if (!validator(doc)) {
    const e = validator.errors![0]!;
    const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
    throw new Error(`baseline ${path} is invalid at ${e.instancePath || '(top level)'}: ${e.message}${extra}`);
  }
  return { path, entries: (doc as { entries: BaselineEntry[] }).entries };
}

const covers = (entry: BaselineEntry) => {
  const match = picomatch(entry.check);
  return (check: CheckResult, r: SubjectResult) => match(check.id) && (entry.subject === undefined || entry.subject === r.subject);
};

const isProblem = (r: SubjectResult) => r.verdict === 'fail' || r.verdict === 'warn';

/**
 * Marks the fails and warns the baseline covers as expected, records stale
 * and unconfirmed entries, and sets the exit code accordingly. Mutates `run`.
 */
export function applyBaseline(run: RunResult, baseline: Baseline): RunResult {
  const parts = run.eras ?? [run];
  const outcome: BaselineOutcome = { path: baseline.path, expected: 0, stale: [], unconfirmed: [] };
  for (const entry of baseline.entries) {
    const test = covers(entry);
    let matched = 0;
    let judged = 0;
    let ran = false;
    for (const part of parts) {
      for (const check of part.checks) {
        if (!picomatch.isMatch(check.id, entry.check)) continue;
        ran = true;
        for (const r of check.results) {
          if (!test(check, r)) continue;
          if (isProblem(r)) {
            r.expected ??= { reason: entry.reason };
            matched++;
          }
          if (r.verdict !== 'skip' && r.verdict !== 'not-observed') judged++;
        }
        // A subject that is gone (a removed tool) while the check judged others: the defect is gone too.
        if (
          entry.subject !== undefined &&
          !check.results.some((r) => r.subject === entry.subject) &&
          check.results.some((r) => r.verdict !== 'skip' && r.verdict !== 'not-observed')
        )
          judged++;
      }
    }
    if (matched > 0) continue;
    const what = `${entry.check}${entry.subject ? ` [${entry.subject}]` : ''}`;
    if (!ran) outcome.unconfirmed.push({ ...entry, why: `${what} was not run (not selected)` });
    else if (judged === 0)
      outcome.unconfirmed.push({ ...entry, why: `${what} was only skipped or not observed, so the defect may still be there` });
    else outcome.stale.push({ ...entry, why: `${what} no longer fails or warns: remove the entry from the baseline` });
  }
  outcome.expected = parts.reduce(
    (n, p) => n + p.checks.reduce((m, c) => m + c.results.filter((r) => isProblem(r) && r.expected).length, 0),
    0,
  );
  run.baseline = outcome;
  for (const part of run.eras ?? []) {
    part.summary = countRun(part);
    part.exitCode = exitCodeOf(part);
  }
  run.summary = countRun(run);
  run.exitCode = exitCodeOf(run);
  return run;
}

/** Marks one check's covered fails and warns as expected (for a live report, before the run ends). */
export function markExpected(check: CheckResult, baseline: Baseline): void {
  for (const entry of baseline.entries) {
    const test = covers(entry);
    for (const r of check.results) if (isProblem(r) && test(check, r)) r.expected ??= { reason: entry.reason };
  }
}

/**
 * The run's current fails and warns as baseline entries (subject `server`
 * is left out: it is the whole check). Reasons already given in `previous`
 * are kept; new entries get `reason: TODO`.
 */
export function baselineEntries(run: RunResult, previous?: Baseline): BaselineEntry[] {
  const out: BaselineEntry[] = [];
  const seen = new Set<string>();
  for (const part of run.eras ?? [run]) {
    for (const check of part.checks) {
      for (const r of check.results) {
        if (!isProblem(r)) continue;
        const subject = r.subject === 'server' ? undefined : r.subject;
        const key = `${check.id}\u0000${subject ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const kept = r.expected?.reason ?? previous?.entries.find((e) => covers(e)(check, r))?.reason;
        out.push({ check: check.id, ...(subject ? { subject } : {}), reason: kept ?? 'TODO' });
      }
    }
  }
  return out;
}

/** The text of a baseline file (YAML, or JSON when the path ends in .json). */
export function baselineText(entries: BaselineEntry[], path: string): string {
  const doc = { $schema: BASELINE_SCHEMA_ID, entries };
  if (/\.json$/i.test(path)) return JSON.stringify(doc, null, 2) + '\n';
  return (
    '# mcp-conformance baseline: known failures and warnings. Give each entry a real reason;\n' +
    '# an entry that no longer fails is stale and fails the run, so remove fixed ones.\n' +
    toYaml(doc)
  );
}

/**
 * Machine-readable report: the whole result model, pretty-printed, with a
 * `schemaVersion` so consumers can tell formats apart as the model evolves.
 *
 * Nothing is dropped or rewritten: JSON string escaping already turns C0
 * controls (ESC included) and lone surrogates into `\uXXXX`. DEL, C1 controls
 * and bidi / line-separator characters are additionally written as `\uXXXX`
 * escapes, so the file is safe to `cat` and still parses to the same strings.
 */
import { countRun, type RunResult } from '../model/results.js';

export const JSON_SCHEMA_VERSION = 1;

/** The shape of the JSON report. */
export type JsonReport = { schemaVersion: typeof JSON_SCHEMA_VERSION } & RunResult;

const RISKY = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

export function renderJson(run: RunResult): string {
  // `summary` is what every other report prints (countRun), whatever the model carried.
  const summary = countRun(run);
  const eras = run.eras?.map((e) => ({ ...e, summary: countRun(e) }));
  const report: JsonReport = { schemaVersion: JSON_SCHEMA_VERSION, ...run, summary, ...(eras ? { eras } : {}) };
  const text = JSON.stringify(
    report,
    // `details` is free-form; keep a stray bigint from making the report fail.
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
    2,
  );
  // Outside strings the JSON text holds only ASCII, so every match is inside a string.
  return text.replace(RISKY, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')) + '\n';
}

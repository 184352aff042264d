/** Helpers of the results-matrix tests: matrix.json read and checked against its published schema. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { MatrixResult } from '../model/matrix.js';
import { ROOT } from './helpers.js';

/** matrix.json, checked against the published schema. */
export function readValidMatrix(dir: string): MatrixResult {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'model/matrix.schema.json'), 'utf8')) as object);
  const m = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixResult;
  expect(validate(m), JSON.stringify(validate.errors, null, 2)).toBe(true);
  return m;
}

/**
 * `matrix --compare before.json after.json`: per column (target, era,
 * direct or through its gateway) and check, every verdict that moved
 * between two matrices, worst first (the order of engine/diff.ts, with
 * `expected` between skip and not observed).
 */
import { readFileSync } from 'node:fs';
import type { MatrixMove, MatrixResult, MatrixVerdict } from '../model/matrix.js';
import { VERDICT_ORDER, verdictMoves } from './diff.js';

/** Best first: diff's order, with `expected` between skip and not observed. */
const ORDER: readonly MatrixVerdict[] = [...VERDICT_ORDER.slice(0, 2), 'expected', ...VERDICT_ORDER.slice(2)];
const { isWorse, byWorst } = verdictMoves(ORDER);

/** Reads a matrix.json, or says why it is not one. */
export function readMatrix(path: string): MatrixResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const m = value as MatrixResult;
  if (!m || typeof m !== 'object' || !Array.isArray(m.cells) || !Array.isArray(m.columns))
    throw new Error(`${path} is not a mcp-conformance matrix.json (no "cells" list)`);
  return m;
}

/** Every verdict that moved; worse first, then the worst later verdict, then the biggest move, then by column and check. */
export function compareMatrices(before: MatrixResult, after: MatrixResult): MatrixMove[] {
  const key = (c: { column: string; check: string }) => `${c.column}\u0000${c.check}`;
  const a = new Map(before.cells.map((c) => [key(c), c]));
  const b = new Map(after.cells.map((c) => [key(c), c]));
  const moves: MatrixMove[] = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k);
    const y = b.get(k);
    if (x?.verdict === y?.verdict) continue;
    const any = (y ?? x)!;
    moves.push({
      column: any.column,
      check: any.check,
      ...(x ? { before: x.verdict } : {}),
      ...(y ? { after: y.verdict } : {}),
      worse: isWorse(x?.verdict, y?.verdict),
      ...(y?.detail ? { detail: y.detail } : {}),
    });
  }
  return moves.sort((p, q) => byWorst(p, q) || p.column.localeCompare(q.column) || p.check.localeCompare(q.check));
}

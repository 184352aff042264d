#!/usr/bin/env node
/**
 * The static gates of `npm test`, after the build: the fixtures' type check
 * (checkJs), eslint and prettier. They share nothing, so they run at once
 * (each is one process on one core); each one's output is printed whole when
 * it ends, and the exit code is non-zero when any of them failed.
 *
 *   node test/gates.js
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** @param {string} name */
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

/** @type {Array<[string, string, string[]]>} */
const GATES = [
  ['tsc (fixtures, bench, bin)', bin('tsc'), ['-p', 'tsconfig.fixtures.json']],
  ['eslint', bin('eslint'), ['.']],
  ['prettier', bin('prettier'), ['--check', '.']],
];

/**
 * One gate: its exit code, with its output printed once it ended.
 * @param {[string, string, string[]]} gate
 * @returns {Promise<number>}
 */
function runGate([label, command, args]) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    child.on('error', (err) => {
      process.stdout.write(`${label}: cannot start: ${err.message}\n`);
      done(1);
    });
    child.on('close', (code, signal) => {
      const status = code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`── ${label}: ${status}\n${Buffer.concat(out).toString('utf8')}`);
      done(code ?? 1);
    });
  });
}

const codes = await Promise.all(GATES.map(runGate));
process.exitCode = codes.some((c) => c !== 0) ? 1 : 0;

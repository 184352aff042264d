/**
 * The per-server configuration file (`mcp-conformance.config.yaml` / `.json`,
 * or `--config PATH`): how to start the server and what generic probing cannot
 * know. The file's shape is model/config.ts; it is validated against the published `schemas/config.schema.json`;
 * a bad file is rejected with the path inside it and the reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import type { Config, SecretRef } from '../model/config.js';
import { packageRoot } from '../harness/paths.js';
import type { LoadedConfig } from '../model/config.js';

export const CONFIG_NAMES = ['mcp-conformance.config.yaml', 'mcp-conformance.config.yml', 'mcp-conformance.config.json'];

/** The config file in `dir`, when one of the default names exists there. */
export function findConfig(dir: string): string | undefined {
  return CONFIG_NAMES.map((n) => join(dir, n)).find((p) => existsSync(p));
}

let validator: ReturnType<Ajv2020['compile']> | undefined;

/** Read, parse and validate a config file; throws one line naming the file, the path and the reason. */
export function loadConfig(path: string): LoadedConfig {
  const full = resolve(path);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (err) {
    throw new Error(`cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(full) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`config file ${path} does not parse: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!validator) {
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'schemas', 'config.schema.json'), 'utf8'));
    validator = new Ajv2020({ allErrors: false, strict: false }).compile(schema);
  }
  if (!validator(doc ?? {})) {
    const e = validator.errors![0]!;
    const where = e.instancePath || '(top level)';
    const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
    const hint = /\/(env|headers)\/[^/]+$/.test(e.instancePath) ? ' (secrets are given as { fromEnv: VARIABLE }, never inline)' : '';
    throw new Error(`config file ${path} is invalid at ${where}: ${e.message}${extra}${hint}`);
  }
  return { path: full, dir: dirname(full), config: (doc ?? {}) as Config };
}

/** Resolve `{ fromEnv }` references against `env`; a missing variable is an error. */
export function resolveSecrets(refs: Record<string, SecretRef> | undefined, env: NodeJS.ProcessEnv, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, ref] of Object.entries(refs ?? {})) {
    const value = env[ref.fromEnv];
    if (value === undefined) throw new Error(`config ${what} ${key} reads environment variable ${ref.fromEnv}, which is not set`);
    out[key] = value;
  }
  return out;
}

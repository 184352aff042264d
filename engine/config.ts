/**
 * The per-server configuration file (`mcp-conformance.config.yaml` / `.json`,
 * or `--config PATH`): how to start the server and what generic probing cannot
 * know. The file is validated against the published `schemas/config.schema.json`;
 * a bad file is rejected with the path inside it and the reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import type { ScriptedAnswer } from '../harness/mrtr.js';
import { packageRoot } from '../harness/paths.js';

export interface SecretRef {
  fromEnv: string;
}

export interface ToolCallSpec {
  name: string;
  arguments?: Record<string, unknown>;
}

export type InputCapability = 'elicitation' | 'sampling' | 'roots';

/** How one example call must end (after its scripted answers). */
export interface FixtureExpectation {
  /** complete: a result without isError; isError: a result with isError true; input_required: the first answer asks for input; error: a JSON-RPC error. */
  outcome?: 'complete' | 'isError' | 'input_required' | 'error';
  /** With outcome error: the JSON-RPC error code. */
  errorCode?: number;
  /** Texts that must each appear in the result's text content. */
  content?: string[];
  /** The JSON value structuredContent must equal. */
  structuredContent?: unknown;
}

/** One example call of a tool, as its author describes it. */
export interface FixtureCall {
  description?: string;
  arguments?: Record<string, unknown>;
  /** Client capabilities declared on the call (default: all three). */
  capabilities?: InputCapability[];
  /** Scripted answers by inputRequests key. */
  answers?: Record<string, ScriptedAnswer>;
  expect?: FixtureExpectation;
}

/** What the file says about one tool. */
export interface ToolFixture {
  /** Tampering with this tool's requestState can cause nothing worse than a failed request. */
  tamperingHarmless?: boolean;
  calls?: FixtureCall[];
}

/** Something that changes the server's tool list: a tool call, or a shell command. */
export type ChangeTrigger = { tool: string; arguments?: Record<string, unknown> } | { command: string };

export interface Config {
  server?: {
    command?: string;
    url?: string;
    cwd?: string;
    env?: Record<string, SecretRef>;
    headers?: Record<string, SecretRef>;
  };
  tools?: { include?: string[]; exclude?: string[]; allowSideEffects?: boolean };
  listChanged?: { trigger?: ChangeTrigger; undo?: ChangeTrigger; timeoutMs?: number };
  slowTool?: ToolCallSpec;
  capabilityTool?: ToolCallSpec & { requires: InputCapability[] };
  /** Per-tool fixtures, by tool name. */
  fixtures?: Record<string, ToolFixture>;
}

/** A loaded file: its content, where it lives (relative paths resolve from there). */
export interface LoadedConfig {
  path: string;
  dir: string;
  config: Config;
}

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

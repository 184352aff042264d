/**
 * The targets file of `mcp-conformance matrix` (YAML or JSON):
 *
 * ```yaml
 * targets:
 *   - label: reference-http
 *     server: reference --http {port}      # as --server
 *     url: http://127.0.0.1:{port}/mcp     # as --url
 *     env: { KEY: value }                  # as --env KEY=value
 *     config: server.config.yaml           # as --config (relative to this file)
 *     cwd: '{tmp}'                         # the server's working folder (default: this file's folder)
 *     flags: [--spec, all]                 # further flags, as on the command line
 *     via: node gateway.js --              # a gateway: run with the server's command as its last arguments
 *     viaUrl: http://127.0.0.1:{via-port}/mcp   # an HTTP server's gateway: the gateway's own URL
 * ```
 *
 * Placeholders, expanded for each run of a target: `{port}` a free loopback
 * port, `{via-port}` another one (for a gateway), `{tmp}` a fresh temporary folder (removed after the run), `{dir}` the
 * targets file's folder, `{bin:<package>:<name>}` the file an installed
 * package's `bin` entry names (resolved from the targets file's folder, else
 * from the current folder).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { shellWord } from '../render/text.js';
import type { TargetSpec } from '../model/matrix.js';
import { expandServer } from './reference.js';

export interface LoadedTargets {
  path: string;
  dir: string;
  targets: TargetSpec[];
}

const KEYS = new Set(['label', 'server', 'url', 'env', 'config', 'cwd', 'flags', 'via', 'viaUrl']);

function fail(path: string, where: string, why: string): never {
  throw new Error(`${path}: ${where}: ${why}`);
}

function targetOf(path: string, raw: unknown, i: number, seen: Set<string>): TargetSpec {
  const where = `targets[${i}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(path, where, 'must be a mapping');
  const t = raw as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!KEYS.has(k)) fail(path, `${where}.${k}`, `unknown key (known: ${[...KEYS].join(', ')})`);
  if (typeof t.label !== 'string' || !/^[\w.+-]+$/.test(t.label))
    fail(path, `${where}.label`, 'must be a name of letters, digits, ".", "_", "+" or "-"');
  if (seen.has(t.label)) fail(path, `${where}.label`, `"${t.label}" is used twice`);
  seen.add(t.label);
  for (const k of ['server', 'url', 'config', 'cwd', 'via', 'viaUrl'])
    if (t[k] !== undefined && typeof t[k] !== 'string') fail(path, `${where}.${k}`, 'must be a string');
  if (t.server === undefined && t.url === undefined) fail(path, where, 'needs a server or a url');
  if (t.flags !== undefined && (!Array.isArray(t.flags) || t.flags.some((f) => typeof f !== 'string')))
    fail(path, `${where}.flags`, 'must be a list of strings');
  if (
    t.env !== undefined &&
    (typeof t.env !== 'object' || Array.isArray(t.env) || Object.values(t.env!).some((v) => typeof v !== 'string'))
  )
    fail(path, `${where}.env`, 'must map names to strings');
  if (t.via !== undefined && t.server === undefined) fail(path, `${where}.via`, 'a gateway proxies a launched server: give a server');
  if (t.via !== undefined && t.url !== undefined && t.viaUrl === undefined)
    fail(path, `${where}.viaUrl`, "a gateway of an HTTP server needs the gateway's own URL (viaUrl, e.g. with {via-port})");
  if (t.viaUrl !== undefined && (t.via === undefined || t.url === undefined)) fail(path, `${where}.viaUrl`, 'goes with via and url');
  return t as unknown as TargetSpec;
}

/** Reads and checks a targets file; throws one line naming the file, the place and the reason. */
export function loadTargets(path: string): LoadedTargets {
  const full = resolve(path);
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(full, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the targets file ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = (doc as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(list) || list.length === 0) fail(path, 'targets', 'must be a non-empty list');
  const seen = new Set<string>();
  return { path: full, dir: dirname(full), targets: list.map((t, i) => targetOf(path, t, i, seen)) };
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => res(port));
    });
  });
}

/** One run's values of the placeholders, and how to clean up after it. */
export interface Placeholders {
  /** `text` with its placeholders expanded (`command`: each value as one shell word, for a server or gateway command). */
  expand: (text: string, command?: boolean) => string;
  dispose: () => void;
}

/** An installed package's package.json, looked up from each folder in turn. */
function resolvePackage(pkg: string, from: string[]): string {
  for (const dir of from) {
    try {
      return createRequire(join(dir, 'targets.js')).resolve(`${pkg}/package.json`);
    } catch {
      // Not installed there: the next folder.
    }
  }
  throw new Error(`{bin:${pkg}:…}: the package ${pkg} is not installed (looked from ${from.join(', ')})`);
}

export async function placeholders(dir: string): Promise<Placeholders> {
  const port = await freePort();
  const viaPort = await freePort();
  let tmp: string | undefined;
  const bin = (pkg: string, name: string) => {
    const manifest = resolvePackage(pkg, [dir, process.cwd()]);
    const bins = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> | string }).bin;
    const file = typeof bins === 'string' ? bins : bins?.[name];
    if (!file) throw new Error(`${pkg} has no bin named ${name}`);
    return join(dirname(manifest), file);
  };
  return {
    expand: (text, command = false) =>
      text.replace(/\{(port|via-port|tmp|dir|bin:([^:}]+):([^}]+))\}/g, (_m, what: string, pkg?: string, name?: string) => {
        let value: string;
        if (what === 'port') value = String(port);
        else if (what === 'via-port') value = String(viaPort);
        else if (what === 'dir') value = dir;
        else if (what === 'tmp') value = tmp ??= mkdtempSync(join(tmpdir(), 'mcpc-matrix-'));
        else value = bin(pkg!, name!);
        return command ? shellWord(value) : value;
      }),
    dispose: () => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The command line of one run of a target (direct, or through its gateway), placeholders expanded. */
export function targetArgv(t: TargetSpec, dir: string, p: Placeholders, variant: 'direct' | 'via'): string[] {
  const argv: string[] = [];
  if (t.server !== undefined) {
    const server = expandServer(p.expand(t.server, true));
    argv.push('--server', variant === 'via' ? `${expandServer(p.expand(t.via!, true))} ${server}` : server);
  }
  if (t.url !== undefined) argv.push('--url', p.expand(variant === 'via' ? t.viaUrl! : t.url));
  for (const [k, v] of Object.entries(t.env ?? {})) argv.push('--env', `${k}=${p.expand(v)}`);
  if (t.config !== undefined) argv.push('--config', resolve(dir, p.expand(t.config)));
  argv.push(...(t.flags ?? []).map((f) => p.expand(f)));
  return argv;
}

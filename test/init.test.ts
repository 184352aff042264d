/**
 * `mcp-conformance init` (engine/init.ts, cli/init.ts): the file it writes
 * is accepted by the configuration schema (engine/config.ts loads it), it
 * lists every tool with whether the suite may call it, and a run with it,
 * unedited, judges at least as many checks as a run without it and calls no
 * tool that run did not (the calls are read from the wire: a pass-through
 * logs every tools/call the server receives). Proven on the reference and
 * on server-everything. Also: what each key unlocks (`unlockedBy` on the
 * checks) agrees with the reasons a run without a file gives.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { checksUnlockedBy, slowArguments, writeInitConfig } from '../engine/init.js';
import { runConformance } from '../engine/run.js';
import { shellWord } from '../render/text.js';
import { catalogue } from '../suites/index.js';
import { unlockingKeys } from '../suites/check.js';
import type { Config, ConfigKey } from '../model/config.js';
import type { RunResult } from '../model/results.js';
import { describeRun, REFERENCE, ROOT, runCli, tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const EVERYTHING = join(
  dirname(manifest),
  (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin['mcp-server-everything']!,
);
const CALL_LOG = join(ROOT, 'fixtures/servers/call-log/call-log.js');

/** The checks with a pass, fail or warn result. */
const judged = (run: RunResult): string[] =>
  run.checks.filter((c) => c.results.some((r) => ['pass', 'fail', 'warn'].includes(r.verdict))).map((c) => c.id);

/** A whole-catalogue run of `server` through the call log; returns the run and the tool names the server was called with. */
async function logged(server: string, config: Config): Promise<{ run: RunResult; tools: Set<string> }> {
  const log = join(tempDir(), 'calls.log');
  const run = await runConformance({
    command: `${shellWord(process.execPath)} ${shellWord(CALL_LOG)} ${shellWord(log)} ${server}`,
    config,
    requestTimeoutMs: 10_000,
    runs: 3,
    seed: 5,
  });
  const names = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => String(JSON.parse(l)))
    : [];
  return { run, tools: new Set(names) };
}

/** init, then a run without a file and a run with the file as written. */
async function initAndCompare(server: string) {
  const file = join(tempDir(), 'mcp-conformance.config.yaml');
  const survey = await writeInitConfig({ command: server, output: file });
  const loaded = loadConfig(file);
  const without = await logged(server, {});
  const withFile = await logged(server, loaded.config);
  expect(without.run.aborted, describeRun(without.run)).toBeUndefined();
  expect(withFile.run.aborted, describeRun(withFile.run)).toBeUndefined();
  expect(withFile.run.harnessErrors).toEqual([]);
  return { file, text: readFileSync(file, 'utf8'), config: loaded.config, survey, without, withFile };
}

describe('init on the reference', () => {
  it('writes a file the schema accepts; with it a run judges as much and calls nothing more', async () => {
    const r = await initAndCompare(`${shellWord(process.execPath)} ${shellWord(REFERENCE)}`);
    expect(r.config.server?.command).toContain('server.js');
    // Every tool, with whether the suite may call it.
    for (const tool of r.survey.tools) expect(r.text).toContain(`  ${String(tool.name)}: `);
    expect(r.text).toMatch(/save_note: .*held back/);
    expect(r.text).toMatch(/echo: .*the suite may call it/);
    // Every key that names a tool that is not read-only is commented out.
    for (const key of ['slowTool', 'capabilityTool', 'listChanged', 'subscriptionEnd', 'fixtures', 'resources']) {
      expect(r.config[key as keyof Config], key).toBeUndefined();
      expect(r.text).toContain(`# ${key}:`);
    }
    expect(r.text).toMatch(/# subscriptionEnd: candidates: end_subscriptions/);
    expect(r.text).toMatch(/# slowTool: unlocks .*progress\/notifications/);
    expect(judged(r.withFile.run).length).toBeGreaterThanOrEqual(judged(r.without.run).length);
    expect([...r.withFile.tools].filter((t) => !r.without.tools.has(t))).toEqual([]);
  });

  it('refuses to overwrite a file without --force, and needs a server', async () => {
    const dir = tempDir();
    const out = join(dir, 'mcp-conformance.config.yaml');
    writeFileSync(out, '# mine\n');
    const refused = await runCli(['init', '--server', 'reference'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(String(refused.stderr)).toMatch(/exists: pass --force/);
    expect(readFileSync(out, 'utf8')).toBe('# mine\n');
    const forced = await runCli(['init', '--server', 'reference', '--force'], { cwd: dir });
    expect(forced.code, String(forced.stderr)).toBe(0);
    expect(loadConfig(out).config.server?.command).toBe('reference');
    const other = await runCli(['init', '--server', 'reference', '--output', join(dir, 'other.yaml')], { cwd: dir });
    expect(other.code).toBe(0);
    expect(existsSync(join(dir, 'other.yaml'))).toBe(true);
    const nothing = await runCli(['init'], { cwd: dir });
    expect(nothing.code).toBe(2);
    expect(String(nothing.stderr)).toMatch(/--server/);
  });
});

describe('init on server-everything', () => {
  it('writes a file the schema accepts, its read-only slow tool live; with it a run judges more and calls nothing more', async () => {
    const r = await initAndCompare(`${shellWord(process.execPath)} ${shellWord(EVERYTHING)}`);
    expect(r.survey.era).toBe('legacy');
    expect(r.config.slowTool?.name).toBe('trigger-long-running-operation');
    // Not read-only: commented out, named as a candidate.
    expect(r.config.taskTool).toBeUndefined();
    expect(r.text).toMatch(/# taskTool: candidates: simulate-research-query/);
    expect(r.config.capabilityTool).toBeUndefined();
    const before = judged(r.without.run);
    const after = judged(r.withFile.run);
    expect(after.length).toBeGreaterThan(before.length);
    // What the live key unlocks is now judged.
    expect(checksUnlockedBy('slowTool', r.survey).filter((id) => after.includes(id) && !before.includes(id)).length).toBeGreaterThan(0);
    expect([...r.withFile.tools].filter((t) => !r.without.tools.has(t))).toEqual([]);
  });
});

describe('what each key unlocks', () => {
  const KEY_WORDS: Record<string, ConfigKey> = {
    'no slowTool': 'slowTool',
    'no taskTool': 'taskTool',
    'no capabilityTool': 'capabilityTool',
    'no subscriptionEnd': 'subscriptionEnd',
    'no listChanged.trigger': 'listChanged.trigger',
    'no listChanged.prompts': 'listChanged.prompts',
    'no listChanged.resources': 'listChanged.resources',
    'no resources.fileRoot': 'resources',
  };

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: every check a run without a file does not observe for want of a key declares that key`, async () => {
      const run = await runConformance({
        command: `${shellWord(process.execPath)} ${shellWord(REFERENCE)}${era === 'legacy' ? ' --era legacy' : ''}`,
        ...(era === 'legacy' ? { spec: '2025-11-25' } : {}),
        config: {},
        requestTimeoutMs: 5000,
        runs: 2,
        seed: 3,
      });
      expect(run.aborted, describeRun(run)).toBeUndefined();
      const wanting: string[] = [];
      for (const c of run.checks)
        for (const r of c.results) {
          if (r.verdict !== 'not-observed') continue;
          for (const [words, key] of Object.entries(KEY_WORDS))
            if (r.reason?.includes(words)) {
              const check = catalogue.find((x) => x.id === c.id)!;
              expect(unlockingKeys(check), `${c.id}: ${r.reason}`).toContain(key);
              wanting.push(c.id);
            }
        }
      expect(wanting.length).toBeGreaterThan(0);
    });
  }

  it('small arguments for a slow call', () => {
    const tool = {
      name: 'long',
      inputSchema: {
        type: 'object',
        properties: { duration: { type: 'number', maximum: 60 }, delayMs: { type: 'integer', minimum: 10 }, label: { type: 'string' } },
        required: ['label'],
      },
    };
    const args = slowArguments(tool)!;
    expect(args.duration).toBe(1);
    expect(args.delayMs).toBe(1000);
    expect(typeof args.label).toBe('string');
  });
});

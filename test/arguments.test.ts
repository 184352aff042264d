/**
 * The argument suite's own machinery: generation (every value valid), mutation
 * (every mutant invalid at the keyword and pointer it names), determinism by
 * seed, shrinking and replay of the property driver, the safety rules, and
 * that a printed replay command reproduces its finding.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../engine/run.js';
import { ajvFor } from '../harness/jsonschema.js';
import { renderConsole } from '../render/index.js';
import { replayCommand, shellWord } from '../render/text.js';
import type { CallRecord } from '../suites/args/calls.js';
import { parseReplay } from '../suites/args/calls.js';
import { explore, SHRINK_BUDGET } from '../suites/args/explore.js';
import { validArguments } from '../suites/args/generate.js';
import { mutantsOf } from '../suites/args/mutate.js';
import type { RunResult } from '../model/results.js';
// The reference server's catalogue: real tool schemas to generate for.
import { buildCatalogue } from '../fixtures/servers/reference/tools.js';
import { HOSTILE, referenceCommand, runCli, tempDir } from './helpers.js';

type Schema = Record<string, unknown>;

const SCHEMAS: Record<string, Schema> = {
  scalars: {
    type: 'object',
    properties: {
      s: { type: 'string', minLength: 2, maxLength: 5 },
      p: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' },
      n: { type: 'number', minimum: -5, exclusiveMaximum: 5 },
      i: { type: 'integer', exclusiveMinimum: 0, maximum: 100, multipleOf: 5 },
      b: { type: 'boolean' },
      z: { type: 'null' },
      e: { enum: ['red', 'green', 3] },
      c: { const: 'fixed' },
      u: { type: ['string', 'null'], maxLength: 3 },
    },
    required: ['s', 'p', 'n', 'i', 'e', 'c'],
    additionalProperties: false,
  },
  formats: {
    type: 'object',
    properties: {
      when: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      mail: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      id: { type: 'string', format: 'uuid' },
    },
    required: ['when', 'day', 'mail', 'site', 'id'],
  },
  arrays: {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 3, uniqueItems: true },
      pair: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }], items: false, minItems: 2 },
      matrix: { type: 'array', items: { type: 'array', items: { type: 'number' }, maxItems: 2 }, maxItems: 2 },
    },
    required: ['tags', 'pair'],
  },
  composition: {
    type: 'object',
    properties: {
      shape: {
        oneOf: [
          {
            type: 'object',
            properties: { kind: { const: 'circle' }, r: { type: 'number', minimum: 0 } },
            required: ['kind', 'r'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: { kind: { const: 'square' }, side: { type: 'integer', minimum: 1 } },
            required: ['kind', 'side'],
            additionalProperties: false,
          },
        ],
      },
      id: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', pattern: '^id-' },
        ],
      },
      owner: { allOf: [{ $ref: '#/$defs/person' }, { required: ['email'] }] },
    },
    required: ['shape'],
    $defs: {
      person: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' } },
        required: ['name'],
      },
    },
  },
  draft07Tuple: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false, minItems: 2 },
      node: { $ref: '#/definitions/node' },
    },
    required: ['point'],
    definitions: { node: { type: 'object', properties: { label: { type: 'string', maxLength: 8 } }, required: ['label'] } },
  },
};

const catalogue = buildCatalogue({ extraTools: 0 }) as Array<{ definition: { name: string; inputSchema: Schema } }>;
for (const entry of catalogue) SCHEMAS[`reference ${entry.definition.name}`] = entry.definition.inputSchema;

/** An independent oracle: a fresh ajv of the schema's dialect, reporting every error. */
function oracle(schema: Schema) {
  const ajv = ajvFor(typeof schema.$schema === 'string' ? schema.$schema : undefined, { fresh: true, allErrors: true });
  const validate = ajv.compile(schema);
  return (value: unknown) => ({ valid: validate(value) === true, errors: [...(validate.errors ?? [])] });
}

function plan(schema: Schema, seed = 7) {
  const p = validArguments(schema, seed);
  if (!p.ok) throw new Error(p.reason);
  return p;
}

describe('valid argument generation', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: every generated value satisfies the schema`, () => {
      const check = oracle(schema);
      const p = plan(schema);
      expect(p.source).toBe('arbitraries');
      for (const value of fc.sample(p.arb, { seed: 11, numRuns: 150 })) {
        expect(check(value).valid, JSON.stringify(value)).toBe(true);
      }
    });
  }

  it('holds for any seed (a property over seeds)', () => {
    const schema = SCHEMAS.composition!;
    const check = oracle(schema);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
        const p = plan(schema, seed);
        return fc.sample(p.arb, { seed, numRuns: 10 }).every((v) => check(v).valid);
      }),
      { numRuns: 20, seed: 1 },
    );
  });

  it('falls back to json-schema-faker for keywords the arbitraries do not model, still confirmed by ajv', () => {
    const schema = { type: 'object', properties: { a: { not: { type: 'string' } }, b: { type: 'integer' } }, required: ['a', 'b'] };
    const p = plan(schema);
    expect(p.source).toBe('json-schema-faker');
    const check = oracle(schema);
    for (const value of fc.sample(p.arb, { seed: 3, numRuns: 50 })) expect(check(value).valid).toBe(true);
  });

  it('reports why when too few candidates satisfy the schema, instead of sending invalid data as valid', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^x$', not: { const: 'x' } } }, required: ['a'] };
    const p = validArguments(schema, 5);
    expect(p.ok).toBe(false);
    expect(!p.ok && p.reason).toMatch(/too few generated candidates satisfy the inputSchema/);
  });

  it('refuses a schema that is not valid JSON Schema', () => {
    const p = validArguments({ type: 'object', properties: { x: { type: 'strng' } } }, 5);
    expect(p.ok === false && p.invalidSchema).toBe(true);
  });

  it('is deterministic by seed', () => {
    for (const schema of Object.values(SCHEMAS)) {
      const a = fc.sample(plan(schema, 42).arb, { seed: 42, numRuns: 20 });
      const b = fc.sample(plan(schema, 42).arb, { seed: 42, numRuns: 20 });
      expect(b).toEqual(a);
    }
    const x = fc.sample(plan(SCHEMAS.scalars!, 1).arb, { seed: 1, numRuns: 20 });
    const y = fc.sample(plan(SCHEMAS.scalars!, 2).arb, { seed: 2, numRuns: 20 });
    expect(y).not.toEqual(x);
  });
});

describe('invalid argument mutation', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: every mutant is invalid at the keyword and pointer it records`, () => {
      const check = oracle(schema);
      const p = plan(schema);
      let count = 0;
      for (const value of fc.sample(p.arb, { seed: 5, numRuns: 30 })) {
        for (const m of mutantsOf(p.schema, value)) {
          count++;
          const { valid, errors } = check(m.value);
          expect(valid, `${m.keyword} ${m.pointer}: ${JSON.stringify(m.value)}`).toBe(false);
          expect(
            errors.some((e) => e.keyword === m.keyword && e.instancePath === m.pointer),
            `${m.keyword} at ${m.pointer} among ${JSON.stringify(errors.map((e) => [e.keyword, e.instancePath]))}`,
          ).toBe(true);
          // The arguments stay an object: a non-object is a protocol probe, not a mutant.
          expect(typeof m.value === 'object' && m.value !== null && !Array.isArray(m.value)).toBe(true);
          expect(m.description.length).toBeGreaterThan(0);
        }
      }
      expect(count, 'the schema yields mutants').toBeGreaterThan(0);
    });
  }

  it('covers every kind of mutation the suite promises', () => {
    const kinds = new Set<string>();
    for (const schema of [SCHEMAS.scalars!, SCHEMAS.arrays!, SCHEMAS.composition!]) {
      const p = plan(schema);
      for (const value of fc.sample(p.arb, { seed: 9, numRuns: 40 })) for (const m of mutantsOf(p.schema, value)) kinds.add(m.keyword);
    }
    for (const k of [
      'required',
      'type',
      'enum',
      'const',
      'minimum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'maximum',
      'multipleOf',
      'minLength',
      'maxLength',
      'pattern',
      'minItems',
      'maxItems',
      'uniqueItems',
      'additionalProperties',
    ]) {
      expect(kinds, k).toContain(k);
    }
  });

  it('includes null and wrong-type replacements, and never replaces the root', () => {
    const p = plan(SCHEMAS.scalars!);
    const [value] = fc.sample(p.arb, { seed: 2, numRuns: 1 });
    const ms = mutantsOf(p.schema, value);
    expect(ms.some((m) => m.keyword === 'type' && m.pointer === '/s' && (m.value as Schema).s === null)).toBe(true);
    expect(ms.some((m) => m.keyword === 'type' && m.pointer === '/n' && typeof (m.value as Schema).n === 'string')).toBe(true);
    expect(
      ms
        .filter((m) => m.pointer === '')
        .map((m) => m.keyword)
        .sort(),
    ).toEqual(['additionalProperties', 'required', 'required', 'required', 'required', 'required', 'required']);
  });

  it('is deterministic', () => {
    const p = plan(SCHEMAS.composition!);
    for (const value of fc.sample(p.arb, { seed: 4, numRuns: 10 })) expect(mutantsOf(p.schema, value)).toEqual(mutantsOf(p.schema, value));
  });
});

describe('the property driver', () => {
  /** A fake call: a JSON-RPC error whenever n > 10. */
  function fakeCalls() {
    const sent = new Map<number, CallRecord>();
    const call = async (n: number): Promise<CallRecord> => {
      const rec: CallRecord = {
        purpose: 'valid',
        params: { name: 't', arguments: { n } },
        frames: [],
        exchange: {
          id: 1,
          method: 'tools/call',
          params: {},
          frames: [],
          schemaErrors: [],
          durationMs: 0,
          ...(n > 10 ? { error: { code: -32603, message: 'boom' } } : { result: { resultType: 'complete', content: [] } }),
        },
      };
      sent.set(n, rec);
      return rec;
    };
    return { sent, call, cached: (n: number) => sent.has(n) };
  }
  const judge = (rec: CallRecord) => (rec.exchange?.error ? [{ expected: 'no error', actual: 'error' }] : []);

  it('shrinks a failure to the smallest failing call, and the reported seed and path replay exactly it', async () => {
    const a = fakeCalls();
    const arb = fc.integer({ min: 0, max: 1000 });
    const found = await explore({ arb, seed: 99, runs: 50, ...a, judge });
    expect(found.failure?.value).toBe(11);
    expect(found.failure?.shrinks).toBeGreaterThan(0);
    const b = fakeCalls();
    const replayed = await explore({ arb, seed: found.failure!.seed, runs: 50, path: found.failure!.path, ...b, judge });
    expect(replayed.failure?.value).toBe(11);
    expect([...b.sent.keys()]).toEqual([11]);
  });

  it('keeps shrinking within its budget of new calls', async () => {
    const a = fakeCalls();
    // Every value fails: shrinking would otherwise walk down a long way.
    await explore({
      arb: fc.integer({ min: 1_000_000, max: 2_000_000_000 }),
      seed: 3,
      runs: 5,
      ...a,
      judge: () => [{ expected: 'x', actual: 'y' }],
    });
    expect(a.sent.size).toBeLessThanOrEqual(5 + SHRINK_BUDGET);
  });

  it('reports the draws it could judge, for a not-observed verdict', async () => {
    const a = fakeCalls();
    const result = await explore({ arb: fc.integer({ min: 0, max: 5 }), seed: 1, runs: 10, ...a, judge: () => undefined });
    expect(result.judged).toBe(0);
    expect(result.failure).toBeUndefined();
  });
});

describe('replay command', () => {
  it('quotes words for a POSIX shell', () => {
    expect(shellWord('plain-word_1.2/x')).toBe('plain-word_1.2/x');
    expect(shellWord("it's a tool")).toBe(`'it'\\''s a tool'`);
  });

  it('keeps the target and its limits, names the check, case and revision, and writes under reports/replay/', () => {
    const cmd = replayCommand(
      {
        invocation: ['--server', 'node s.js', '--check', 'x/*', '--runs=5', '--seed', '1', '--strict', '--header', 'A: b'],
        target: { transport: 'stdio' },
        revision: '2026-07-28',
      },
      { check: 'tools-call/valid-result', tool: 'search', seed: 42, path: '3:0:1' },
    );
    expect(cmd).toBe(
      `npx mcp-conformance --server 'node s.js' --strict --header 'A: b' --spec 2026-07-28 --check tools-call/valid-result --seed 42 --replay 3:0:1@search ` +
        '--junit reports/replay/junit.xml --json reports/replay/results.json --html reports/replay/report.html',
    );
  });

  it("never repeats a baseline, the run's report paths, its shard or its selection", () => {
    const invocation = [
      '--url=http://127.0.0.1:9/mcp',
      '--write-baseline',
      'b.yaml',
      '--baseline',
      'b.yaml',
      '--json',
      'out/r.json',
      '--junit=out/j.xml',
      '--html',
      'out/r.html',
      '--shard',
      '1/2',
      '--skip',
      'x/*',
      '--verbose',
      '--jobs',
      '2',
      '--spec',
      'auto',
    ];
    const cmd = replayCommand(
      { invocation, target: { transport: 'http' }, revision: '2025-11-25' },
      { check: 'tools-call/valid-result', tool: 't', seed: 1, path: '0' },
    );
    expect(cmd).toBe(
      'npx mcp-conformance --url=http://127.0.0.1:9/mcp --spec 2025-11-25 --check tools-call/valid-result --seed 1 --replay 0@t ' +
        '--junit reports/replay/junit.xml --json reports/replay/results.json --html reports/replay/report.html',
    );
    expect(cmd).not.toMatch(/baseline|out\/|--shard|--skip|auto/);
  });

  it('parses <path>@<tool>', () => {
    expect(parseReplay('3:0:1@my@tool')).toEqual({ path: '3:0:1', tool: 'my@tool' });
    expect(parseReplay('x@tool')).toBeNull();
  });

  it('a malformed --replay, or one without --seed, stops the run with the reason', async () => {
    const bad = await runConformance({ command: referenceCommand(), replay: 'nonsense' });
    expect(bad.exitCode).toBe(2);
    expect(bad.aborted).toMatch(/--replay must look like <path>@<tool>/);
    const noSeed = await runConformance({ command: referenceCommand(), replay: '0@echo' });
    expect(noSeed.aborted).toMatch(/--replay needs the --seed/);
  });
});

/** Split a printed command line the way a POSIX shell would (single quotes only, as shellWord writes them). */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '\\') {
      word += line[++i];
      inWord = true;
    } else if (ch === ' ') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

describe('a failure found by generation', () => {
  it('prints a replay command that reproduces the same finding', async () => {
    const command = referenceCommand('--break', 'tools-call/valid-result');
    const first = await runConformance({ command, checks: ['tools-call/valid-result'], requestTimeoutMs: 5000 });
    const failing = first.checks[0]!.results.find((r) => r.verdict === 'fail')!;
    expect(failing.subject).toBe('tool:search_catalog');
    const finding = failing.findings[0]!;
    expect(finding.replay).toMatchObject({ check: 'tools-call/valid-result', tool: 'search_catalog', seed: first.seed });

    const printed = renderConsole(first, { color: false })
      .split('\n')
      .find((l) => l.trim().startsWith('Replay:'))!;
    const argv = shellSplit(printed.trim().replace(/^Replay:\s+/, ''));
    expect(argv.slice(0, 2)).toEqual(['npx', 'mcp-conformance']);
    const dir = tempDir();
    const r = await runCli([...argv.slice(2), '--json', join(dir, 'r.json'), '--junit', join(dir, 'r.xml')]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const again = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as RunResult;
    const replayed = again.checks.find((c) => c.id === 'tools-call/valid-result')!.results.find((x) => x.verdict === 'fail')!;
    expect(replayed.subject).toBe('tool:search_catalog');
    const call = (actual: string) => actual.split('\n').find((l) => l.startsWith('Call:'));
    expect(call(replayed.findings[0]!.actual)).toBe(call(finding.actual));
    expect(replayed.findings[0]!.expected).toBe(finding.expected);
    expect(replayed.findings[0]!.replay).toEqual(finding.replay);
  });
});

describe('safety: valid calls only where allowed', () => {
  const run = (extra: Parameters<typeof runConformance>[0] = {}) =>
    runConformance({ command: referenceCommand(), checks: ['tools-call/valid-result'], requestTimeoutMs: 5000, ...extra });
  const verdict = (r: RunResult, tool: string) => r.checks[0]!.results.find((x) => x.subject === `tool:${tool}`)!;

  it('a tool not annotated read-only is not called, and the report says why', async () => {
    const r = await run();
    const v = verdict(r, 'save_note');
    expect(v.verdict).toBe('not-observed');
    expect(v.reason).toMatch(/readOnlyHint: true.*--tools.*--allow-side-effects/);
    expect(verdict(r, 'echo').verdict).toBe('pass');
  });

  it('--tools globs, tools.include and --allow-side-effects let it be called; tools.exclude always wins', async () => {
    expect(verdict(await run({ tools: ['save_*'] }), 'save_note').verdict).toBe('pass');
    expect(verdict(await run({ config: { tools: { include: ['save_note'] } } }), 'save_note').verdict).toBe('pass');
    expect(verdict(await run({ allowSideEffects: true }), 'save_note').verdict).toBe('pass');
    const excluded = await run({ allowSideEffects: true, config: { tools: { exclude: ['echo', 'save_*'] } } });
    expect(verdict(excluded, 'save_note').verdict).toBe('not-observed');
    expect(verdict(excluded, 'echo').reason).toMatch(/excluded by tools.exclude "echo"/);
  });
});

describe('edge values first', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 40 },
      n: { type: 'integer', minimum: -3, maximum: 9 },
      x: { type: 'number', exclusiveMinimum: 0, maximum: 2.5 },
      list: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      color: { enum: ['red', 'green', null] },
      maybe: { type: ['string', 'null'] },
    },
    required: ['text', 'n', 'x', 'list', 'color', 'maybe'],
  };

  it('tries the edge values of every leaf, valid, deterministically per seed', () => {
    const plan = validArguments(schema, 11);
    if (!plan.ok) throw new Error(plan.reason);
    const again = validArguments(schema, 11);
    expect(again.ok && again.edges).toEqual(plan.edges);
    const validate = ajvFor(undefined).compile(schema);
    for (const e of plan.edges) expect(validate(e), JSON.stringify(e)).toBe(true);
    const seen = (key: string) => plan.edges.map((e) => (e as Record<string, unknown>)[key]);
    expect(seen('text')).toEqual(
      expect.arrayContaining(['', ' ', '  edge value  ', 'x'.repeat(40), 'héllo wörld 日本語 🙂👍🏽', 'quote " backslash \\ newline \n end']),
    );
    expect(seen('n')).toEqual(expect.arrayContaining([-3, 9, 0, -1]));
    expect(seen('x')).toEqual(expect.arrayContaining([2.5, 5e-324, 0.5]));
    expect(seen('x')).not.toContain(0);
    expect(seen('list')).toEqual(expect.arrayContaining([[]]));
    expect(seen('list').some((l) => Array.isArray(l) && l.length === 3)).toBe(true);
    expect(seen('color')).toEqual(expect.arrayContaining(['red', 'green', null]));
    expect(seen('maybe')).toContain(null);
    // Round-robin over the leaves: the first calls already touch several properties.
    const base = plan.edges[0] as Record<string, unknown>;
    const changed = new Set(
      plan.edges
        .slice(1, 6)
        .flatMap((e) =>
          Object.keys(e as object).filter((k) => JSON.stringify((e as Record<string, unknown>)[k]) !== JSON.stringify(base[k])),
        ),
    );
    expect(changed.size).toBeGreaterThanOrEqual(3);
  });

  it('a server that crashes on a string with a space is caught on 10 of 10 seeds, the case shrunk to a single space', async () => {
    const seeds = Array.from({ length: 10 }, () => Math.floor(Math.random() * 0x7fffffff));
    for (const seed of seeds) {
      const r = await runConformance({
        command: `node ${join(HOSTILE, 'hostile.js')} --behaviour crash-on-space`,
        checks: ['tools-call/valid-result'],
        seed,
        requestTimeoutMs: 5000,
        shutdownGraceMs: 300,
      });
      const shout = r.checks[0]!.results.find((x) => x.subject === 'tool:shout')!;
      expect(shout.verdict, `seed ${seed}: ${shout.reason ?? ''}`).toBe('fail');
      expect(shout.findings[0]!.actual).toMatch(/panic: unexpected space in argument/);
      expect(shout.findings[0]!.actual).toContain('Call: tools/call "shout" with {"arguments":{"text":" "}}');
    }
  });
});

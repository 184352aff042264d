/**
 * The harness's bounds against hostile input, unit by unit: schemas too deep
 * or too large, catastrophic patterns, `$ref` cycles and network `$ref`s,
 * endless lines, floods, stray responses, and secrets echoed back in pieces.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonSchema, isIndeterminate, measureSchema, SCHEMA_LIMITS } from '../harness/jsonschema.js';
import { LineSplitter } from '../harness/lines.js';
import { Redactor, REDACTED } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { MAX_VIOLATIONS, Session } from '../harness/session.js';
import { validExample } from '../harness/values.js';
import { boundedFormat, boundedTest, countedExpansion, RegexBudgetError, screenPattern } from '../harness/regex.js';
import { validArguments } from '../suites/args/generate.js';
import { mutantsOf } from '../suites/args/mutate.js';
import { compileSchema } from '../suites/args/schema.js';
import type { SendInfo, Transport, TransportSink } from '../harness/transport.js';

function nested(depth: number): string {
  let text = '{"type":"string"}';
  for (let i = 0; i < depth; i++) text = `{"type":"object","properties":{"a":${text}}}`;
  return text;
}

describe('hostile schemas', () => {
  it('refuses a schema nested thousands of levels deep without touching the stack', () => {
    const schema = JSON.parse(nested(5000));
    const r = checkJsonSchema(schema);
    expect(r.ok).toBe(false);
    expect(r.unevaluable).toMatch(/nested more than 128 levels deep/);
    expect(measureSchema(JSON.parse(nested(10))).beyond).toBeUndefined();
  });

  it('refuses a huge enum by size, and accepts a large but reasonable one', () => {
    const huge = { type: 'object', properties: { v: { enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) } } };
    const r = checkJsonSchema(huge);
    expect(r.unevaluable).toMatch(/more than 100,000 JSON values \(an enum of 200,000 values\)/);
    const fine = checkJsonSchema({ type: 'object', properties: { v: { enum: Array.from({ length: 5000 }, (_, i) => i) } } });
    expect(fine.ok).toBe(true);
    expect(SCHEMA_LIMITS.maxNodes).toBe(100_000);
  });

  it('reports a $ref cycle that consumes no data as recursing without end, and validation never throws', () => {
    const r = checkJsonSchema({ type: 'object', $ref: '#/$defs/loop', $defs: { loop: { $ref: '#/$defs/loop' } } });
    expect(r.ok).toBe(false);
    expect(r.unevaluable).toMatch(/recurses without end/);
    // A recursive schema that does consume data is fine.
    const tree = checkJsonSchema({ type: 'object', properties: { child: { $ref: '#' } } });
    expect(tree.ok).toBe(true);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    expect(tree.validate!(deep)).toBe(false);
    expect(isIndeterminate(tree.validate!.errors)).toBe(true);
  });

  it('never fetches a network $ref and reports it as unresolved', () => {
    const r = checkJsonSchema({ type: 'object', properties: { a: { $ref: 'https://example.invalid/schema.json' } } });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toBe('unresolved $ref "https://example.invalid/schema.json": network URIs are never dereferenced');
  });

  it('evaluates a catastrophic pattern within a time budget and says so', () => {
    const r = checkJsonSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } });
    expect(r.ok).toBe(true);
    const validate = r.validate!;
    expect(validate({ s: 'aaaaaaaaaaaa' })).toBe(true);
    expect(validate({ s: `${'a'.repeat(40)}!` })).toBe(false);
    expect(isIndeterminate(validate.errors)).toBe(true);
    expect(validate.errors![0]!.message).toMatch(
      /pattern "\^\(a\+\)\+\$" could not be evaluated within \d+ ms \(catastrophic backtracking\)/,
    );
    // The next match against the same pattern fails at once; other patterns still work.
    expect(validate({ s: `${'a'.repeat(30)}b` })).toBe(false);
    const other = checkJsonSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+$' } } }).validate!;
    expect(other({ s: 'abcdefghijklmnop' })).toBe(true);
    expect(other({ s: 'abcdefghijklmnoP' })).toBe(false);
    expect(isIndeterminate(other.errors)).toBe(false);
  });

  it('keeps schemas that declare the same $id apart', () => {
    const a = checkJsonSchema({ $id: 'urn:example:point', type: 'object', properties: { x: { type: 'number' } } });
    const b = checkJsonSchema({ $id: 'urn:example:point', type: 'object', properties: { y: { type: 'string' } } });
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(b.validate!({ y: 1 })).toBe(false);
  });
});

describe('size', () => {
  it('never buffers more than the maximum of a 50 MB line, and reports it once', () => {
    const max = 1024 * 1024;
    const lines: string[] = [];
    const big: number[] = [];
    const s = new LineSplitter(
      max,
      (l) => lines.push(l),
      (_h, n) => big.push(n),
    );
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let peak = 0;
    for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) {
      s.push(chunk);
      peak = Math.max(peak, s.buffered);
    }
    s.push(Buffer.from('\n{"ok":1}\n'));
    expect(peak).toBeLessThanOrEqual(max);
    expect(big).toHaveLength(1);
    expect(lines).toEqual(['{"ok":1}']);
  });
});

/** A transport the test drives by hand. */
class ManualTransport implements Transport {
  readonly kind = 'stdio' as const;
  sink!: TransportSink;
  sent: string[] = [];
  async start(sink: TransportSink) {
    this.sink = sink;
  }
  async send(text: string, _info: SendInfo) {
    this.sent.push(text);
    return {};
  }
  async close() {}
}

function manualSession(redactor = new Redactor(), timeoutMs = 2000) {
  const transport = new ManualTransport();
  const session = new Session(transport, {
    connection: 1,
    revision: '2026-07-28',
    redactor,
    schema: ProtocolSchema.load('2026-07-28'),
    requestTimeoutMs: timeoutMs,
    clock: () => 0,
  });
  return { session, transport };
}

describe('floods and stray messages', () => {
  it('keeps the wire log and the violation list bounded under a flood, and counts everything', async () => {
    const { session, transport } = manualSession();
    await session.start();
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(1000) } });
    for (let i = 0; i < 20_000; i++) transport.sink.message(line);
    for (let i = 0; i < 100; i++) transport.sink.message('x'.repeat(200_000));
    expect(session.violations.length).toBe(MAX_VIOLATIONS + 100);
    expect(session.countOf('schema-invalid')).toBe(20_000);
    expect(session.countOf('not-json')).toBe(100);
    expect(session.received.notifications).toBe(20_000);
    const frames = session.frames();
    expect(frames.length).toBeLessThanOrEqual(2000);
    expect(frames.reduce((n, f) => n + f.text.length, 0)).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(Math.max(...session.violations.map((v) => v.frame!.text.length))).toBeLessThanOrEqual(2048);
  });

  it('tells unknown ids, duplicates, late answers and id-less responses apart', async () => {
    const { session, transport } = manualSession(new Redactor(), 50);
    await session.start();
    const answer = (id: unknown) => transport.sink.message(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete' } }));
    const first = session.request('tools/list');
    const id = JSON.parse(transport.sent[0]!).id;
    answer(id);
    await first;
    answer(id);
    answer('never-sent');
    transport.sink.message(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'no' } }));
    await expect(session.request('tools/list')).rejects.toThrow(/no answer within/);
    const late = JSON.parse(transport.sent[1]!).id;
    answer(late);
    expect(session.violations.map((v) => v.kind)).toEqual(['duplicate-response', 'unknown-id', 'response-without-id', 'late-response']);
    // On stdio the suite tells the server it stopped waiting.
    expect(JSON.parse(transport.sent[2]!)).toMatchObject({ method: 'notifications/cancelled', params: { requestId: late } });
  });

  it('reports a message too deep to validate instead of throwing', async () => {
    const { session, transport } = manualSession();
    await session.start();
    const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
    const pending = session.request('server/discover');
    const id = JSON.stringify(JSON.parse(transport.sent[0]!).id);
    transport.sink.message(
      `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"completions":{"x":${deep}}}}}`,
    );
    const ex = await pending;
    expect(session.internalErrors).toEqual([]);
    expect(ex.schemaUnvalidated).toMatch(/nested too deeply/);
    expect(session.countOf('unvalidated')).toBe(1);
  });
});

describe('secrets', () => {
  it('masks a secret cut at the edge of an excerpt, and its JSON-escaped form', () => {
    const r = new Redactor();
    r.add('sk-"quoted"\\secret-1234');
    r.add('tok-abcdef123456');
    expect(r.redact(JSON.stringify({ v: 'sk-"quoted"\\secret-1234' }))).toBe(`{"v":"${REDACTED}"}`);
    expect(r.redact('prefix tok-abcd', { clipped: 'end' })).toBe(`prefix ${REDACTED}`);
    expect(r.redact('ef123456 suffix', { clipped: 'start' })).toBe(`${REDACTED} suffix`);
    expect(r.redact('prefix tok', { clipped: 'end' })).toBe('prefix tok');
    const deep = { a: ['tok-abcdef123456', { b: 'x tok-abcdef123456 y' }] };
    expect(r.redactDeep(deep)).toEqual({ a: [REDACTED, { b: `x ${REDACTED} y` }] });
  });
});

describe('generation', () => {
  it('refuses to build a value a hostile schema asks for instead of running out of memory', () => {
    expect(validExample({ type: 'object', properties: { a: { type: 'array', minItems: 1e9 } }, required: ['a'] })).toEqual({
      ok: false,
      problem: "the schema asks for a value beyond the generator's bounds: minItems 1000000000 (at most 1000 items are built)",
    });
    expect(validExample({ type: 'string', minLength: 1e12 }).ok).toBe(false);
    const nested = { type: 'array', minItems: 100, items: { type: 'array', minItems: 100, items: { type: 'array', minItems: 100 } } };
    expect(validExample(nested)).toMatchObject({ ok: false, problem: expect.stringMatching(/more than 10000 values/) });
    expect(validExample({ type: 'array', minItems: 3, items: { type: 'string', pattern: '^(a+)+$' } }).ok).toBe(false);
  });
});

describe('server-controlled patterns, bounded wherever they are evaluated', () => {
  it('screens a pattern before generation: catastrophic backtracking and nested counted repetition are refused, by name', () => {
    for (const p of ['^(g+)+$', '^(a|aa)+$', '^(\\w+\\s?)+$', '(x+x+)+y']) {
      expect(screenPattern(p)).toMatch(/backtracks catastrophically: matching a \d+-character string took more than 250 ms/);
      expect(screenPattern(p)).toContain(JSON.stringify(p));
    }
    expect(screenPattern('(a{1000}){1000}')).toMatch(/asks for strings of more than 10,000 characters/);
    expect(countedExpansion('(a{1000}){1000}')).toBe(1_000_000);
    expect(countedExpansion('^\\d{4}-\\d{2}$')).toBe(4);
    // Ordinary patterns, nested quantifiers with a separator included, pass.
    for (const p of ['^[a-z]+$', '^([a-z0-9]+[-_.])*[a-z0-9]+$', '^\\d{4}-\\d{2}-\\d{2}$', '^[A-Z]{2}-\\d{3}$'])
      expect(screenPattern(p)).toBeUndefined();
  });

  it('refuses to generate for a schema with a catastrophic pattern anywhere (property, patternProperties), naming it', () => {
    const started = Date.now();
    const a = validArguments({ type: 'object', properties: { s: { type: 'string', pattern: '^(b+)+$' } }, required: ['s'] }, 1);
    expect(a).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /^no arguments are generated for this inputSchema: pattern "\^\(b\+\)\+\$" backtracks catastrophically/,
      ),
    });
    const b = validArguments({ type: 'object', patternProperties: { '^(c+)+$': { type: 'string' } } }, 1);
    expect(b).toMatchObject({ ok: false, reason: expect.stringContaining('"^(c+)+$"') });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('mutation matches with the budget: a catastrophic pattern costs one budget, not the suite', () => {
    const compiled = compileSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(d+)+$' } } });
    if ('problem' in compiled) throw new Error(compiled.problem);
    const started = Date.now();
    const mutants = mutantsOf(compiled, { s: 'd'.repeat(40) });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(mutants.some((m) => m.keyword === 'type')).toBe(true);
    expect(boundedTest('^[a-z]+$', 'u', 'abcdefghijklmnop')).toBe(true);
    expect(() => boundedTest('^(e+)+$', 'u', `${'e'.repeat(40)}!`)).toThrow(RegexBudgetError);
  });

  it('checks a format on a long server string on the worker, with the same answers', () => {
    const r = checkJsonSchema({
      type: 'object',
      properties: { u: { type: 'string', format: 'email' }, d: { type: 'string', format: 'date-time' } },
    });
    const validate = r.validate!;
    expect(validate({ u: 'a@example.com', d: '2024-01-01T00:00:00Z' })).toBe(true);
    expect(validate({ u: `${'a'.repeat(5000)}@example.com` })).toBe(true);
    expect(validate({ u: `${'a.'.repeat(5000)}@` })).toBe(false);
    expect(isIndeterminate(validate.errors)).toBe(false);
    expect(boundedFormat('uuid', () => true)('x'.repeat(300))).toBe(false);
  });
});

describe('generation never spins on a schema that stops admitting its values', () => {
  it('a catastrophic pattern the screen misses (written with escapes) overruns once, then the check ends not-observed naming it', () => {
    // The screen attacks with the characters the pattern names ('x', '6', '8'): \x68 is 'h', so it passes.
    const pattern = '^(\\x68+)+$';
    expect(screenPattern(pattern)).toBeUndefined();
    const plan = validArguments({ type: 'object', properties: { s: { type: 'string', pattern, minLength: 20 } }, required: ['s'] }, 3);
    if (!plan.ok) throw new Error(plan.reason);
    // A server value that makes it backtrack (in a result, say): one budget spent, the pattern remembered.
    expect(() => boundedTest(pattern, 'u', `${'h'.repeat(40)}!`)).toThrow(RegexBudgetError);
    const started = Date.now();
    expect(() => fc.sample(plan.arb, { seed: 9, numRuns: 5 })).toThrow(/pattern "\^\(\\\\x68\+\)\+\$" overran the 500 ms matching budget/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/**
 * The multi round-trip driver as a client (harness/mrtr.ts), the example-value
 * generator behind its form answers (harness/values.ts), the raw duplicate-key
 * scan, the tampering helpers of the MRTR suite, fixture files, and a
 * server-documented harmless tampering not judged (integrity protection MAY be omitted).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../engine/config.js';
import { runConformance } from '../engine/run.js';
import { duplicateKeys } from '../harness/json-keys.js';
import { checkJsonSchema } from '../harness/jsonschema.js';
import { completeRequest, continueRequest, INPUT_CAPABILITIES } from '../harness/mrtr.js';
import { validExample } from '../harness/values.js';
import { otherArguments, tamperings } from '../suites/mrtr.js';
import { describeRun, referenceCommand, ROOT, tempDir } from './helpers.js';
import { schema, scriptedSession } from './scripted.js';

const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 3, maxLength: 10 },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    born: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 18, maximum: 99 },
    score: { type: 'number', maximum: 0.5 },
    ok: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'] },
    titled: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }] },
    many: { type: 'array', minItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
    manyTitled: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
  },
  required: ['name', 'email', 'age'],
};

const reply = (id: unknown, result: Record<string, unknown>) => ({ jsonrpc: '2.0', id, result });
const elicitation = (requestedSchema: unknown) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Tell me', requestedSchema },
});
const sampling = {
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 10 },
};

describe('completeRequest', () => {
  const STATE = 'opaque ✓ "state" with \\ and \u0001 — echoed as is';

  it('answers every request, retries with a fresh id, the same params, the same keys and the exact requestState', async () => {
    const { session, transport } = await scriptedSession((m, send) => {
      const p = m.params;
      if (p.requestState === undefined) {
        send(
          reply(m.id, {
            resultType: 'input_required',
            inputRequests: { form: elicitation(FORM), model: sampling, where: { method: 'roots/list' } },
            requestState: STATE,
          }),
        );
      } else if (p.requestState === STATE) {
        send(reply(m.id, { resultType: 'input_required', requestState: 'second' }));
      } else {
        send(reply(m.id, { resultType: 'complete', content: [{ type: 'text', text: 'done' }] }));
      }
    });
    const out = await completeRequest(session, 'tools/call', { name: 't', arguments: { a: [1, { b: 2 }] } });
    expect(out.status).toBe('complete');
    expect(out.rounds).toHaveLength(3);
    const [first, second, third] = transport.sent;
    expect(new Set(transport.sent.map((m) => JSON.stringify(m.id))).size).toBe(3);
    for (const m of [second, third]) {
      expect(m.params.name).toBe('t');
      expect(m.params.arguments).toEqual(first.params.arguments);
      expect(m.params._meta).toEqual(first.params._meta);
    }
    expect(first.params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual(INPUT_CAPABILITIES);
    expect(first.params).not.toHaveProperty('inputResponses');
    expect(first.params).not.toHaveProperty('requestState');
    expect(second.params.requestState).toBe(STATE);
    expect(Object.keys(second.params.inputResponses).sort()).toEqual(['form', 'model', 'where']);
    const { form, model, where } = second.params.inputResponses;
    expect(form.action).toBe('accept');
    expect(checkJsonSchema(FORM).validate!(form.content)).toBe(true);
    expect(schema.validate('ElicitResult', form)).toEqual([]);
    expect(schema.validate('CreateMessageResult', model)).toEqual([]);
    expect(schema.validate('ListRootsResult', where)).toEqual([]);
    expect(schema.validate('CallToolRequestParams', second.params)).toEqual([]);
    // A state-only round: retried at once, without inputResponses.
    expect(third.params.requestState).toBe('second');
    expect(third.params).not.toHaveProperty('inputResponses');
  });

  it('sends the scripted answers, and omits requestState when the server sent none', async () => {
    const { session, transport } = await scriptedSession((m, send) => {
      if (!m.params.inputResponses) {
        send(
          reply(m.id, {
            resultType: 'input_required',
            inputRequests: { a: elicitation(FORM), b: elicitation(FORM), c: elicitation(FORM), s: sampling, r: { method: 'roots/list' } },
          }),
        );
      } else send(reply(m.id, { resultType: 'complete', content: [] }));
    });
    const out = await completeRequest(
      session,
      'prompts/get',
      { name: 'p' },
      {
        answers: {
          a: { action: 'decline' },
          b: { action: 'cancel' },
          c: { action: 'accept', content: { name: 'Ada' } },
          s: { text: 'scripted', model: 'm' },
          r: { roots: [{ uri: 'file:///x' }] },
        },
      },
    );
    expect(out.status).toBe('complete');
    const retry = transport.sent[1]!.params;
    expect(retry).not.toHaveProperty('requestState');
    expect(retry.inputResponses).toEqual({
      a: { action: 'decline' },
      b: { action: 'cancel' },
      c: { action: 'accept', content: { name: 'Ada' } },
      s: { role: 'assistant', content: { type: 'text', text: 'scripted' }, model: 'm', stopReason: 'endTurn' },
      r: { roots: [{ uri: 'file:///x' }] },
    });
  });

  it('stops at the round bound, as unterminated', async () => {
    const { session, transport } = await scriptedSession((m, send) =>
      send(reply(m.id, { resultType: 'input_required', inputRequests: { again: elicitation(FORM) }, requestState: 's' })),
    );
    const out = await completeRequest(session, 'tools/call', { name: 't' }, { maxRounds: 3 });
    expect(out.status).toBe('unterminated');
    expect(out.rounds).toHaveLength(3);
    expect(transport.sent).toHaveLength(3);
  });

  it('notices at once a retry answered on the id of an earlier round', async () => {
    let firstId: unknown;
    const { session } = await scriptedSession((m, send) => {
      if (firstId === undefined) {
        firstId = m.id;
        send(reply(m.id, { resultType: 'input_required', inputRequests: { q: elicitation(FORM) } }));
      } else send(reply(firstId, { resultType: 'complete', content: [] }));
    }, 60_000);
    const out = await completeRequest(session, 'tools/call', { name: 't' });
    expect(out.status).toBe('stale-id');
    expect(out.staleAnswer?.answeredId).toBe(firstId);
    expect(out.staleAnswer?.frames.some((f) => f.dir === 'in')).toBe(true);
  });

  it('is stuck on what a client cannot act on: nothing asked, an unknown kind, an undeclared capability, an unknown resultType', async () => {
    const cases: Array<[Record<string, unknown>, string, Record<string, unknown>?]> = [
      [{ resultType: 'input_required' }, 'empty'],
      [{ resultType: 'input_required', inputRequests: { x: { method: 'tools/call', params: {} } } }, 'unanswerable'],
      [{ resultType: 'input_required', inputRequests: { x: elicitation(FORM) } }, 'undeclared', { sampling: {} }],
      [
        {
          resultType: 'input_required',
          inputRequests: { x: { method: 'elicitation/create', params: { mode: 'url', message: 'go', url: 'https://example.com' } } },
        },
        'undeclared',
      ],
      [{ resultType: 'later' }, 'result-type'],
    ];
    for (const [result, stuck, capabilities] of cases) {
      const { session, transport } = await scriptedSession((m, send) => send(reply(m.id, result)));
      const out = await completeRequest(session, 'tools/call', { name: 't' }, { capabilities });
      expect(out.status, JSON.stringify(result)).toBe('stuck');
      expect(out.stuck).toBe(stuck);
      expect(transport.sent).toHaveLength(1);
    }
  });

  it('continues from an answer already received, keeping its capabilities', async () => {
    const { session, transport } = await scriptedSession((m, send) =>
      send(
        reply(
          m.id,
          m.params.inputResponses
            ? { resultType: 'complete', content: [] }
            : { resultType: 'input_required', inputRequests: { q: sampling } },
        ),
      ),
    );
    const first = await session.request('tools/call', { name: 't' }, { meta: { capabilities: { sampling: {} } } });
    const out = await continueRequest(session, first);
    expect(out.status).toBe('complete');
    expect(transport.sent[1]!.params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({ sampling: {} });
  });
});

describe('validExample', () => {
  it('fills a flat elicitation form with a value valid against it', () => {
    const out = validExample(FORM, { optional: true });
    expect(out.ok, JSON.stringify(out)).toBe(true);
    expect(Object.keys((out as { value: object }).value).sort()).toEqual(Object.keys(FORM.properties).sort());
  });

  it('builds minimal valid tool arguments, and reports a schema it cannot satisfy', () => {
    const args = validExample({
      type: 'object',
      properties: { n: { type: 'integer', exclusiveMinimum: 5, multipleOf: 4 }, o: { type: 'string' } },
      required: ['n'],
    });
    expect(args).toEqual({ ok: true, value: { n: 8 } });
    expect(validExample({ type: 'string', pattern: '^[0-9]+$' }).ok).toBe(false);
  });
});

describe('duplicateKeys', () => {
  it('finds keys given twice in one object, wherever they are', () => {
    const text = '{"result":{"inputRequests":{"a":{"method":"x"},"b":1,"a":{"method":"y"}},"list":[{"k":1,"k":2}]}}';
    expect(duplicateKeys(text)).toEqual([
      { pointer: '/result/inputRequests', key: 'a' },
      { pointer: '/result/list/0', key: 'k' },
    ]);
    expect(duplicateKeys('{"a":"\\"a\\"","b":{"a":1}}')).toEqual([]);
  });
});

describe('tampering helpers', () => {
  it('tampers an opaque string in ways that never reproduce it', () => {
    for (const s of ['abc.def', 'A', 'x'.repeat(100), '-_-_', '']) {
      const variants = tamperings(s);
      expect(variants.length).toBeGreaterThan(0);
      for (const v of variants) expect(v.value).not.toBe(s);
    }
  });

  it('varies one argument and keeps it valid', () => {
    const tool = {
      inputSchema: {
        type: 'object',
        properties: { amount: { type: 'integer', maximum: 5 }, c: { enum: ['A', 'B'] } },
        required: ['amount'],
      },
    };
    expect(otherArguments(tool, { amount: 5 })).toEqual({ amount: 4 });
    expect(otherArguments(tool, { c: 'A', amount: 1 })).toEqual({ c: 'B', amount: 1 });
    expect(otherArguments({ inputSchema: { type: 'object' } }, {})).toBeUndefined();
  });
});

describe('fixture files', () => {
  it('the reference fixture file is valid', () => {
    const { config } = loadConfig(join(ROOT, 'fixtures/reference.config.yaml'));
    expect(Object.keys(config.fixtures ?? {})).toContain('mrtr_elicit');
  });

  it('rejects a bad fixture with the path inside the file and the reason', () => {
    const dir = tempDir();
    const file = join(dir, 'bad.config.yaml');
    writeFileSync(file, 'fixtures:\n  mrtr_elicit:\n    calls:\n      - expect: { outcome: maybe }\n');
    expect(() => loadConfig(file)).toThrow(
      /is invalid at \/fixtures\/mrtr_elicit\/calls\/0\/expect\/outcome: must be equal to one of the allowed values/,
    );
  });
});

describe('tampering the server documents as harmless', () => {
  // "Integrity protection MAY be omitted only when tampering can cause nothing worse than request failure":
  // a MAY never fails or warns, so such a tool is not judged (and the reason says so).
  it('is not judged: integrity protection MAY be omitted', async () => {
    const { config } = loadConfig(join(ROOT, 'fixtures/reference.config.yaml'));
    const harmless = { ...config, fixtures: { ...config.fixtures } };
    for (const tool of ['mrtr_all', 'mrtr_multi', 'mrtr_signed'])
      harmless.fixtures![tool] = { ...harmless.fixtures![tool], tamperingHarmless: true };
    const result = await runConformance({
      command: referenceCommand('--break', 'mrtr/state-integrity'),
      // A second check, so the run tests something (a run of not-observed alone ends with exit 2).
      checks: ['mrtr/state-integrity', 'mrtr/input-or-state'],
      requestTimeoutMs: 5000,
      config: harmless,
    });
    const check = result.checks.find((c) => c.id === 'mrtr/state-integrity')!;
    expect(
      check.results.map((r) => r.verdict),
      describeRun(result),
    ).toEqual(['not-observed']);
    expect(check.results[0]!.reason).toMatch(/tamperingHarmless/);
    expect(result.harnessErrors, describeRun(result)).toEqual([]);
    expect(result.exitCode, describeRun(result)).toBe(0);
  });
});

describe('tampering that changes nothing', () => {
  // "Integrity protection MAY be omitted only when tampering can cause nothing worse than request failure": a state
  // that is a kind and a nonce, never read beyond the kind, is conformant unsigned. Its tampered retries either fail
  // (the kind changed) or end as the untampered one did: neither is a failure of mrtr/state-integrity.
  it('passes: a kind-and-nonce requestState left unsigned', async () => {
    const { config } = loadConfig(join(ROOT, 'fixtures/reference.config.yaml'));
    const result = await runConformance({
      command: referenceCommand('--nonce-state'),
      checks: ['mrtr/state-integrity', 'mrtr/input-or-state'],
      requestTimeoutMs: 5000,
      config,
    });
    const check = result.checks.find((c) => c.id === 'mrtr/state-integrity')!;
    expect(
      check.results.map((r) => r.verdict),
      describeRun(result),
    ).toEqual(['pass']);
    const unchanged = check.results[0]!.details?.['tampering changed nothing'] as string[] | undefined;
    expect(
      unchanged?.some((line) => line.startsWith('tools/call mrtr_all')),
      describeRun(result),
    ).toBe(true);
    expect(result.exitCode, describeRun(result)).toBe(0);
  });
});

/**
 * The legacy era's own rules where the kill matrix cannot show the edge:
 * the cancellation check's Timing allowance (a response that crossed the
 * cancellation is never held against the server; one sent after the server
 * read it is), and the elicitation modes a capability declares. Scripted
 * servers (test/scripted.ts) play each timing exactly.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../harness/session.js';
import { cancelledNotAnswered } from '../suites/cancellation-legacy.js';
import { Probe, VerdictSignal, type SuiteContext } from '../suites/check.js';
import { declaredModes } from '../suites/elicitation.js';
import { sessionIdProblem } from '../suites/sessions.js';
import type { Config } from '../model/config.js';
import { schema, scriptedSession, type Answer } from './scripted.js';

const CONFIG: Config = { slowTool: { name: 'slow', arguments: { ms: 300 } } };

/** Just what the cancellation check uses of a run: its config, settings and one connection. */
function context(session: Session): SuiteContext {
  const unused = () => Promise.reject(new Error('not used by this check'));
  return {
    transport: 'stdio',
    revision: '2025-11-25',
    era: 'legacy',
    settings: { requestTimeoutMs: 2000, maxPages: 10, maxMessageBytes: 1 << 20, maxRounds: 8, notificationTimeoutMs: 500 },
    config: CONFIG,
    signal: new AbortController().signal,
    session: () => session,
    openSession: async () => session,
    discovery: () => ({}),
    tools: unused,
    toolsFresh: unused,
    walk: unused,
    allSessions: () => [session],
    schemaJudged: new Set(),
    framesJudged: new Set(),
    schemaJudgedExchanges: new WeakSet(),
    protocolSchema: schema,
  };
}

/** Run the check against a scripted server: its verdict, as the engine would give it. */
async function verdictOf(answer: Answer): Promise<{ verdict: string; reason?: string; actual?: string }> {
  const { session } = await scriptedSession(answer);
  const probe = new Probe(context(session), cancelledNotAnswered, 'server');
  try {
    await cancelledNotAnswered.run!(probe);
  } catch (err) {
    if (err instanceof VerdictSignal) return { verdict: err.verdict, reason: err.reason };
    throw err;
  } finally {
    await session.close();
  }
  return probe.findings.length ? { verdict: 'warn', actual: probe.findings[0]!.actual } : { verdict: 'pass' };
}

const result = (id: unknown, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

describe('cancellation/cancelled-not-answered: the Timing allowance', () => {
  it('a response sent before the server read the cancellation (it crossed it) is not-observed, never a warning', async () => {
    const out = await verdictOf((m, send) => {
      // The call is answered at once: the answer is on its way before the cancellation arrives.
      if (m.method === 'tools/call' || m.method === 'ping') send(result(m.id, 'done'));
    });
    expect(out.verdict).toBe('not-observed');
    expect(out.reason).toMatch(/crossed the cancellation/);
  });

  it('a response sent after the server read the cancellation (after the ping that followed it) is a warning', async () => {
    let first: unknown;
    const out = await verdictOf((m, send) => {
      if (m.method === 'tools/call' && first === undefined) first = m.id;
      else if (m.method === 'ping') {
        send(result(m.id, 'pong'));
        // The cancellation was read (it came before this ping), and the call still answers.
        if (first !== undefined) send(result(first, 'done anyway'));
      } else if (m.method === 'tools/call') send(result(m.id, 'done'));
    });
    expect(out.verdict).toBe('warn');
    expect(out.actual).toMatch(/after answering the ping sent after the cancellation/);
  });

  it('a cancelled call that is never answered passes', async () => {
    let first: unknown;
    const out = await verdictOf((m, send) => {
      if (m.method === 'tools/call' && first === undefined) first = m.id;
      else if (m.method === 'ping' || m.method === 'tools/call') send(result(m.id, 'done'));
    });
    expect(out).toEqual({ verdict: 'pass' });
  });
});

describe('elicitation modes a capability declares', () => {
  it('{} is form mode only; form and url are each what they name', () => {
    expect(declaredModes({})).toEqual(['form']);
    expect(declaredModes({ form: {} })).toEqual(['form']);
    expect(declaredModes({ url: {} })).toEqual(['url']);
    expect(declaredModes({ form: {}, url: {} })).toEqual(['form', 'url']);
    expect(declaredModes(undefined)).toEqual([]);
  });
});

describe('session ids: unique and not a counter', () => {
  it('random UUIDs pass; a repeat or a counter is named', () => {
    expect(
      sessionIdProblem([
        '9b2f3c1e-6a51-4d1b-9f0e-2a7c8d3e4f50',
        '0c7d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
        'f1e2d3c4-b5a6-4978-8a6b-5c4d3e2f1a0b',
      ]),
    ).toBeUndefined();
    expect(sessionIdProblem(['abc', 'abc'])).toMatch(/same id/);
    expect(sessionIdProblem(['session-7', 'session-8', 'session-9'])).toMatch(/count up/);
    expect(sessionIdProblem(['1733050000123', '1733050000456'])).toMatch(/count up/);
    expect(sessionIdProblem(['x9', 'x3'])).toBeUndefined();
  });
});

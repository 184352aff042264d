/**
 * Logging (2025-11-25/server/utilities/logging): a server that sends log
 * messages declares the `logging` capability (the draft page says the same:
 * both eras), and answers an unknown level in `logging/setLevel` with -32602
 * (legacy only: the modern revisions have no logging/setLevel). The page's sentence about which levels
 * follow `logging/setLevel` ("Only sends error level and above", and the
 * schema's lowercase "should send all logs at this level and higher") has
 * no RFC 2119 keyword, so no check holds it against a server.
 */
import { defineCheck, describeAnswer, show } from './check.js';
import { ERROR_CODES } from '../model/error-codes.js';

/** A level no revision defines. */
export const UNKNOWN_LEVEL = 'mcp-conformance-unknown-level';

function declaresLogging(caps: Record<string, unknown> | undefined): boolean {
  return !!caps && caps.logging !== undefined;
}

export const capabilityDeclared = defineCheck({
  id: 'logging/capability-declared',
  title: 'a server that sends log messages declares the logging capability',
  level: 'MUST',
  observer: true,
  spec: { revision: 'draft', page: 'server/utilities/logging', section: 'Capabilities' },
  quote: 'Servers that emit log message notifications MUST declare the logging capability',
  legacy: { spec: { revision: '2025-11-25', page: 'server/utilities/logging', section: 'Capabilities' } },
  async run(t) {
    const caps = t.ctx.discovery().capabilities;
    const where = t.ctx.era === 'legacy' ? 'initialize' : 'server/discover';
    if (!caps) return t.notObserved(`${where} gave no capabilities to judge against`);
    const sent = t.ctx
      .allSessions()
      .map((s) => s.inboundMethods.get('notifications/message'))
      .filter((m) => m !== undefined);
    const count = sent.reduce((n, m) => n + m.count, 0);
    t.note('log messages seen', count);
    if (count === 0 || declaresLogging(caps)) return;
    t.expect(false, {
      expected: `capabilities.logging in the ${where} result, since the server sends notifications/message`,
      actual: `${count} notifications/message, and the ${where} capabilities are ${show(caps)}`,
      wire: [sent[0]!.frame, ...(t.ctx.discovery().exchange?.frames ?? [])]
        .filter((f, i, all) => all.indexOf(f) === i)
        .sort((a, b) => a.at - b.at),
    });
  },
});

export const invalidLevel = defineCheck({
  id: 'logging/invalid-level',
  title: 'logging/setLevel with an unknown level is answered with -32602',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'server/utilities/logging', section: 'Error Handling' },
  quote: 'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)',
  async run(t) {
    if (!declaresLogging(t.ctx.discovery().capabilities)) return t.skip('the server does not declare the logging capability in initialize');
    // A fresh connection, so whatever the server makes of the level stays there.
    const s = await t.ctx.openSession();
    const ex = await s.request('logging/setLevel', { level: UNKNOWN_LEVEL });
    t.expect(ex.error?.code === ERROR_CODES.INVALID_PARAMS, {
      expected: `JSON-RPC error -32602 for level ${JSON.stringify(UNKNOWN_LEVEL)}`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

export const loggingChecks = [capabilityDeclared, invalidLevel];

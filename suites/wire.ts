/**
 * Rules about the wire as a whole, judged from everything the run saw
 * (basic/index "Messages", basic/transports/stdio).
 */
import { BOTH_ERAS, defineCheck } from './check.js';
import type { Violation } from '../harness/session.js';

export const stdoutJsonRpcOnly = defineCheck({
  id: 'transport/stdout-json-rpc-only',
  title: 'the server writes nothing but MCP messages to stdout',
  level: 'MUST',
  spec: { page: 'basic/transports/stdio', section: 'stdio' },
  requirement: 'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
  transports: ['stdio'],
  revisions: BOTH_ERAS,
  observer: true,
  async run(t) {
    const kinds: Violation['kind'][] = ['not-json', 'not-jsonrpc', 'batch'];
    const bad = t.ctx.allSessions().flatMap((s) => s.violations.filter((v) => kinds.includes(v.kind)));
    t.note('violations', bad.length);
    for (const v of bad.slice(0, 5)) {
      t.expect(false, { expected: 'one JSON-RPC message per stdout line', actual: v.detail, wire: v.frame ? [v.frame] : [] });
    }
  },
});

export const messagesSchemaValid = defineCheck({
  id: 'protocol/messages-schema-valid',
  title: 'every other message the server sent is valid against the protocol schema',
  level: 'MUST',
  spec: { page: 'basic/index', section: 'Schema' },
  requirement:
    'All messages MUST follow JSON-RPC 2.0 and the protocol schema, the source of truth for all protocol messages and structures.',
  revisions: BOTH_ERAS,
  observer: true,
  async run(t) {
    const sessions = t.ctx.allSessions();
    const notes = sessions.flatMap((s) => s.violations.filter((v) => v.kind === 'schema-invalid'));
    // Responses to a method another check judged against the schema are that check's finding.
    const unjudged = sessions.flatMap((s) =>
      s.invalidExchanges.filter((ex) => !t.ctx.schemaJudged.has(ex.method) && !t.ctx.schemaJudgedExchanges.has(ex)),
    );
    t.note('invalid messages', notes.length + unjudged.length);
    for (const v of notes.slice(0, 5)) {
      t.expect(false, { expected: 'a schema-valid notification', actual: v.detail, wire: v.frame ? [v.frame] : [] });
    }
    for (const ex of unjudged.slice(0, 5)) {
      t.expect(false, {
        expected: `a response to ${ex.method} valid against ${ex.schemaDef}`,
        actual: ex.schemaErrors.join('; '),
        wire: ex,
      });
    }
  },
});

export const wireChecks = [stdoutJsonRpcOnly, messagesSchemaValid];

/**
 * Transport rules judged from everything the run saw (basic/transports:
 * stdio and Streamable HTTP).
 */
import { formatSeconds } from '../harness/errors.js';
import { defineCheck } from './check.js';
import { judgeViolations } from './violations.js';

export const stdoutJsonRpcOnly = defineCheck({
  id: 'transport/stdout-json-rpc-only',
  title: 'the server writes nothing but MCP messages to stdout',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'stdio' },
  quote: 'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/transports', section: 'stdio' } },
  // A message written over several lines (e.g. pretty-printed JSON) is one defect: the session reads it
  // whole and records it once as split-message, not its lines as lines that are not JSON.
  parts: {
    'one-line': {
      level: 'MUST',
      spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'stdio' },
      quote: 'Messages are delimited by newlines, and MUST NOT contain embedded newlines.',
      legacy: { spec: { revision: '2025-11-25', page: 'basic/transports', section: 'stdio' } },
    },
  },
  transports: ['stdio'],
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per stdout line', 'line');
    judgeViolations(t, ['split-message'], 'each message on one line, with no newline inside it', 'message', 'one-line');
  },
});

export const exitsOnStdinClose = defineCheck({
  id: 'transport/exits-on-stdin-close',
  title: 'the server exits when its stdin is closed',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'Shutdown' },
  quote: 'Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file.',
  // Modern only: 2025-11-25 (basic/lifecycle#Shutdown) tells the client how to shut a server down and
  // states no rule for the server.
  transports: ['stdio'],
  async run(t) {
    // A process of its own, shown to be serving, then its stdin closed.
    const s = await t.ctx.openSession();
    const ex = await s.request('server/discover');
    // Every step waited out, whatever earlier connections showed (they skip what this one judges).
    s.transport.fullStop = true;
    await s.close();
    const how = s.shutdown;
    if (!how) return t.notObserved('the server process could not be observed stopping');
    const grace = formatSeconds(how.graceMs);
    const actual =
      how.step === 'SIGTERM'
        ? `it was still running ${grace} after its stdin was closed; it exited on SIGTERM`
        : `it exited neither within ${grace} after its stdin was closed nor within ${grace} of SIGTERM; it was killed with SIGKILL`;
    t.note('stopped by', how.step);
    t.expect(how.step === 'stdin' || how.step === 'itself', {
      expected: `the process exits within ${grace} (--shutdown-timeout) after its stdin is closed`,
      actual,
      wire: ex,
    });
  },
});

export const httpJsonRpcOnly = defineCheck({
  id: 'transport/http-json-rpc-only',
  title: 'every JSON response body and SSE event is one JSON-RPC message',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/index', section: 'Messages' },
  quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.',
  legacy: { spec: { revision: '2025-11-25', page: 'basic/index', section: 'Messages' } },
  // On stdio the stricter stdout rule judges the same faults.
  transports: ['http'],
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per JSON body or SSE event');
  },
});

// transport/message-size is gone: the spec sets no size limit, so a message larger than the suite
// reads (--max-message-size) is no finding against the server. Such a message is dropped unread, and
// protocol/messages-schema-valid says it could not be validated (not observed, naming the flag).

export const transportChecks = [stdoutJsonRpcOnly, exitsOnStdinClose, httpJsonRpcOnly];

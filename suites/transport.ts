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
  legacy: { spec: { revision: '2025-11-25', page: 'basic/transports/stdio', section: 'stdio' } },
  transports: ['stdio'],
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per stdout line', 'line');
  },
});

export const exitsOnStdinClose = defineCheck({
  id: 'transport/exits-on-stdin-close',
  title: 'the server exits when its stdin is closed',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/stdio', section: 'Shutdown' },
  quote: 'Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file.',
  transports: ['stdio'],
  async run(t) {
    // A process of its own, shown to be serving, then its stdin closed.
    const s = await t.ctx.openSession();
    const ex = await s.request('server/discover');
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
  quote:
    'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification (on Streamable HTTP: a JSON response body or an SSE event carries one JSON-RPC message).',
  // On stdio the stricter stdout rule judges the same faults.
  transports: ['http'],
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-json', 'not-jsonrpc', 'batch'], 'one JSON-RPC message per JSON body or SSE event');
  },
});

export const messageSize = defineCheck({
  id: 'transport/message-size',
  title: 'every message fits within the largest message the suite accepts',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'basic/transports/index', section: 'Messages' },
  quote:
    'A binding MUST deliver server-sent responses and notifications to the client. The spec sets no size limit, so a message larger than the client accepts (--max-message-size) is judged as a SHOULD: it cannot be delivered to this client.',
  observer: true,
  async run(t) {
    const max = t.ctx.settings.maxMessageBytes;
    judgeViolations(t, ['oversized-message'], `every message at most ${max.toLocaleString('en-US')} bytes (--max-message-size)`);
  },
});

export const transportChecks = [stdoutJsonRpcOnly, exitsOnStdinClose, httpJsonRpcOnly, messageSize];

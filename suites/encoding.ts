/**
 * The encoding of every message (basic/transports/index "Messages"), judged
 * from the bytes the transports read: a stdout line, an HTTP body or an SSE
 * stream that is not well-formed UTF-8.
 */
import { defineCheck } from './check.js';
import { judgeViolations } from './violations.js';

export const utf8 = defineCheck({
  id: 'encoding/utf-8',
  title: 'every message is UTF-8',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/transports/index', section: 'Messages' },
  quote: 'MCP uses JSON-RPC to encode messages. JSON-RPC messages MUST be UTF-8 encoded.',
  // 2025-11-25 states the same sentence at the top of basic/transports.
  legacy: { spec: { revision: '2025-11-25', page: 'basic/transports', section: 'Transports' } },
  observer: true,
  async run(t) {
    judgeViolations(t, ['not-utf8'], 'well-formed UTF-8 bytes', 'message');
  },
});

export const encodingChecks = [utf8];

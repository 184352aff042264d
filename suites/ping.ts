/**
 * Ping (2025-11-25/basic/utilities/ping): the receiver answers a `ping`
 * request promptly with an empty result. The modern revisions dropped the
 * method, so the check is of the legacy era only.
 */
import { defineCheck, describeAnswer } from './check.js';

export const pingAnswered = defineCheck({
  id: 'ping/answered',
  title: 'ping is answered promptly with an empty result',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/ping', section: 'Behavior Requirements' },
  quote: 'The receiver MUST respond promptly with an empty response',
  async run(t) {
    // "Promptly": within the per-request timeout (a timeout is a failure of its own).
    const ex = await t.request('ping');
    t.note('answered in (ms)', ex.durationMs);
    if (!t.expect(!ex.error, { expected: 'an empty result {}', actual: describeAnswer(ex), wire: ex })) return;
    // `_meta` is the protocol's own envelope (Result), not content.
    const keys = Object.keys(ex.result ?? {}).filter((k) => k !== '_meta');
    t.expect(keys.length === 0, {
      expected: 'an empty result {}',
      actual: `a result with ${keys.map((k) => JSON.stringify(k)).join(', ')}: ${describeAnswer(ex)}`,
      wire: ex,
    });
  },
});

export const pingChecks = [pingAnswered];

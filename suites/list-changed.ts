/**
 * List changes in the legacy era (2025-11-25/server/tools "List Changed
 * Notification"): a server declaring `tools.listChanged` sends
 * `notifications/tools/list_changed` on the session when its tool list
 * really changes. The change is made with the configuration file's
 * `listChanged.trigger` (and undone with its `undo`); the list is walked
 * before and after, so a notification is only asked for when the list did
 * change. (The modern era notifies subscriptions instead: subscriptions/list-changed.)
 */
import { walkList } from '../harness/walk.js';
import type { Session } from '../harness/session.js';
import { defineCheck, type Probe } from './check.js';
import { describeDiff, isSame, toolsDiff } from './compare.js';
import { fire } from './subscriptions.js';
import type { JsonObject } from '../model/json.js';

const TOOLS_CHANGED = 'notifications/tools/list_changed';

async function walkTools(t: Probe, session: Session, when: string) {
  const walk = await walkList(session, 'tools/list', 'tools', { maxPages: t.ctx.settings.maxPages });
  if (!walk.exhausted) t.notObserved(`tools/list ${when} could not be walked: ${walk.problem?.detail}`);
  return walk;
}

export const toolsNotified = defineCheck({
  id: 'list-changed/tools-notified',
  title: 'a real change of the tool list is notified on the session (legacy era)',
  level: 'SHOULD',
  capability: 'tools',
  spec: { revision: '2025-11-25', page: 'server/tools', section: 'List Changed Notification' },
  quote: 'When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification',
  async run(t) {
    if (!t.ctx.config.listChanged?.trigger) {
      return t.notObserved('no listChanged.trigger in the configuration file: the suite cannot make the tool list change');
    }
    const declared = (t.ctx.discovery().capabilities?.tools as JsonObject | undefined)?.listChanged === true;
    const session = t.session;
    const before = await walkTools(t, session, 'before the change');
    const ms = t.ctx.settings.notificationTimeoutMs;
    const started = Date.now();
    // Waiting starts before the trigger is sent: a notification on the trigger's own stream counts.
    const waiting = session.waitForMessage((m) => m.method === TOOLS_CHANGED, ms, t.ctx.signal);
    const fired = (await fire(t, session, 'trigger'))!;
    if (!fired.ok) {
      await waiting;
      return t.notObserved(`the configured listChanged.trigger failed: ${fired.detail}`);
    }
    const notice = await waiting;
    const latency = Date.now() - started;
    let after;
    try {
      after = await walkTools(t, session, 'after the change');
    } finally {
      // Leave the server as it was found; the undo's own notification is waited for, so it reaches no later check.
      const undoNotice = notice ? session.waitForMessage((m) => m.method === TOOLS_CHANGED, ms, t.ctx.signal) : undefined;
      const undone = await fire(t, session, 'undo');
      if (undone && !undone.ok) t.note('undo', `the configured listChanged.undo failed: ${undone.detail}`);
      if (undone?.ok) await undoNotice;
    }
    const diff = toolsDiff(before.items, after.items);
    t.note('difference', diff);
    if (isSame(diff)) {
      if (notice)
        t.note('notified without a change', 'notifications/tools/list_changed arrived, but tools/list is the same before and after');
      return t.notObserved(`the trigger ran (${fired.detail}) but tools/list did not change`);
    }
    if (notice) {
      t.note('notified after (ms)', latency);
      return;
    }
    if (!declared) return t.skip('the tool list changed without a notification, and the server does not declare tools.listChanged: true');
    t.expect(false, {
      expected: `${TOOLS_CHANGED} on the session within ${ms / 1000} s of the change`,
      actual: `none arrived, yet tools/list changed: ${describeDiff(diff)}`,
      wire: [...(fired.exchange?.frames ?? []), ...after.pages.flatMap((p) => p.frames)].sort((a, b) => a.seq - b.seq),
    });
  },
});

export const listChangedChecks = [toolsNotified];

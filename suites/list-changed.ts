/**
 * List changes. In the legacy era (2025-11-25/server/tools "List Changed
 * Notification") a server declaring `tools.listChanged` sends
 * `notifications/tools/list_changed` on the session when its tool list
 * really changes. The change is made with the configuration file's
 * `listChanged.trigger` (and undone with its `undo`); the list is walked
 * before and after, so a notification is only asked for when the list did
 * change. (The modern era notifies subscriptions instead: subscriptions/list-changed.)
 *
 * The prompt and resource lists are judged the same way in both eras by
 * `judgeListChange` (prompts/list-changed, resources/list-changed), with the
 * configuration's `listChanged.prompts` / `listChanged.resources` trigger: on
 * the session in the legacy era, on a subscriptions/listen stream that asked
 * for the list's changes in the modern era.
 */
import { walkList } from '../harness/walk.js';
import type { Session } from '../harness/session.js';
import { orderFrames, type Subscription } from '../harness/subscription.js';
import { defineCheck, type Probe } from './check.js';
import { describeDiff, isSame, toolsDiff } from './compare.js';
import { acknowledgedSubscription, fire, runTrigger } from './subscriptions.js';
import { LISTS } from './lists.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';

const TOOLS_CHANGED = 'notifications/tools/list_changed';

async function walkTools(t: Probe, session: Session, when: string) {
  const walk = await walkList(session, 'tools/list', 'tools', { maxPages: t.ctx.settings.maxPages });
  if (!walk.exhausted) t.notObserved(`tools/list ${when} could not be walked: ${walk.problem?.detail}`);
  return walk;
}

export const toolsNotified = defineCheck({
  id: 'list-changed/tools-notified',
  unlockedBy: ['listChanged.trigger'],
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

/** The lists whose changes judgeListChange judges, with their subscription filter keys. */
const FILTERS = { prompts: 'promptsListChanged', resources: 'resourcesListChanged' } as const;

/**
 * Where a change notification is awaited: on a subscription asking for the
 * list's changes (modern era), or on the session itself (legacy era).
 */
async function listenFor(t: Probe, session: Session, slug: keyof typeof FILTERS): Promise<Subscription | undefined> {
  if (t.ctx.era === 'legacy') return undefined;
  return acknowledgedSubscription(t, session, { notifications: { [FILTERS[slug]]: true } });
}

/**
 * A real change of the prompt or resource list, caused with the configured
 * trigger, is notified: on a subscription that asked for it (modern era) or
 * on the session (legacy era). Skipped unless the server declares
 * `<list>.listChanged: true`; not observed without a trigger, or when the
 * trigger did not change the list. Runs on a fresh connection (stdio: its
 * own process, so the change stays there) and undoes the change.
 */
export async function judgeListChange(t: Probe, slug: keyof typeof FILTERS): Promise<void> {
  const list = LISTS.find((l) => l.slug === slug)!;
  const method = `notifications/${slug}/list_changed`;
  const declared = (t.ctx.discovery().capabilities?.[slug] as JsonObject | undefined)?.listChanged === true;
  if (!declared) t.skip(`the server does not declare ${slug}.listChanged: true`);
  const configured = t.ctx.config.listChanged?.[slug];
  if (!configured)
    t.notObserved(
      `no listChanged.${slug}.trigger in the configuration file: configure one (a tool call or a shell command that changes ${list.method}, and its undo) so the suite can make the ${list.noun} list change`,
    );
  const session = await t.ctx.openSession();
  const sub = await listenFor(t, session, slug);
  const walk = async (when: string) => {
    const w = await walkList(session, list.method, list.itemsKey, { maxPages: t.ctx.settings.maxPages });
    if (!w.exhausted) t.notObserved(`${list.method} ${when} could not be walked: ${w.problem?.detail}`);
    return w;
  };
  const ms = t.ctx.settings.notificationTimeoutMs;
  const wait = (): Promise<{ frame: WireFrame } | undefined> =>
    sub
      ? sub.waitFor((m) => m.msg.method === method, ms, sub.messages.length)
      : session.waitForMessage((m) => m.method === method, ms, t.ctx.signal);
  const before = await walk('before the change');
  const started = Date.now();
  // Waiting starts before the trigger is sent: a notification on the trigger's own stream counts.
  const waiting = wait();
  const fired = await runTrigger(t, session, configured.trigger);
  if (!fired.ok) {
    await waiting;
    t.notObserved(`the configured listChanged.${slug}.trigger failed: ${fired.detail}`);
  }
  const notice = await waiting;
  const latency = Date.now() - started;
  let after;
  try {
    after = await walk('after the change');
  } finally {
    // Leave the server as it was found; the undo's own notification is waited for, so it reaches no later check.
    if (configured.undo) {
      const undoNotice = notice ? wait() : undefined;
      const undone = await runTrigger(t, session, configured.undo);
      if (!undone.ok) t.note('undo', `the configured listChanged.${slug}.undo failed: ${undone.detail}`);
      else await undoNotice;
    }
  }
  const diff = toolsDiff(before.items, after.items, list.label);
  t.note('difference', diff);
  if (isSame(diff)) {
    if (notice) t.note('notified without a change', `${method} arrived, but ${list.method} is the same before and after`);
    t.notObserved(`the trigger ran (${fired.detail}) but ${list.method} did not change`);
  }
  if (notice) {
    t.note('notified after (ms)', latency);
    return;
  }
  t.expect(false, {
    expected: `${method} ${sub ? 'on the subscription' : 'on the session'} within ${ms / 1000} s of the change`,
    actual: `none arrived, yet ${list.method} changed: ${describeDiff(diff)}`,
    wire: orderFrames([...(sub?.frames() ?? []), ...(fired.exchange?.frames ?? []), ...after.pages.flatMap((p) => p.frames)]),
  });
}

export const listChangedChecks = [toolsNotified];

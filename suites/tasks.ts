/**
 * Tasks (2025-11-25/basic/utilities/tasks; the modern revisions have no
 * tasks, so every check here is legacy-only).
 *
 * Without declared task support: a request of a type the server declared no
 * task support for is served normally, its `task` field ignored. `tools/list`
 * is such a type for every server (no capability makes it task-augmentable);
 * `tools/call` is one unless `tasks.requests.tools.call` is declared, and is
 * tried with a tool name no server lists, so nothing runs.
 *
 * With `tasks.requests.tools.call` declared: the receiver's rules a client
 * can see, on one task driven once per run (`driveTask`): a task-augmented
 * call of a task-capable tool (the configuration's `taskTool`, else the first
 * listed tool whose `execution.taskSupport` is "optional" or "required" that
 * the call policy lets the suite call with generated valid arguments), a
 * `tasks/result` sent at once (it blocks until the task is terminal), polling
 * with `tasks/get` at the task's `pollInterval` (or sooner, on a status
 * notification) until the task is terminal, within the request timeout, and
 * `tasks/result` and `tasks/get` once more. The call carries a progressToken,
 * and the drive records every notifications/progress naming it. The
 * cancellation check creates a task of its own.
 */
import fc from 'fast-check';
import { RequestTimeoutError } from '../harness/errors.js';
import type { Exchange, Session } from '../harness/session.js';
import { walkList } from '../harness/walk.js';
import { argumentRun } from './args/calls.js';
import { defineCheck, describeAnswer, memoKey, show, VerdictSignal, type Probe } from './check.js';
import { NEVER_ISSUED_CURSOR } from './pagination.js';
import { heldBackNames, whyNotCallableAsWritten } from './safety.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import { ERROR_CODES } from '../model/error-codes.js';

/** The task augmentation the probes carry (TaskMetadata). */
export const TASK = { ttl: 60_000 };
/** A tool name no server lists: the tools/call probe runs nothing. */
export const NO_SUCH_TOOL = 'mcp-conformance-no-such-tool';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How an answer came out, for comparing a plain and an augmented request. */
function kind(ex: Exchange): string {
  if (ex.error) return `error ${show(ex.error.code)}`;
  if (isObject(ex.result?.task)) return 'a CreateTaskResult';
  return ex.result?.isError === true ? 'an isError result' : 'a result';
}

export const ignoredWithoutCapability = defineCheck({
  id: 'tasks/ignored-without-capability',
  title: 'a request of a type without declared task support is served normally, its task field ignored',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task Support and Handling' },
  quote:
    'Receivers that do not declare the task capability for a request type MUST process requests of that type normally, ignoring any task-augmentation metadata if present.',
  async run(t) {
    const tasks = t.ctx.discovery().capabilities?.tasks;
    const toolCalls =
      isObject(tasks) && isObject(tasks.requests) && isObject(tasks.requests.tools) && tasks.requests.tools.call !== undefined;
    t.note('tasks capability', tasks ?? 'none');
    // tools/list: never task-augmentable.
    const list = await t.request('tools/list', { task: { ...TASK } });
    const listOk = !list.error && Array.isArray(list.result?.tools) && list.result?.task === undefined;
    // A wrong answer here is this check's finding, not also a schema one.
    if (!listOk) t.markSchemaJudged(list);
    t.expect(listOk, {
      expected: 'a ListToolsResult, as without the task field',
      actual: `tools/list with task ${show(TASK)} answered ${list.error ? describeAnswer(list) : isObject(list.result?.task) ? 'with a CreateTaskResult' : describeAnswer(list)}`,
      wire: list,
    });
    if (toolCalls) {
      t.note('tools/call', 'not probed: the server declares tasks.requests.tools.call');
      return;
    }
    // tools/call: the same unknown tool with and without the task field gets the same kind of answer.
    const params = { name: NO_SUCH_TOOL, arguments: {} };
    // The gate lets a name the server does not list through once the list was walked to its end.
    await t.ctx.tools().catch(() => undefined);
    const refused = whyNotCallableAsWritten(t.ctx, NO_SUCH_TOOL) ?? t.session.callRefusal(params);
    if (refused) return t.note('tools/call', `not probed: ${refused}`);
    const plain = await t.request('tools/call', params);
    const augmented = await t.request('tools/call', { ...params, task: { ...TASK } });
    if (kind(augmented) !== kind(plain)) t.markSchemaJudged(augmented);
    t.note('tools/call without task', describeAnswer(plain));
    t.expect(kind(augmented) === kind(plain), {
      expected: `tools/call ${NO_SUCH_TOOL} with task ${show(TASK)} answered as without it: ${kind(plain)}`,
      actual: `${kind(augmented)}: ${describeAnswer(augmented)}`,
      wire: [plain, augmented],
    });
  },
});

// ---- with task support declared ----

/** The key of the related-task metadata (Related Task Metadata). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The terminal statuses (Task Status Lifecycle). */
const TERMINAL = ['completed', 'failed', 'cancelled'];
/** A task id no receiver issued. */
export const NO_SUCH_TASK = 'mcp-conformance-no-such-task-5b0c2e';
/** Bounds on the wait between two polls, whatever pollInterval the server suggests. */
const MIN_POLL_MS = 20;
const MAX_POLL_MS = 2_000;

const isTerminal = (status: unknown) => typeof status === 'string' && TERMINAL.includes(status);

/** What the server declares under capabilities.tasks. */
interface TaskSupport {
  list: boolean;
  cancel: boolean;
}

/** The server's task support for tools/call; the check is skipped without it. */
function requireTaskCalls(t: Probe): TaskSupport {
  const tasks = t.ctx.discovery().capabilities?.tasks;
  if (!isObject(tasks)) t.skip('the server declares no tasks capability: it runs no task');
  const requests = isObject(tasks.requests) ? tasks.requests : {};
  if (!isObject(requests.tools) || requests.tools.call === undefined)
    t.skip('the server declares no tasks.requests.tools.call: no tools/call it serves can be task-augmented');
  return { list: tasks.list !== undefined, cancel: tasks.cancel !== undefined };
}

/** The tools/call the task checks make with a task field. */
interface TaskCall {
  params: JsonObject;
  /** Where it comes from, for notes and messages. */
  from: string;
}

const taskSupportOf = (tool: JsonObject) => (isObject(tool.execution) ? tool.execution.taskSupport : undefined);

/** The configuration's taskTool, else a listed task-capable tool the policy lets the suite call with generated arguments. */
async function taskCall(t: Probe): Promise<TaskCall> {
  const configured = t.ctx.config.taskTool;
  if (configured) {
    const why = whyNotCallableAsWritten(t.ctx, configured.name);
    if (why) t.notObserved(`taskTool ${show(configured.name)} ${why}`);
    return {
      params: { name: configured.name, arguments: (configured.arguments ?? {}) as JsonObject },
      from: 'taskTool (configuration file)',
    };
  }
  const walk = await t.ctx.tools();
  const capable = walk.items.filter((tool) => ['optional', 'required'].includes(String(taskSupportOf(tool))));
  if (!capable.length)
    t.notObserved(
      'the server lists no tool whose execution.taskSupport is "optional" or "required": name one as taskTool in the configuration file',
    );
  const { params, refused } = callOneOf(t, capable);
  if (params) return { params, from: `${String(params.name)}, with generated valid arguments` };
  return t.notObserved(
    `no task-capable tool may be called by the suite (${refused.join('; ')}): name one as taskTool in the configuration file, with arguments, or allow it with --tools / tools.include`,
    { heldBack: heldBackNames(t.ctx, capable) },
  );
}

/** One task driven from creation to its end, once per run. */
export interface TaskDrive {
  call: TaskCall;
  session: Session;
  /** The task-augmented tools/call. */
  create: Exchange;
  taskId?: string;
  /** The tasks/get polls, in order. */
  gets: Exchange[];
  /** The tasks/result sent right after the creation (it blocks until the task is terminal). */
  waited?: Exchange;
  /** The tasks/get sent as soon as `waited` was answered. */
  afterWaited?: Exchange;
  /** The tasks/result sent once a poll said the task was terminal, and the tasks/get sent after it. */
  final?: Exchange;
  last?: Exchange;
  /** The terminal status the polls saw, and how long after the creation. */
  terminal?: string;
  tookMs?: number;
  /** Why the drive stopped short. */
  problem?: string;
  /** The progressToken the task-augmented call carried, and every notifications/progress naming it during the drive. */
  progressToken: string;
  progress: WireFrame[];
}

const drives = memoKey<Promise<TaskDrive>>('tasks: the task driven to its end');

/** The progressToken of the task drive's call: its notifications/progress are tasks/progress-stops', not progress/notifications'. */
export const TASK_PROGRESS_PREFIX = 'mcpc-task-progress-';
let driven = 0;

/** The run's task drive (made by the first check that asks). */
function driveTask(t: Probe): Promise<TaskDrive> {
  return t.ctx.run.memo(drives, async () => drive(t, await taskCall(t)));
}

/** Answers, or undefined when the request got none in time (or the connection ended). */
async function ask(session: Session, method: string, params: JsonObject, timeoutMs?: number): Promise<Exchange | undefined> {
  try {
    return await session.request(method, params, timeoutMs === undefined ? {} : { timeoutMs });
  } catch (err) {
    if (err instanceof RequestTimeoutError || session.closed) return undefined;
    throw err;
  }
}

async function drive(t: Probe, call: TaskCall): Promise<TaskDrive> {
  const session = t.session;
  const progressToken = `${TASK_PROGRESS_PREFIX}${++driven}`;
  const progress: WireFrame[] = [];
  const off = session.onMessage((msg, frame) => {
    if (msg.method === 'notifications/progress' && isObject(msg.params) && msg.params.progressToken === progressToken) progress.push(frame);
  });
  try {
    return await driveWith(t, call, session, { progressToken, progress });
  } finally {
    off();
  }
}

async function driveWith(
  t: Probe,
  call: TaskCall,
  session: Session,
  watch: Pick<TaskDrive, 'progressToken' | 'progress'>,
): Promise<TaskDrive> {
  const meta = isObject(call.params._meta) ? call.params._meta : {};
  const create = await session.request('tools/call', {
    ...call.params,
    task: { ...TASK },
    _meta: { ...meta, progressToken: watch.progressToken },
  });
  const d: TaskDrive = { call, session, create, gets: [], ...watch };
  const task = createdTask(create);
  if (!isObject(task) || typeof task.taskId !== 'string') {
    d.problem = `the task-augmented tools/call was answered without a task id: ${describeAnswer(create)}`;
    return d;
  }
  const taskId = task.taskId;
  d.taskId = taskId;
  const budget = t.ctx.settings.requestTimeoutMs;
  const started = Date.now();
  const waiting = ask(session, 'tasks/result', { taskId }, budget).then(async (ex) => {
    d.waited = ex;
    if (ex) d.afterWaited = await ask(session, 'tasks/get', { taskId });
  });
  let interval = Number(task.pollInterval);
  while (Date.now() - started < budget && !session.closed) {
    const wait = Math.min(Math.max(Number.isFinite(interval) ? interval : MIN_POLL_MS, MIN_POLL_MS), MAX_POLL_MS);
    // The page's pollInterval, cut short by a status notification for the task.
    await session.waitForMessage(
      (m) => m.method === 'notifications/tasks/status' && isObject(m.params) && m.params.taskId === taskId,
      wait,
      t.ctx.signal,
    );
    const get = await ask(session, 'tasks/get', { taskId });
    if (!get) break;
    d.gets.push(get);
    if (Number.isFinite(Number(get.result?.pollInterval))) interval = Number(get.result?.pollInterval);
    if (isTerminal(get.result?.status)) {
      d.terminal = String(get.result?.status);
      d.tookMs = Date.now() - started;
      break;
    }
  }
  await waiting;
  if (!d.terminal) {
    d.problem = `the task ${show(taskId)} was not seen terminal within ${budget} ms (raise --timeout, or give taskTool arguments that finish sooner)`;
    return d;
  }
  d.final = await ask(session, 'tasks/result', { taskId });
  d.last = await ask(session, 'tasks/get', { taskId });
  return d;
}

/** The drive, or not-observed when it stopped before what the check needs. */
async function drivenTask(t: Probe, needsTerminal: boolean): Promise<TaskDrive & { taskId: string }> {
  const d = await driveTask(t);
  t.note('task call', d.call.from);
  if (d.taskId === undefined || (needsTerminal && !d.terminal)) t.notObserved(d.problem ?? 'the task was not driven to its end');
  return d as TaskDrive & { taskId: string };
}

/** Every exchange of the drive, in the order they were answered. */
function driveExchanges(d: TaskDrive): Exchange[] {
  const all = [d.create, ...d.gets, d.waited, d.afterWaited, d.final, d.last].filter((e): e is Exchange => !!e);
  return all.sort((a, b) => lastSeq(a) - lastSeq(b));
}

const firstSeq = (ex: Exchange) => ex.frames.find((f) => f.dir === 'out')?.seq ?? 0;
const lastSeq = (ex: Exchange) => ex.frames.filter((f) => f.dir === 'in').at(-1)?.seq ?? 0;

/**
 * The task a task-augmented call created: the CreateTaskResult's, or a bare
 * Task answered in its place (tasks/create-task-result judges the shape; the
 * other checks still follow the task).
 */
function createdTask(ex: Exchange): JsonObject | undefined {
  const result = ex.result;
  if (!result) return undefined;
  return isObject(result.task) ? result.task : typeof result.taskId === 'string' ? result : undefined;
}

/** The Task object an exchange answered with (the created one, or the result itself), if any. */
function taskOf(ex: Exchange): JsonObject | undefined {
  if (!ex.result) return undefined;
  if (ex.method === 'tools/call') return createdTask(ex);
  return ex.method === 'tasks/get' || ex.method === 'tasks/cancel' ? ex.result : undefined;
}

export const createTaskResult = defineCheck({
  id: 'tasks/create-task-result',
  unlockedBy: ['taskTool'],
  title: 'a task-augmented tools/call of a task-capable tool is answered with a CreateTaskResult',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Result Retrieval' },
  quote: 'Receivers that accept a task-augmented request MUST return a CreateTaskResult as the response.',
  parts: {
    'id-unique': {
      level: 'MUST',
      spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task ID Requirements' },
      quote: 'Task IDs MUST be unique among all tasks controlled by the receiver.',
    },
  },
  async run(t) {
    requireTaskCalls(t);
    const d = await driveTask(t);
    const ex = d.create;
    t.note('task call', d.call.from);
    // A refusal (a JSON-RPC error, a tool error) is no accepted task: the arguments may be at fault.
    if (ex.error || (ex.result?.isError === true && !isObject(ex.result.task)))
      t.notObserved(`the task-augmented call was refused: ${describeAnswer(ex)} (give taskTool arguments the tool accepts)`);
    const task = ex.result?.task;
    if (!isObject(task)) t.markSchemaJudged(ex);
    t.expect(isObject(task), {
      expected: `a CreateTaskResult ({ task: { taskId, status, ... } }) for tools/call ${show(d.call.params.name)} with task ${show(TASK)}`,
      actual: `a result without a task object: ${describeAnswer(ex)}`,
      wire: ex,
    });
    if (d.taskId === undefined) return;
    // A second task on the same connection (a different ttl: not the same request again) gets an id of its own.
    const again = await d.session.request('tools/call', { ...d.call.params, task: { ttl: TASK.ttl - 1_000 } });
    const second = createdTask(again);
    if (!isObject(again.result?.task)) t.markSchemaJudged(again);
    if (typeof second?.taskId !== 'string') return t.note('second task', `not created: ${describeAnswer(again)}`);
    t.expect(second.taskId !== d.taskId, {
      part: 'id-unique',
      expected: `a task id other than ${show(d.taskId)} (the first task's) for a second task-augmented call`,
      actual: `task id ${show(second.taskId)} again`,
      wire: [ex, again],
    });
  },
});

/**
 * ISO 8601 as the page links it (RFC 3339 section 5), read widely so that no
 * ISO 8601 form fails: a calendar date (extended or basic), optionally a
 * time (with fractions) and a zone.
 */
const ISO_8601 = /^\d{4}-?\d{2}-?\d{2}([Tt ]\d{2}(:?\d{2}(:?\d{2}([.,]\d+)?)?)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/;

export const taskTimestamps = defineCheck({
  id: 'tasks/timestamps',
  unlockedBy: ['taskTool'],
  title: 'every task response gives createdAt and lastUpdatedAt as ISO 8601 timestamps',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'TTL and Resource Management' },
  quote:
    'Receivers MUST include a createdAt ISO 8601-formatted timestamp in all task responses to indicate when the task was created. … Receivers MUST include a lastUpdatedAt ISO 8601-formatted timestamp in all task responses to indicate when the task was last updated.',
  async run(t) {
    requireTaskCalls(t);
    const d = await drivenTask(t, false);
    for (const ex of driveExchanges(d)) {
      const task = taskOf(ex);
      if (!task) continue;
      // A missing or non-string timestamp is the schema's to judge (Task requires both strings).
      const bad = (['createdAt', 'lastUpdatedAt'] as const).filter((k) => typeof task[k] === 'string' && !ISO_8601.test(task[k] as string));
      t.expect(bad.length === 0, {
        expected: `createdAt and lastUpdatedAt ISO 8601 timestamps in the ${ex.method} response`,
        actual: bad.map((k) => `${k} ${show(task[k])}`).join(', '),
        wire: ex,
      });
    }
  },
});

const RESULT_SECTION = { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Result Retrieval' } as const;

/** Whether a tasks/result answer carries the related-task metadata naming the task. */
function relatesTo(ex: Exchange, taskId: string): boolean {
  const meta = ex.result?._meta;
  const related = isObject(meta) ? meta[RELATED_TASK] : undefined;
  return isObject(related) && related.taskId === taskId;
}

export const resultFinal = defineCheck({
  id: 'tasks/result-final',
  unlockedBy: ['taskTool'],
  title: "tasks/result of a terminal task answers the underlying call's final result, with the related-task _meta, and blocks until then",
  level: 'MUST',
  spec: RESULT_SECTION,
  quote:
    'When a receiver receives a tasks/result request for a task in a terminal status (completed, failed, or cancelled), it MUST return the final result of the underlying request, whether that is a successful result or a JSON-RPC error.',
  parts: {
    blocks: {
      level: 'MUST',
      spec: RESULT_SECTION,
      quote:
        'When a receiver receives a tasks/result request for a task in any other non-terminal status (working or input_required), it MUST block the response until the task reaches a terminal status.',
    },
    'related-task': {
      level: 'MUST',
      spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Related Task Metadata' },
      quote:
        'The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.',
    },
  },
  async run(t) {
    requireTaskCalls(t);
    const d = await drivenTask(t, true);
    const final = d.final;
    if (!final) return t.notObserved('tasks/result of the terminal task got no answer in time');
    t.note('terminal status', d.terminal);
    if (d.terminal === 'completed' || d.terminal === 'failed') {
      // completed: the call ended with a result; failed: a tool error (isError) or a JSON-RPC error.
      const errors = final.result ? t.ctx.protocolSchema.validate('CallToolResult', final.result) : [];
      const ok = final.result ? errors.length === 0 : d.terminal === 'failed';
      if (!ok) t.markSchemaJudged(final);
      t.expect(ok, {
        expected: `for a task ${d.terminal}, the final CallToolResult of tools/call ${show(d.call.params.name)}${d.terminal === 'failed' ? ' (or its JSON-RPC error)' : ''}`,
        actual: final.result ? `not a valid CallToolResult: ${errors.join('; ')}` : describeAnswer(final),
        wire: [...d.gets.slice(-1), final],
      });
    } else t.note('final result', `not judged: the task ended ${d.terminal}, which leaves no result of the call to compare`);
    const waited = d.waited;
    const after = d.afterWaited?.result?.status;
    // Sent while the task was working, and refused, when the task then completed with a result: it answered before the
    // end (a blocked response is the final result, which tasks/result of the completed task shows). Read from the
    // answers alone, so no timing decides it.
    if (waited?.error && final.result && d.terminal === 'completed')
      t.expect(false, {
        part: 'blocks',
        expected: 'tasks/result, sent while the task was working, answered only once the task was terminal, with its final result',
        actual: `it answered ${describeAnswer(waited)}, and the task then completed with a result (tasks/result after the end: ${describeAnswer(final)})`,
        wire: [waited, final],
      });
    else if (waited && d.afterWaited && !d.afterWaited.error)
      t.expect(isTerminal(after), {
        part: 'blocks',
        expected: 'tasks/result, sent while the task was working, answered only once the task was terminal',
        actual: `it answered (${describeAnswer(waited)}), and tasks/get sent right after still said ${show(after)}`,
        wire: [waited, d.afterWaited],
      });
    for (const ex of [waited, final])
      if (ex?.result)
        t.expect(relatesTo(ex, d.taskId), {
          part: 'related-task',
          expected: `_meta[${show(RELATED_TASK)}] = { taskId: ${show(d.taskId)} } in the tasks/result result`,
          actual: `_meta ${show(ex.result._meta)}`,
          wire: ex,
        });
  },
});

export const terminalStays = defineCheck({
  id: 'tasks/terminal-stays',
  unlockedBy: ['taskTool'],
  title: 'a task seen in a terminal status is never seen in another status afterwards',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task Status Lifecycle' },
  quote: 'Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status',
  async run(t) {
    requireTaskCalls(t);
    const d = await drivenTask(t, true);
    const seen = driveExchanges(d).filter((ex) => typeof taskOf(ex)?.status === 'string');
    const first = seen.find((ex) => isTerminal(taskOf(ex)!.status));
    if (!first) return t.notObserved('no answer showed the task terminal');
    const status = taskOf(first)!.status;
    // Only requests sent after the terminal answer arrived can show a later status (HTTP answers concurrent requests in any order).
    const later = seen.filter((ex) => firstSeq(ex) > lastSeq(first));
    if (!later.length) return t.notObserved('no request about the task was sent after it was seen terminal');
    for (const ex of later)
      t.expect(taskOf(ex)!.status === status, {
        expected: `the task still ${show(status)}, as ${first.method} said before`,
        actual: `${ex.method} says ${show(taskOf(ex)!.status)}`,
        wire: [first, ex],
      });
  },
});

const ERRORS_SECTION = { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Protocol Errors' } as const;
const INVALID_PARAMS = ERROR_CODES.INVALID_PARAMS;

/** A -32602 answer, or the finding saying what came instead. */
function expectInvalidParams(t: Probe, ex: Exchange, what: string, part?: string): void {
  if (ex.error?.code !== INVALID_PARAMS) t.markSchemaJudged(ex);
  t.expect(ex.error?.code === INVALID_PARAMS, {
    ...(part ? { part } : {}),
    expected: `JSON-RPC error ${INVALID_PARAMS} (Invalid params) for ${what}`,
    actual: describeAnswer(ex),
    wire: ex,
  });
}

export const unknownTaskId = defineCheck({
  id: 'tasks/unknown-task-id',
  title:
    'tasks/get, tasks/result and tasks/cancel of an unknown task id, a tasks/list cursor never issued, and cancelling a terminal task get -32602',
  level: 'MUST',
  spec: ERRORS_SECTION,
  quote:
    'Receivers MUST return standard JSON-RPC errors for the following protocol error cases: … Invalid or nonexistent taskId in tasks/get, tasks/result, or tasks/cancel: -32602 (Invalid params)',
  parts: {
    'invalid-cursor': {
      level: 'MUST',
      spec: ERRORS_SECTION,
      quote:
        'Receivers MUST return standard JSON-RPC errors for the following protocol error cases: … Invalid or nonexistent cursor in tasks/list: -32602 (Invalid params)',
    },
    'cancel-terminal': {
      level: 'MUST',
      spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task Cancellation' },
      quote:
        'Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params).',
    },
  },
  async run(t) {
    const support = requireTaskCalls(t);
    const methods = ['tasks/get', 'tasks/result', ...(support.cancel ? ['tasks/cancel'] : [])];
    for (const method of methods) {
      const ex = await t.request(method, { taskId: NO_SUCH_TASK });
      expectInvalidParams(t, ex, `${method} of task ${show(NO_SUCH_TASK)}, which the server never issued`);
    }
    if (support.list) {
      const ex = await t.request('tasks/list', { cursor: NEVER_ISSUED_CURSOR });
      expectInvalidParams(t, ex, `tasks/list with cursor ${show(NEVER_ISSUED_CURSOR)}, which the server never issued`, 'invalid-cursor');
    } else t.note('tasks/list', 'not probed: the server declares no tasks.list');
    if (!support.cancel) return t.note('tasks/cancel', 'not probed: the server declares no tasks.cancel');
    // No task to drive (nothing the suite may call) leaves this part unprobed, not the whole check.
    const d = await driveTask(t).catch((err: unknown) => (err instanceof VerdictSignal ? err : Promise.reject(err)));
    if (d instanceof VerdictSignal) return t.note('cancelling a terminal task', `not probed: ${d.reason}`);
    if (!d.terminal || d.taskId === undefined)
      return t.note('cancelling a terminal task', `not probed: ${d.problem ?? 'no terminal task'}`);
    const ex = await d.session.request('tasks/cancel', { taskId: d.taskId });
    expectInvalidParams(t, ex, `tasks/cancel of task ${show(d.taskId)}, already ${d.terminal}`, 'cancel-terminal');
  },
});

const CANCEL_SECTION = { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task Cancellation' } as const;

/** The cancelled task's later tasks/get answers, at its pollInterval, until `forMs` have passed. */
async function pollCancelled(t: Probe, session: Session, taskId: string, forMs: number, interval: number): Promise<Exchange[]> {
  const out: Exchange[] = [];
  const until = Date.now() + forMs;
  do {
    await session.waitForMessage(
      (m) => m.method === 'notifications/tasks/status' && isObject(m.params) && m.params.taskId === taskId,
      interval,
      t.ctx.signal,
    );
    const get = await ask(session, 'tasks/get', { taskId });
    if (!get) break;
    out.push(get);
  } while (Date.now() < until && !session.closed);
  return out;
}

export const cancelTransitions = defineCheck({
  id: 'tasks/cancel-transitions',
  unlockedBy: ['taskTool'],
  title: 'tasks/cancel of a working task answers it cancelled, and it stays cancelled',
  level: 'MUST',
  spec: CANCEL_SECTION,
  quote:
    'Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response.',
  parts: {
    remains: {
      level: 'MUST',
      spec: CANCEL_SECTION,
      quote: 'Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails.',
    },
  },
  async run(t) {
    const support = requireTaskCalls(t);
    if (!support.cancel) t.skip('the server declares no tasks.cancel');
    // The drive tells how long the task takes (when it is cancelled, it would have ended by then).
    const d = await driveTask(t);
    // A connection of its own: the cancellation is not queued behind other checks' requests while the task runs.
    const session = await t.ctx.openSession();
    const create = await session.request('tools/call', { ...d.call.params, task: { ...TASK } });
    // A bare Task in place of the CreateTaskResult is tasks/create-task-result's finding (on its own call).
    if (!isObject(create.result?.task)) t.markSchemaJudged(create);
    const task = createdTask(create);
    if (!isObject(task) || typeof task.taskId !== 'string')
      return t.notObserved(`no task was created to cancel: ${describeAnswer(create)}`);
    const taskId = task.taskId;
    if (isTerminal(task.status))
      return t.notObserved(`the task was ${show(task.status)} at once: give taskTool arguments that keep it working for a moment`);
    const cancel = await session.request('tasks/cancel', { taskId });
    if (cancel.error) {
      const get = await session.request('tasks/get', { taskId });
      const status = get.result?.status;
      // Terminal by then (ended before the cancellation arrived, or cancelled another way): a terminal task is rightly refused.
      if (isTerminal(status))
        return t.notObserved(
          `tasks/cancel was refused (${describeAnswer(cancel)}) and the task is ${show(status)}: give taskTool arguments that keep it working longer`,
        );
    }
    if (cancel.result?.status !== 'cancelled') t.markSchemaJudged(cancel);
    t.expect(cancel.result?.status === 'cancelled', {
      expected: `the task ${show(taskId)} answered by tasks/cancel in status "cancelled"`,
      actual: describeAnswer(cancel),
      wire: [create, cancel],
    });
    if (cancel.result?.status !== 'cancelled') return;
    const interval = Math.min(Math.max(Number(task.pollInterval) || MIN_POLL_MS, MIN_POLL_MS), MAX_POLL_MS);
    const forMs = Math.min((d.tookMs ?? interval) * 2, t.ctx.settings.requestTimeoutMs);
    for (const get of await pollCancelled(t, session, taskId, forMs, interval)) {
      // The receiver MAY delete a cancelled task at any time: "not found" is no other status.
      if (get.error) continue;
      t.expect(get.result?.status === 'cancelled', {
        part: 'remains',
        expected: `the cancelled task ${show(taskId)} still "cancelled"`,
        actual: `tasks/get says ${show(get.result?.status)}`,
        wire: [cancel, get],
      });
    }
  },
});

export const listRetrievable = defineCheck({
  id: 'tasks/list-retrievable',
  unlockedBy: ['taskTool'],
  title: 'a task tasks/get serves is in the tasks/list walk',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Task Listing' },
  quote: 'If a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list for that requestor.',
  async run(t) {
    const support = requireTaskCalls(t);
    if (!support.list) t.skip('the server declares no tasks.list');
    const d = await drivenTask(t, false);
    const before = await d.session.request('tasks/get', { taskId: d.taskId });
    const walk = await walkList(d.session, 'tasks/list', 'tasks', { maxPages: t.ctx.settings.maxPages });
    const after = await d.session.request('tasks/get', { taskId: d.taskId });
    if (before.error || after.error)
      return t.notObserved(`tasks/get did not serve the task throughout the walk: ${describeAnswer(before.error ? before : after)}`);
    if (!walk.exhausted) return t.notObserved(`tasks/list could not be walked to its end: ${walk.problem?.detail ?? 'past --max-pages'}`);
    t.note('tasks listed', walk.items.length);
    t.expect(
      walk.items.some((item) => item.taskId === d.taskId),
      {
        expected: `task ${show(d.taskId)}, which tasks/get serves, in the tasks/list walk (${walk.pages.length} page(s))`,
        actual: `${walk.items.length} task(s) listed, not it`,
        wire: [before, ...walk.pages.slice(-4), after],
      },
    );
  },
});

export const forbiddenToolRefused = defineCheck({
  id: 'tasks/forbidden-tool-refused',
  title: 'a task-augmented tools/call of a tool without task support is refused with -32601',
  level: 'SHOULD',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Tool-Level Negotiation' },
  quote: 'Servers SHOULD return a -32601 (Method not found) error if a client attempts to do so.',
  async run(t) {
    // Without tasks.requests.tools.call the task field is ignored instead (tasks/ignored-without-capability).
    requireTaskCalls(t);
    const walk = await t.ctx.tools();
    const plain = walk.items.filter((tool) => [undefined, 'forbidden'].includes(taskSupportOf(tool) as string | undefined));
    if (!plain.length) return t.skip('every listed tool supports tasks (execution.taskSupport "optional" or "required")');
    // A server that ignores the task runs the tool: only a tool the call policy lets the suite call, with valid arguments.
    const run = argumentRun(t.ctx);
    const tool = plain.find((tl) => run.whyNotCallable(tl, 'a task') === undefined && run.validPlan(tl).ok);
    if (!tool)
      return t.notObserved(
        `no tool without task support may be called by the suite (${plain.map((tl) => String(tl.name)).join(', ')}): allow one with --tools / tools.include`,
        { heldBack: heldBackNames(t.ctx, plain) },
      );
    const plan = run.validPlan(tool);
    const [args] = plan.ok ? fc.sample(plan.arb, { seed: run.settings.seed, numRuns: 1 }) : [{}];
    const ex = await t.request('tools/call', { name: tool.name as string, arguments: args as JsonObject, task: { ...TASK } });
    const support = taskSupportOf(tool);
    t.note('tool', `${String(tool.name)} (execution.taskSupport ${support === undefined ? 'absent' : show(support)})`);
    t.expect(ex.error?.code === ERROR_CODES.METHOD_NOT_FOUND, {
      expected: `JSON-RPC error ${ERROR_CODES.METHOD_NOT_FOUND} (Method not found) for tools/call ${show(tool.name)} with task ${show(TASK)}`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

/**
 * Why a generated valid call (made without a task) is not made to `tool`: in
 * the legacy era, a tool whose execution.taskSupport is "required" on a server
 * that declares tasks.requests.tools.call runs only as a task, and a call
 * without one is tasks/required-needs-task's to judge.
 */
export function whyTaskOnly(t: Probe, tool: JsonObject): string | undefined {
  if (t.ctx.era !== 'legacy' || taskSupportOf(tool) !== 'required') return undefined;
  const tasks = t.ctx.discovery().capabilities?.tasks;
  const requests = isObject(tasks) && isObject(tasks.requests) ? tasks.requests : undefined;
  if (!requests || !isObject(requests.tools) || requests.tools.call === undefined) return undefined;
  return 'not called with valid arguments: the tool runs only as a task (execution.taskSupport "required"); a call without one is judged by tasks/required-needs-task';
}

/** The call a check makes to one of `tools`: the configured taskTool when it is one of them, else generated valid arguments the policy allows. */
function callOneOf(t: Probe, tools: JsonObject[]): { params?: JsonObject; refused: string[] } {
  const configured = t.ctx.config.taskTool;
  if (configured && tools.some((tl) => tl.name === configured.name) && !whyNotCallableAsWritten(t.ctx, configured.name))
    return { params: { name: configured.name, arguments: (configured.arguments ?? {}) as JsonObject }, refused: [] };
  const run = argumentRun(t.ctx);
  const refused: string[] = [];
  for (const tool of tools) {
    const why = run.whyNotCallable(tool, 'a task');
    const plan = why ? undefined : run.validPlan(tool);
    if (plan?.ok) {
      const [args] = fc.sample(plan.arb, { seed: run.settings.seed, numRuns: 1 });
      return { params: { name: tool.name as string, arguments: args as JsonObject }, refused };
    }
    refused.push(`${String(tool.name)}: ${why ?? (plan && !plan.ok ? plan.reason : '')}`);
  }
  return { refused };
}

export const requiredNeedsTask = defineCheck({
  id: 'tasks/required-needs-task',
  unlockedBy: ['taskTool'],
  title: 'a tools/call without a task of a tool whose taskSupport is "required" is refused with -32601',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/tasks', section: 'Tool-Level Negotiation' },
  quote: 'Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so.',
  async run(t) {
    requireTaskCalls(t);
    const walk = await t.ctx.tools();
    const required = walk.items.filter((tool) => taskSupportOf(tool) === 'required');
    if (!required.length) return t.skip('no listed tool has execution.taskSupport "required"');
    // A server that breaks the rule runs the tool: only a call the user named, or one the policy allows.
    const { params, refused } = callOneOf(t, required);
    if (!params)
      return t.notObserved(
        `no tool requiring a task may be called by the suite (${refused.join('; ')}): name one as taskTool in the configuration file, or allow it with --tools / tools.include`,
      );
    const ex = await t.request('tools/call', params);
    const code = ex.error?.code;
    // Arguments refused first (-32602) say nothing of the task rule.
    if (code === ERROR_CODES.INVALID_PARAMS) return t.notObserved(`the call's arguments were refused first: ${describeAnswer(ex)}`);
    // Protocol Errors lets a receiver answer -32600 (Invalid request) instead.
    const ok = code === ERROR_CODES.METHOD_NOT_FOUND || code === ERROR_CODES.INVALID_REQUEST;
    t.expect(ok, {
      expected: `JSON-RPC error ${ERROR_CODES.METHOD_NOT_FOUND} (Method not found) for tools/call ${show(params.name)} without a task (or ${ERROR_CODES.INVALID_REQUEST}, which Protocol Errors allows)`,
      actual: describeAnswer(ex),
      wire: ex,
    });
  },
});

export const progressStops = defineCheck({
  id: 'tasks/progress-stops',
  unlockedBy: ['taskTool'],
  title: "no progress for a task after it was seen in a terminal status (the task-augmented call's progressToken)",
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'basic/utilities/progress', section: 'Behavior Requirements' },
  quote: 'Progress notifications for tasks MUST stop after the task reaches a terminal status (completed, failed, or cancelled)',
  // stdio only: one ordered stream, so a notification read after the terminal answer was sent after it (on HTTP a
  // GET-stream notification sent before the task ended may arrive after a POST's answer that shows it ended).
  transports: ['stdio'],
  async run(t) {
    requireTaskCalls(t);
    const d = await drivenTask(t, true);
    t.note('progress notifications for the task', d.progress.length);
    if (!d.progress.length)
      return t.notObserved(
        `the server sent no notifications/progress for the task (progressToken ${show(d.progressToken)}; it MAY send none)`,
      );
    const first = driveExchanges(d).find((ex) => isTerminal(taskOf(ex)?.status));
    if (!first) return t.notObserved('no answer showed the task terminal');
    const after = d.progress.filter((f) => f.connection === first.frames[0]?.connection && f.seq > lastSeq(first));
    for (const frame of after.slice(0, 3))
      t.expect(false, {
        expected: `no notifications/progress for ${show(d.progressToken)} once ${first.method} said the task is ${show(taskOf(first)!.status)}`,
        actual: `${frame.text.slice(0, 200)} after it`,
        wire: [...first.frames, frame],
      });
  },
});

export const taskChecks = [
  ignoredWithoutCapability,
  createTaskResult,
  taskTimestamps,
  resultFinal,
  terminalStays,
  unknownTaskId,
  cancelTransitions,
  listRetrievable,
  forbiddenToolRefused,
  requiredNeedsTask,
  progressStops,
];

/**
 * Tasks (2025-11-25/basic/utilities/tasks; the modern revisions have no
 * tasks): a request of a type the server declared no task support for is
 * served normally, its `task` field ignored. `tools/list` is such a type for
 * every server (no capability makes it task-augmentable); `tools/call` is one
 * unless `tasks.requests.tools.call` is declared, and is tried with a tool
 * name no server lists, so nothing runs.
 */
import type { Exchange } from '../harness/session.js';
import { defineCheck, describeAnswer, show } from './check.js';
import type { JsonObject } from '../model/json.js';

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

export const taskChecks = [ignoredWithoutCapability];

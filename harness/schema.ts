/**
 * Wire-schema validation: every message the server sends is validated against
 * the published JSON schema of the protocol revision in use (or a copy the
 * user names with --schema).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { packageRoot } from './paths.js';
import { ajvFor, formatErrors, type AnyAjv } from './jsonschema.js';

/** Result definition for each request method, by name in the schema's $defs. */
const RESULT_DEFS: Record<string, string> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
  'completion/complete': 'CompleteResult',
  initialize: 'InitializeResult',
  // Tasks (2025-11-25 only; the modern schemas have no such definitions).
  'tasks/get': 'GetTaskResult',
  'tasks/result': 'GetTaskPayloadResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
};

const NOTIFICATION_DEFS: Record<string, string> = {
  'notifications/message': 'LoggingMessageNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

/** Requests a server may send to the client (legacy era). */
const SERVER_REQUEST_DEFS: Record<string, string> = {
  ping: 'PingRequest',
  'roots/list': 'ListRootsRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'elicitation/create': 'ElicitRequest',
};

export const KNOWN_REVISIONS = ['2026-07-28', 'draft', '2025-11-25'] as const;
export type Revision = (typeof KNOWN_REVISIONS)[number];

export interface SchemaOptions {
  /**
   * Properties judged by dedicated checks rather than by schema validity
   * (e.g. the caching hints `ttlMs` and `cacheScope`): every definition that
   * declares one is validated as if it neither declared nor required it, so
   * one defect is reported once, by the check that owns the rule.
   */
  setAside?: string[];
}

/** Schemas already compiled in this process, by file, modification time and set-aside fields. */
const loaded = new Map<string, ProtocolSchema>();

export class ProtocolSchema {
  private readonly ajv: AnyAjv;
  private readonly defs: Set<string>;
  private readonly cache = new Map<string, ValidateFunction>();
  /** The method of every notification the schema defines (a definition named *Notification whose method is a constant). */
  private readonly notificationMethods: Set<string>;

  constructor(
    readonly source: string,
    doc: Record<string, unknown>,
    opts: SchemaOptions = {},
  ) {
    const defs = (doc.$defs ?? doc.definitions) as Record<string, unknown> | undefined;
    if (!defs || typeof defs !== 'object') throw new Error(`${source} has no $defs: not an MCP protocol schema`);
    this.defs = new Set(Object.keys(defs));
    this.notificationMethods = new Set();
    for (const [name, def] of Object.entries(defs)) {
      const method = (def as { properties?: { method?: { const?: unknown } } } | null)?.properties?.method?.const;
      if (name.endsWith('Notification') && typeof method === 'string') this.notificationMethods.add(method);
    }
    if (opts.setAside?.length) doc = withoutProperties(doc, opts.setAside);
    this.ajv = ajvFor(typeof doc.$schema === 'string' ? doc.$schema : undefined, { fresh: true });
    this.ajv.addSchema(doc, 'mcp');
  }

  /**
   * The published schema bundled for `revision`, or the file at `path`.
   * Compiling the protocol schema costs most of a second, so a process that
   * runs the suite many times (the project's own tests) compiles each file
   * (as last modified) and set of set-aside fields once.
   */
  static load(revision: string, path?: string, opts: SchemaOptions = {}): ProtocolSchema {
    const file = path ?? join(packageRoot(), 'schemas', revision, 'schema.json');
    let doc: unknown;
    let key: string;
    try {
      key = `${file}\0${statSync(file).mtimeMs}\0${[...(opts.setAside ?? [])].sort().join(',')}`;
      const hit = loaded.get(key);
      if (hit) return hit;
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read protocol schema ${file}: ${(err as Error).message}`);
    }
    const schema = new ProtocolSchema(file, doc as Record<string, unknown>, opts);
    loaded.set(key, schema);
    return schema;
  }

  has(def: string): boolean {
    return this.defs.has(def);
  }

  /** Validate `value` against `$defs/<def>`; returns readable errors (empty when valid). */
  validate(def: string, value: unknown): string[] {
    if (!this.defs.has(def)) return [];
    let fn = this.cache.get(def);
    if (!fn) {
      fn = this.ajv.getSchema(`mcp#/$defs/${def}`) as ValidateFunction;
      this.cache.set(def, fn);
    }
    return fn(value) ? [] : formatErrors(fn.errors, def);
  }

  /**
   * The result definition a response to `method` must satisfy. A request
   * whose `params` carry a `task` (2025-11-25 task augmentation) may be
   * answered with a CreateTaskResult (a result carrying `task`) or served
   * normally; which of the two it must be is the tasks checks' to judge.
   */
  resultDefFor(method: string, result: unknown, params?: unknown): string {
    const rt = (result as { resultType?: unknown } | null)?.resultType;
    if (rt === 'input_required' && this.defs.has('InputRequiredResult')) return 'InputRequiredResult';
    const task = (result as { task?: unknown } | null)?.task;
    const augmented = (params as { task?: unknown } | null | undefined)?.task !== undefined;
    if (augmented && typeof task === 'object' && task !== null && this.defs.has('CreateTaskResult')) return 'CreateTaskResult';
    const def = RESULT_DEFS[method];
    return def && this.defs.has(def) ? def : 'Result';
  }

  /** Whether `method` is the method of a notification the schema defines. */
  isNotificationMethod(method: unknown): boolean {
    return typeof method === 'string' && this.notificationMethods.has(method);
  }

  notificationDefFor(method: string): string {
    const def = NOTIFICATION_DEFS[method];
    return def && this.defs.has(def) ? def : 'JSONRPCNotification';
  }

  /**
   * Validate one inbound message. `method` (and `params`) are those of the
   * request a response answers, when known.
   */
  validateInbound(msg: Record<string, unknown>, method?: string, params?: unknown): { def: string; errors: string[] } {
    if ('method' in msg && 'id' in msg) {
      const envelope = this.validate('JSONRPCRequest', msg);
      const def = SERVER_REQUEST_DEFS[String(msg.method)];
      if (envelope.length || !def || !this.defs.has(def)) return { def: 'JSONRPCRequest', errors: envelope };
      return { def, errors: this.validate(def, msg) };
    }
    if ('method' in msg) {
      const def = this.notificationDefFor(String(msg.method));
      const envelope = this.validate('JSONRPCNotification', msg);
      return { def, errors: envelope.length ? envelope : this.validate(def, msg) };
    }
    if ('error' in msg) return { def: 'JSONRPCErrorResponse', errors: this.validate('JSONRPCErrorResponse', msg) };
    const envelope = this.validate('JSONRPCResultResponse', msg);
    if (envelope.length) return { def: 'JSONRPCResultResponse', errors: envelope };
    const def = method ? this.resultDefFor(method, msg.result, params) : 'Result';
    return { def, errors: this.validate(def, msg.result) };
  }
}

/** A copy of `doc` whose definitions neither declare nor require `names`. */
function withoutProperties(doc: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const copy = structuredClone(doc);
  const defs = (copy.$defs ?? copy.definitions) as Record<string, { properties?: Record<string, unknown>; required?: unknown }>;
  for (const def of Object.values(defs)) {
    if (typeof def !== 'object' || def === null || typeof def.properties !== 'object' || def.properties === null) continue;
    if (!names.some((n) => n in def.properties!)) continue;
    for (const n of names) delete def.properties[n];
    if (Array.isArray(def.required)) def.required = def.required.filter((r) => !names.includes(r as string));
  }
  return copy;
}

/**
 * Wire-schema validation: every message the server sends is validated against
 * the published JSON schema of the protocol revision in use (or a copy the
 * user names with --schema).
 */
import { readFileSync } from 'node:fs';
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

export class ProtocolSchema {
  private readonly ajv: AnyAjv;
  private readonly defs: Set<string>;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    readonly source: string,
    doc: Record<string, unknown>,
  ) {
    const defs = (doc.$defs ?? doc.definitions) as Record<string, unknown> | undefined;
    if (!defs || typeof defs !== 'object') throw new Error(`${source} has no $defs: not an MCP protocol schema`);
    this.defs = new Set(Object.keys(defs));
    this.ajv = ajvFor(typeof doc.$schema === 'string' ? doc.$schema : undefined, { fresh: true });
    this.ajv.addSchema(doc, 'mcp');
  }

  /** The published schema bundled for `revision`, or the file at `path`. */
  static load(revision: string, path?: string): ProtocolSchema {
    const file = path ?? join(packageRoot(), 'schemas', revision, 'schema.json');
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read protocol schema ${file}: ${(err as Error).message}`);
    }
    return new ProtocolSchema(file, doc as Record<string, unknown>);
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

  /** The result definition a response to `method` must satisfy. */
  resultDefFor(method: string, result: unknown): string {
    const rt = (result as { resultType?: unknown } | null)?.resultType;
    if (rt === 'input_required' && this.defs.has('InputRequiredResult')) return 'InputRequiredResult';
    const def = RESULT_DEFS[method];
    return def && this.defs.has(def) ? def : 'Result';
  }

  notificationDefFor(method: string): string {
    const def = NOTIFICATION_DEFS[method];
    return def && this.defs.has(def) ? def : 'JSONRPCNotification';
  }

  /**
   * Validate one inbound message. `method` is the method of the request a
   * response answers, when known.
   */
  validateInbound(msg: Record<string, unknown>, method?: string): { def: string; errors: string[] } {
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
    const def = method ? this.resultDefFor(method, msg.result) : 'Result';
    return { def, errors: this.validate(def, msg.result) };
  }
}

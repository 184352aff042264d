/**
 * The shape of the per-server configuration file (loaded and validated by
 * engine/config.ts against schemas/config.schema.json). Ground layer: imports
 * nothing of the project.
 */

/** What the caller scripts for one `inputRequests` key. */
export type ScriptedAnswer =
  /** Elicitation: submit the form (with this content, or a generated valid value). */
  | { action: 'accept'; content?: Record<string, unknown> }
  /** Elicitation: the user explicitly declined. */
  | { action: 'decline' }
  /** Elicitation: the user dismissed the form. */
  | { action: 'cancel' }
  /** Sampling: the model's reply text. */
  | { text: string; model?: string }
  /** Roots: the roots to report. */
  | { roots: Array<{ uri: string; name?: string }> };

export interface SecretRef {
  fromEnv: string;
}

export interface ToolCallSpec {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * The slow call: a tools/call that stays in flight until cancelled, or until
 * `release` (a tools/call the suite sends once the server shows it holds the
 * call: its first progress notification, or on HTTP its answer's headers)
 * lets it finish. Without `release`, the call ends on its own.
 */
export interface SlowToolSpec extends ToolCallSpec {
  release?: ToolCallSpec;
}

export type InputCapability = 'elicitation' | 'sampling' | 'roots';

/** How one example call must end (after its scripted answers). */
export interface FixtureExpectation {
  /** complete: a result without isError; isError: a result with isError true; input_required: the first answer asks for input; error: a JSON-RPC error. */
  outcome?: 'complete' | 'isError' | 'input_required' | 'error';
  /** With outcome error: the JSON-RPC error code. */
  errorCode?: number;
  /** Texts that must each appear in the result's text content. */
  content?: string[];
  /** The JSON value structuredContent must equal. */
  structuredContent?: unknown;
}

/** One example call of a tool, as its author describes it. */
export interface FixtureCall {
  description?: string;
  arguments?: Record<string, unknown>;
  /** Client capabilities declared on the call (default: all three). */
  capabilities?: InputCapability[];
  /** Scripted answers by inputRequests key. */
  answers?: Record<string, ScriptedAnswer>;
  expect?: FixtureExpectation;
}

/** What the file says about one tool. */
export interface ToolFixture {
  /** Tampering with this tool's requestState can cause nothing worse than a failed request. */
  tamperingHarmless?: boolean;
  calls?: FixtureCall[];
}

/** Something that changes the server's state (its tool list, its subscriptions): a tool call, or a shell command. */
export type ChangeTrigger = { tool: string; arguments?: Record<string, unknown> } | { command: string };

/** What changes one list (prompts, resources) and what restores it. */
export interface ListChangeTrigger {
  trigger: ChangeTrigger;
  undo?: ChangeTrigger;
}

export interface Config {
  server?: {
    command?: string;
    url?: string;
    cwd?: string;
    env?: Record<string, SecretRef>;
    headers?: Record<string, SecretRef>;
  };
  tools?: { include?: string[]; exclude?: string[]; allowSideEffects?: boolean };
  /** Checks left out of every run (ids or globs, as `--skip`). */
  checks?: { exclude?: string[] };
  /**
   * How to make the server's lists change, for the list-changed checks: the
   * tool list (`trigger`, `undo`), and the prompt and resource lists
   * (`prompts`, `resources`, each its own trigger and undo).
   */
  listChanged?: {
    trigger?: ChangeTrigger;
    undo?: ChangeTrigger;
    timeoutMs?: number;
    prompts?: ListChangeTrigger;
    resources?: ListChangeTrigger;
  };
  /**
   * Makes the server end its open subscriptions on its own initiative (as a
   * shutdown would), for subscriptions/graceful-close; `timeoutMs`: how long
   * to wait for the end (default: the request timeout).
   */
  subscriptionEnd?: { trigger: ChangeTrigger; timeoutMs?: number };
  /**
   * For resources/path-traversal: the folder the server serves file://
   * resources from, and a canary file outside it whose text must never come
   * back (absolute POSIX paths, as the server sees them).
   */
  resources?: { fileRoot: string; canary: { path: string; text: string } };
  slowTool?: SlowToolSpec;
  /** A call of a tool that supports task augmentation (2025-11-25 tasks), made with a `task` field; it should take a moment. */
  taskTool?: ToolCallSpec;
  capabilityTool?: ToolCallSpec & { requires: InputCapability[] };
  /** Per-tool fixtures, by tool name. */
  fixtures?: Record<string, ToolFixture>;
  /** The server is a protected resource (basic/authorization): how the suite gets its tokens. */
  authorization?: AuthorizationConfig;
}

/**
 * Authorization (HTTP servers): the embedded issuer (`embedded: true`, as
 * `--auth`), or a command printing a valid token for a server that trusts
 * another authorization server.
 */
export interface AuthorizationConfig {
  /** Start the embedded authorization server (as --auth). */
  embedded?: boolean;
  /** Its port on 127.0.0.1 (as --auth-port; default: a free port). */
  port?: number;
  /** The scopes of the valid token when the server names none (neither scopes_supported nor a challenge scope). */
  scopes?: string[];
  /** A shell command that prints a valid access token for the server on its first line of stdout. */
  tokenCommand?: string;
  /** How long the token command may take, milliseconds (default 30000). */
  timeoutMs?: number;
}

/**
 * A key of the file that unlocks checks: it names a call or trigger the
 * suite cannot find on its own (`CheckDef.unlockedBy`, and `init`).
 */
export type ConfigKey =
  | 'slowTool'
  | 'taskTool'
  | 'capabilityTool'
  | 'subscriptionEnd'
  | 'listChanged.trigger'
  | 'listChanged.prompts'
  | 'listChanged.resources'
  | 'resources'
  | 'fixtures';

/** A loaded file: its content, where it lives (relative paths resolve from there). */
export interface LoadedConfig {
  path: string;
  dir: string;
  config: Config;
}

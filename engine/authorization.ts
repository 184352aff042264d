/**
 * A run's authorization (basic/authorization, HTTP servers): where its tokens
 * come from, set up around the target. Before the target opens, the
 * embedded issuer starts (and a launched server gets it as
 * MCP_CONFORMANCE_ISSUER); once the server listens, the valid token is
 * minted for the scopes it names (or the user's token command prints it),
 * and the one session layer sends it on every HTTP request of the run.
 *
 * No token leaves loopback: with the embedded issuer, `--url` must be a
 * loopback address; a token command is the user's choice of destination.
 */
import { EmbeddedIssuer, isLoopback, resourceScopes, RunTokens } from '../harness/authorization.js';
import type { Redactor } from '../harness/redact.js';
import type { AuthorizationConfig, Config } from '../model/config.js';
import type { AuthorizationInfo } from '../model/results.js';

/** The issuer variable a launched server reads. */
export const ISSUER_ENV = 'MCP_CONFORMANCE_ISSUER';

const TOKEN_COMMAND_TIMEOUT_MS = 30_000;

/** The authorization a run asks for: its options', else its configuration file's (undefined: none). */
export function authorizationOf(options: AuthorizationConfig | undefined, config: Config | undefined): AuthorizationConfig | undefined {
  const a = options ?? config?.authorization;
  if (!a || (!a.embedded && !a.tokenCommand)) return undefined;
  return a;
}

/** Why the run may not use this authorization (a one-line error), or undefined. */
export function refusal(a: AuthorizationConfig, url: string | undefined): string | undefined {
  if (!url) return 'authorization applies to HTTP servers: --auth and authorization.tokenCommand need --url';
  if (a.tokenCommand) return undefined;
  if (!isLoopback(url)) {
    return `--auth sends tokens only to loopback: --url ${url} is not a loopback address (use authorization.tokenCommand for a server elsewhere)`;
  }
  return undefined;
}

/** A run's authorization once set up: its tokens, and what ends it. */
export class RunAuthorization {
  tokens?: RunTokens;

  private constructor(
    private readonly a: AuthorizationConfig,
    readonly issuer: EmbeddedIssuer | undefined,
  ) {}

  /** Start the embedded issuer when asked for (a token command needs none). */
  static async begin(a: AuthorizationConfig): Promise<RunAuthorization> {
    const issuer = a.tokenCommand ? undefined : await EmbeddedIssuer.start(a.port ?? 0);
    return new RunAuthorization(a, issuer);
  }

  /** The environment a launched server gets. */
  env(): Record<string, string> {
    return this.issuer ? { [ISSUER_ENV]: this.issuer.issuer } : {};
  }

  /**
   * Once the server listens: the valid token (minted for the scopes the
   * resource names, or printed by the token command), set as the
   * Authorization header of every request (in `headers`, the object the
   * connections read).
   */
  async tokensFor(
    url: string,
    headers: Record<string, string>,
    ctx: { redactor: Redactor; timeoutMs: number; cwd?: string; signal?: AbortSignal },
  ): Promise<RunTokens> {
    this.tokens = this.issuer
      ? await RunTokens.embedded(this.issuer, url, await this.scopes(url, ctx.timeoutMs), ctx.redactor)
      : await RunTokens.fromCommand(this.a.tokenCommand!, url, ctx.redactor, {
          timeoutMs: this.a.timeoutMs ?? TOKEN_COMMAND_TIMEOUT_MS,
          cwd: ctx.cwd,
          signal: ctx.signal,
        });
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
    headers.Authorization = `Bearer ${this.tokens.valid}`;
    return this.tokens;
  }

  private async scopes(url: string, timeoutMs: number): Promise<string[]> {
    return (await resourceScopes(url, timeoutMs)) ?? this.a.scopes ?? [];
  }

  /** What the run's JSON records. */
  get record(): AuthorizationInfo {
    return (
      this.tokens?.record ??
      (this.issuer ? { source: 'embedded', issuer: this.issuer.issuer, jwksUri: this.issuer.jwksUri } : { source: 'command' })
    );
  }

  async end(): Promise<void> {
    await this.issuer?.stop();
  }
}

/** The one-line cause for a run whose server answered 401 before any check ran. */
export function unauthorizedHint(active: RunAuthorization | undefined): string {
  if (!active) {
    return 'the server answered HTTP 401: it is a protected resource; run with --auth (the embedded issuer, for a server pointed at it through MCP_CONFORMANCE_ISSUER) or set authorization.tokenCommand in the configuration file';
  }
  const where = active.issuer
    ? `point it at the embedded issuer ${active.issuer.issuer} (${ISSUER_ENV})`
    : 'check authorization.tokenCommand';
  return `the server refused the suite's valid token (HTTP 401): ${where}`;
}

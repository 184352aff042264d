/**
 * Authorization (basic/authorization): the suite as an OAuth 2.1 client of a
 * protected MCP server. An embedded authorization server on 127.0.0.1, built
 * on `oauth2-mock-server` (issuer, RFC 8414 and OpenID discovery documents,
 * JWKS), and the tokens the run presents: the valid one and each hostile
 * kind, crafted with `jose`. Or, for a server that trusts another
 * authorization server, the token a user's command prints (then only the
 * kinds that need no signing key of the suite's can be crafted).
 *
 * Every token made or obtained here is registered with the run's redactor
 * (as a token: `Redactor.addToken`), so none appears in any report.
 */
import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose';
import type { Redactor } from './redact.js';
import type { AuthorizationInfo } from '../model/results.js';
import { runShellCommand } from './command.js';

/** The hostile token kinds, each refused by a conformant protected server. */
export const HOSTILE_KINDS = [
  'malformed',
  'expired',
  'not-yet-valid',
  'wrong-signature',
  'alg-none',
  'wrong-issuer',
  'wrong-audience',
  'no-audience',
  'audience-list',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

/** Kinds crafted from the valid token alone (no signing key of the suite's): usable with a token command. */
const KEYLESS: ReadonlySet<string> = new Set(['malformed', 'alg-none', 'wrong-signature']);

/** Where the run's tokens come from. */
export type TokenSourceKind = AuthorizationInfo['source'];

/** What the run's JSON records of its authorization (no token). */
export type AuthorizationRecord = AuthorizationInfo;

/** Token lifetimes and clock margins, seconds: far beyond any sane clock tolerance. */
const HOUR = 3600;

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The embedded authorization server: one signing key, its metadata, its JWKS. */
export class EmbeddedIssuer {
  private constructor(
    private readonly server: OAuth2Server,
    readonly issuer: string,
  ) {}

  /** Start on 127.0.0.1 (`port` 0 or absent: a free port). */
  static async start(port = 0): Promise<EmbeddedIssuer> {
    const server = new OAuth2Server();
    await server.issuer.keys.generate('RS256');
    try {
      await server.start(port, '127.0.0.1');
    } catch (err) {
      throw new Error(`cannot start the embedded authorization server on 127.0.0.1:${port}: ${(err as Error).message}`);
    }
    const issuer = `http://127.0.0.1:${server.address().port}`;
    server.issuer.url = issuer;
    addAuthorizationServerMetadata(server, issuer);
    return new EmbeddedIssuer(server, issuer);
  }

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  /** The issuer's signing key (kid and private JWK). */
  private key(): { kid: string; alg: string } & Record<string, unknown> {
    const key = this.server.issuer.keys.get() as unknown as ({ kid: string; alg: string } & Record<string, unknown>) | undefined;
    if (!key) throw new Error('the embedded authorization server has no key');
    return key;
  }

  /** A JWT signed with the issuer's key, carrying `claims` (a claim set to undefined is left out). */
  async sign(claims: JWTPayload): Promise<string> {
    const key = this.key();
    const privateKey = await importJWK(key, key.alg);
    return new SignJWT(dropUndefined(claims)).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(privateKey);
  }

  async stop(): Promise<void> {
    await this.server.stop().catch(() => undefined);
  }
}

/** RFC 8414 metadata beside the OpenID discovery document the library serves. */
function addAuthorizationServerMetadata(server: OAuth2Server, issuer: string): void {
  const app = server.service.requestHandler as unknown as {
    get: (path: string, fn: (req: unknown, res: { json: (v: unknown) => void }) => void) => void;
  };
  const doc = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
  };
  app.get('/.well-known/oauth-authorization-server', (_req, res) => res.json(doc));
}

function dropUndefined(claims: JWTPayload): JWTPayload {
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
}

/** The parameters of the Bearer challenge of a WWW-Authenticate value (undefined: no Bearer challenge). */
export function bearerChallenge(header: string | undefined): Record<string, string> | undefined {
  if (!header) return undefined;
  const at = /(?:^|[\s,])Bearer(?=$|[\s,])/i.exec(header);
  if (!at) return undefined;
  const params: Record<string, string> = {};
  const rest = header.slice(at.index + at[0].length);
  const re = /\s*,?\s*([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/y;
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest))) params[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1');
  return params;
}

/** Whether a URL's host is a loopback address (tokens never leave it unless the user chose the destination). */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The tokens of one run: the valid one (sent by the session layer on every
 * request) and the hostile kinds the authorization checks present.
 */
export class RunTokens {
  private readonly made = new Map<string, string>();

  private constructor(
    readonly source: TokenSourceKind,
    /** The MCP endpoint: the audience of the valid token (RFC 8707 canonical URI, as given to --url). */
    readonly resource: string,
    readonly valid: string,
    private readonly redactor: Redactor,
    readonly issuer?: EmbeddedIssuer,
    /** The scopes the valid token carries (embedded issuer). */
    readonly scopes: string[] = [],
  ) {
    redactor.addToken(valid);
  }

  /** Mint the valid token with the embedded issuer. */
  static async embedded(issuer: EmbeddedIssuer, resource: string, scopes: string[], redactor: Redactor): Promise<RunTokens> {
    const valid = await issuer.sign(claims(issuer.issuer, resource, scopes));
    return new RunTokens('embedded', resource, valid, redactor, issuer, scopes);
  }

  /** The valid token a user's command prints (its first line, trimmed); throws one line when it fails. */
  static async fromCommand(
    command: string,
    resource: string,
    redactor: Redactor,
    opts: { timeoutMs: number; cwd?: string; signal?: AbortSignal },
  ): Promise<RunTokens> {
    const out = await runShellCommand(command, { ...opts, redactor });
    const token = out.stdout?.trim().split('\n')[0]?.trim();
    if (token) redactor.addToken(token);
    if (!out.ok) throw new Error(`authorization.tokenCommand ${out.detail}`);
    if (!token) throw new Error('authorization.tokenCommand printed no token');
    if (/\s/.test(token)) throw new Error('authorization.tokenCommand printed a token with white space in it');
    return new RunTokens('command', resource, token, redactor);
  }

  /** What the run's JSON records (no token). */
  get record(): AuthorizationRecord {
    return this.issuer
      ? { source: this.source, issuer: this.issuer.issuer, jwksUri: this.issuer.jwksUri, scopes: this.scopes }
      : { source: this.source };
  }

  /** Every token of the run so far. */
  all(): string[] {
    return [this.valid, ...this.made.values()];
  }

  /** Why a kind cannot be crafted in this run (undefined: it can). */
  cannotCraft(kind: HostileKind | 'scopes'): string | undefined {
    if (this.issuer) return undefined;
    if (KEYLESS.has(kind) && (kind === 'malformed' || isJwt(this.valid))) return undefined;
    if (KEYLESS.has(kind)) return 'the token authorization.tokenCommand printed is not a JWT, so it cannot be altered into this kind';
    return 'it needs a token signed by the suite: run with --auth and point the server at the embedded issuer (MCP_CONFORMANCE_ISSUER), instead of authorization.tokenCommand';
  }

  /** A hostile token of `kind` (registered with the redactor); throws when `cannotCraft` says why not. */
  async hostile(kind: HostileKind): Promise<string> {
    const why = this.cannotCraft(kind);
    if (why) throw new Error(why);
    const token = await this.craft(kind);
    this.made.set(kind, token);
    this.redactor.addToken(token);
    return token;
  }

  /** A token signed by the embedded issuer that carries exactly `scopes` (otherwise valid). */
  async withScopes(scopes: string[]): Promise<string> {
    const why = this.cannotCraft('scopes');
    if (why) throw new Error(why);
    const token = await this.issuer!.sign(claims(this.issuer!.issuer, this.resource, scopes));
    this.made.set(`scopes:${scopes.join(' ')}`, token);
    this.redactor.addToken(token);
    return token;
  }

  /** A token signed by the embedded issuer, otherwise valid, with `overrides` of its claims (e.g. another form of `aud`). */
  async withClaims(overrides: JWTPayload): Promise<string> {
    const why = this.cannotCraft('scopes');
    if (why) throw new Error(why);
    const token = await this.issuer!.sign({ ...claims(this.issuer!.issuer, this.resource, this.scopes), ...overrides });
    this.made.set(`claims:${JSON.stringify(overrides)}`, token);
    this.redactor.addToken(token);
    return token;
  }

  private craft(kind: HostileKind): Promise<string> {
    if (kind === 'malformed') return Promise.resolve(`not-a-jwt.${randomUUID()}`);
    if (kind === 'alg-none') return Promise.resolve(unsigned(decodeJwt(this.valid)));
    if (kind === 'wrong-signature') return resigned(this.valid);
    const issuer = this.issuer!;
    const base = claims(issuer.issuer, this.resource, this.scopes);
    const t = now();
    const variants: Record<Exclude<HostileKind, 'malformed' | 'alg-none' | 'wrong-signature'>, JWTPayload> = {
      expired: { ...base, iat: t - 3 * HOUR, nbf: t - 3 * HOUR, exp: t - 2 * HOUR },
      'not-yet-valid': { ...base, nbf: t + 2 * HOUR, exp: t + 3 * HOUR },
      'wrong-issuer': { ...base, iss: 'https://other-issuer.invalid' },
      'wrong-audience': { ...base, aud: 'https://other-resource.invalid/mcp' },
      'no-audience': { ...base, aud: undefined },
      'audience-list': { ...base, aud: ['https://other-resource.invalid/mcp', 'https://third-resource.invalid'] },
    };
    return issuer.sign(variants[kind]);
  }
}

/** The claims of a token for `resource` (contract: iss, aud, scope, sub, iat, nbf, exp, jti). */
function claims(iss: string, aud: string, scopes: string[]): JWTPayload {
  const t = now();
  return { iss, aud, scope: scopes.join(' '), sub: 'mcp-conformance', iat: t, nbf: t - 60, exp: t + HOUR, jti: randomUUID() };
}

function isJwt(token: string): boolean {
  try {
    decodeProtectedHeader(token);
    decodeJwt(token);
    return true;
  } catch {
    return false;
  }
}

/** The same claims with `alg: none` and no signature. */
function unsigned(payload: JWTPayload): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
}

/** The same header and claims signed by a key of its own (same `kid`): a signature the issuer never made. */
async function resigned(token: string): Promise<string> {
  const header = decodeProtectedHeader(token);
  const payload = decodeJwt(token);
  const alg = typeof header.alg === 'string' && /^(?:RS|PS|ES)(?:256|384|512)$/.test(header.alg) ? header.alg : 'RS256';
  const { privateKey } = await generateKeyPair(alg);
  return new SignJWT(payload).setProtectedHeader({ ...header, alg }).sign(privateKey);
}

/** The scopes a resource names (its metadata's scopes_supported at a well-known URI, else its 401 challenge), for the valid token. */
export async function resourceScopes(endpoint: string, timeoutMs: number): Promise<string[] | undefined> {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/$/, '');
  for (const where of [
    ...(path ? [`${url.origin}/.well-known/oauth-protected-resource${path}`] : []),
    `${url.origin}/.well-known/oauth-protected-resource`,
  ]) {
    const doc = await getJson(where, timeoutMs);
    const scopes = doc?.scopes_supported;
    if (Array.isArray(scopes) && scopes.length && scopes.every((s) => typeof s === 'string')) return scopes as string[];
  }
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    signal: AbortSignal.timeout(timeoutMs),
  }).catch(() => undefined);
  await res?.body?.cancel().catch(() => undefined);
  const scope = bearerChallenge(res?.headers.get('www-authenticate') ?? undefined)?.scope;
  const named = (scope ?? '').split(/\s+/).filter(Boolean);
  return named.length ? named : undefined;
}

async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return void (await res.body?.cancel());
    const doc = (await res.json()) as unknown;
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

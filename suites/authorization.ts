/**
 * Authorization (basic/authorization and its pages; 2025-11-25
 * basic/authorization): a protected HTTP MCP server as an OAuth 2.1
 * resource server. Its protected-resource metadata, its challenges, and how
 * it answers no token, each hostile token kind, a token lacking scope, and a
 * malformed authorization request. Authorization is OPTIONAL for MCP
 * implementations: a server that serves requests without a token and with a
 * malformed one is not protected, and these checks skip.
 *
 * The survey (one per run) sends the requests several checks judge; every
 * answer is kept for authorization/token-not-echoed.
 */
import { bearerChallenge, HOSTILE_KINDS, isLoopback, type HostileKind, type RunTokens } from '../harness/authorization.js';
import { TransportError } from '../harness/errors.js';
import { KnownSilentError } from '../harness/timeouts.js';
import { REDACTED_TOKEN } from '../harness/redact.js';
import type { Session } from '../harness/session.js';
import type { WireFrame } from '../model/wire.js';
import type { JsonObject } from '../model/json.js';
import { defineCheck, memoKey, show, type Probe, type Rule } from './check.js';

const D = 'basic/authorization/index';
const DISCOVERY = 'basic/authorization/authorization-server-discovery';
const SECURITY = 'basic/authorization/security-considerations';
const LEGACY = 'basic/authorization';
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** A rule of the draft pages, with its 2025-11-25 citation where that page states it. */
function rule(level: Rule['level'], page: string, section: string, quote: string, legacy?: { section: string; quote?: string }): Rule {
  return {
    level,
    spec: { revision: 'draft', page, section },
    quote,
    ...(legacy
      ? {
          legacy: {
            spec: { revision: '2025-11-25', page: LEGACY, section: legacy.section },
            ...(legacy.quote ? { quote: legacy.quote } : {}),
          },
        }
      : {}),
  };
}

const DISCOVERY_LEAD =
  'MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients:';
const SCOPE_LEAD =
  'When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with:';
const STATUS_CODES = rule('MUST', D, 'Error Handling', 'Servers MUST return appropriate HTTP status codes for authorization errors:', {
  section: 'Error Handling',
});
const VALIDATE_52 =
  'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens as described in OAuth 2.1 Section 5.2.';

/** One raw exchange of the authorization checks, with what it was. */
export type AuthAnswer = Awaited<ReturnType<Session['rawHttp']>> & { what: string };

/** What one run's first look established: the server is protected, and how it answers no token. */
interface Survey {
  /** Why the checks cannot judge (not active, not protected, the valid token refused). */
  skip?: string;
  notObserved?: string;
  noToken?: AuthAnswer;
  valid?: AuthAnswer;
}

const ANSWERS = memoKey<AuthAnswer[]>('authorization answers');
const SURVEY = memoKey<Promise<Survey>>('authorization survey');
const METADATA = memoKey<Promise<Metadata>>('authorization metadata');

/** A request that reaches the server's method handling. */
function plainMessage(t: Probe, session: Session = t.session): JsonObject {
  return session.message(t.ctx.era === 'legacy' ? 'ping' : 'server/discover');
}

/**
 * Send one raw exchange: `token` undefined sends the run's valid token (the
 * session's header), null none, a string that token. Kept for the echo check.
 */
async function send(
  t: Probe,
  what: string,
  opts: { token?: string | null; url?: string; method?: string; session?: Session } = {},
): Promise<AuthAnswer> {
  const session = opts.session ?? t.session;
  const auth =
    opts.token === undefined
      ? {}
      : opts.token === null
        ? { omit: ['Authorization'] }
        : { headers: { Authorization: `Bearer ${opts.token}` } };
  let answer: Awaited<ReturnType<Session['rawHttp']>>;
  try {
    answer =
      opts.method === 'GET'
        ? await session.rawHttp({ method: 'GET', url: opts.url, omit: ['Authorization'] })
        : await session.rawHttp({ message: plainMessage(t, session), ...(opts.url ? { url: opts.url } : {}), ...auth });
  } catch (err) {
    if (err instanceof TransportError || err instanceof KnownSilentError)
      return t.notObserved(`the probe could not be sent: ${err.message}`);
    throw err;
  }
  const kept = { ...answer, what };
  t.ctx.run.memo(ANSWERS, () => []).push(kept);
  return kept;
}

/** The answer carried a JSON-RPC result: the server served the request. */
function served(a: AuthAnswer): boolean {
  return a.status >= 200 && a.status < 300 && a.messages.some((m) => /"result"\s*:/.test(m));
}

function answerText(a: AuthAnswer): string {
  const challenge = a.headers['www-authenticate'];
  return `HTTP ${a.status}${challenge ? `, WWW-Authenticate: ${challenge}` : ', no WWW-Authenticate header'}${served(a) ? ', a JSON-RPC result (served)' : ''}`;
}

function scopeSet(scope: string | undefined): string[] {
  return (scope ?? '').split(/\s+/).filter(Boolean).sort();
}

const NOT_ACTIVE =
  'authorization is not active: run with --auth (the embedded issuer; point the server at it through MCP_CONFORMANCE_ISSUER) or with authorization.tokenCommand in the configuration file';

/** The run's tokens, or skip when authorization is not active (or the transport is not HTTP). */
function tokensOf(t: Probe): RunTokens {
  if (!t.ctx.authorization) return t.skip(NOT_ACTIVE);
  return t.ctx.authorization;
}

/** The first look (once per run): no token, a malformed token, the valid token. */
async function survey(t: Probe): Promise<Survey> {
  const tokens = t.ctx.authorization;
  if (!tokens) return { skip: NOT_ACTIVE };
  const noToken = await send(t, 'a request without a token', { token: null });
  const valid = await send(t, 'a request with the valid token');
  if (!served(valid)) return { notObserved: `the server refused the run's valid token too (${answerText(valid)})` };
  if (served(noToken)) {
    const malformed = await send(t, 'a request with a malformed token', { token: await tokens.hostile('malformed') });
    if (served(malformed)) {
      return {
        skip: 'the server served a request without a token and one with a malformed token: it does not protect its endpoint (authorization is OPTIONAL for MCP implementations)',
      };
    }
  }
  return { noToken, valid };
}

/** The survey, or the check ends with its skip or not-observed. */
async function surveyed(t: Probe): Promise<Required<Pick<Survey, 'noToken' | 'valid'>>> {
  tokensOf(t);
  const s = await t.ctx.run.memo(SURVEY, () => survey(t));
  if (s.skip) return t.skip(s.skip);
  if (s.notObserved) return t.notObserved(s.notObserved);
  return { noToken: s.noToken!, valid: s.valid! };
}

/** The 401 challenge of the no-token answer, or not-observed. */
async function noTokenChallenge(t: Probe): Promise<Record<string, string>> {
  const { noToken } = await surveyed(t);
  const challenge = bearerChallenge(noToken.headers['www-authenticate']);
  if (noToken.status !== 401 || !challenge)
    return t.notObserved(
      `the request without a token got no 401 Bearer challenge (${answerText(noToken)}; judged by authorization/unauthenticated)`,
    );
  return challenge;
}

export const unauthenticated = defineCheck({
  id: 'authorization/unauthenticated',
  title: 'a request without a token is refused with 401',
  ...rule(
    'MUST',
    SECURITY,
    'Access Token Privilege Restriction',
    'MCP servers MUST validate access tokens before processing the request, ensuring the access token is issued specifically for the MCP server, and take all necessary steps to ensure no data is returned to unauthorized parties.',
    { section: 'Access Token Privilege Restriction' },
  ),
  parts: { status: STATUS_CODES },
  transports: ['http'],
  async run(t) {
    const { noToken } = await surveyed(t);
    const ok = t.expect(!served(noToken), {
      expected: 'the request without a token is refused, with no JSON-RPC result',
      actual: answerText(noToken),
      wire: noToken.frames,
    });
    if (!ok) return;
    t.expect(noToken.status === 401, {
      part: 'status',
      expected: 'HTTP 401 (Unauthorized: authorization required)',
      actual: answerText(noToken),
      wire: noToken.frames,
    });
  },
});

/** Where the metadata document was found, and what it is. */
interface Metadata {
  failed?: string;
  /** The 401 challenge names the metadata on another origin (the suite reads only the server's). */
  elsewhere?: string;
  url?: string;
  answer?: AuthAnswer;
  how?: string;
}

/** The metadata URL the 401 challenge names, when it is on the endpoint's origin. */
function namedUrl(endpoint: string, challenge: Record<string, string> | undefined): string | undefined {
  const named = challenge?.resource_metadata;
  if (!named) return undefined;
  try {
    return new URL(named).origin === new URL(endpoint).origin ? named : undefined;
  } catch {
    return undefined;
  }
}

/** The well-known URIs of the endpoint: path-aware first, then the root. */
function wellKnownUrls(endpoint: string): string[] {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/$/, '');
  return [...(path ? [`${url.origin}${WELL_KNOWN}${path}`] : []), `${url.origin}${WELL_KNOWN}`];
}

/** Find the metadata document (once per run): the challenge's resource_metadata, else the well-known URIs. */
async function findMetadata(t: Probe): Promise<Metadata> {
  const { noToken } = await surveyed(t);
  const endpoint = t.ctx.authorization!.resource;
  const challenge = bearerChallenge(noToken.headers['www-authenticate']);
  const named = namedUrl(endpoint, challenge);
  const tried: string[] = [];
  const candidates = [...(named ? [{ url: named, how: 'named by resource_metadata' }] : [])];
  for (const url of wellKnownUrls(endpoint)) if (url !== named) candidates.push({ url, how: 'at a well-known URI' });
  for (const c of candidates) {
    const answer = await send(t, `GET ${c.url}`, { method: 'GET', url: c.url });
    if (answer.status === 200) return { url: c.url, answer, how: c.how };
    tried.push(`${c.url}: HTTP ${answer.status}`);
  }
  const elsewhere =
    challenge?.resource_metadata && !named ? `; resource_metadata names ${challenge.resource_metadata}, another origin` : '';
  const head = named ? `the 401 challenge names resource_metadata ${named}` : `the 401 challenge names no resource_metadata${elsewhere}`;
  const other = elsewhere ? { elsewhere: challenge!.resource_metadata } : {};
  return { failed: `${head}, and no URL serves the metadata (${tried.join('; ')})`, ...other };
}

export const discovery = defineCheck({
  id: 'authorization/discovery',
  title: 'the protected-resource metadata is found through resource_metadata or a well-known URI',
  ...rule(
    'MUST',
    DISCOVERY,
    'Protected Resource Metadata Discovery Requirements',
    `${DISCOVERY_LEAD} … WWW-Authenticate Header: Include the resource metadata URL in the WWW-Authenticate HTTP header under resource_metadata when returning 401 Unauthorized responses, as described in RFC9728 Section 5.1.`,
    { section: 'Protected Resource Metadata Discovery Requirements' },
  ),
  parts: {
    'well-known': rule(
      'MUST',
      DISCOVERY,
      'Protected Resource Metadata Discovery Requirements',
      `${DISCOVERY_LEAD} … Well-Known URI: Serve metadata at a well-known URI as specified in RFC9728.`,
      { section: 'Protected Resource Metadata Discovery Requirements' },
    ),
  },
  transports: ['http'],
  async run(t) {
    const { noToken } = await surveyed(t);
    const found = await t.ctx.run.memo(METADATA, () => findMetadata(t));
    if (!found.failed) return;
    // The header names the metadata on another origin: the header mechanism is there; the suite reads no other origin.
    if (found.elsewhere) return t.inform(`the 401 challenge names resource_metadata ${found.elsewhere}, on another origin: not fetched`);
    // Neither mechanism: the finding quotes the one the server relies on (its 401 names a URL, or it names none).
    const named = bearerChallenge(noToken.headers['www-authenticate'])?.resource_metadata !== undefined;
    t.expect(false, {
      ...(named ? {} : { part: 'well-known' }),
      expected: named
        ? 'the URL resource_metadata names in the 401 challenge serves the protected-resource metadata (or a well-known URI does)'
        : 'without resource_metadata in the 401 challenge, the protected-resource metadata at a well-known URI (path-aware or root)',
      actual: found.failed,
      wire: (t.ctx.run.peek(ANSWERS) ?? []).flatMap((a) => a.frames),
    });
  },
});

/** The canonical form of a resource URI, for comparison: lowercase scheme and host (URL does it), no trailing slash. */
function canonicalUri(uri: string): string {
  try {
    const u = new URL(uri);
    return `${u.origin}${u.pathname.replace(/\/$/, '')}${u.search}`;
  } catch {
    return uri;
  }
}

/** The resource identifiers a document found at `how` may name for `endpoint`: the endpoint; at the root, its origin too. */
function acceptedResources(endpoint: string, found: Metadata): string[] {
  const origin = new URL(endpoint).origin;
  return found.url === `${origin}${WELL_KNOWN}` || found.how?.startsWith('named') ? [endpoint, origin] : [endpoint];
}

function parseObject(body: string): JsonObject | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** The metadata document (JSON object), or not-observed naming the discovery check. */
async function metadataDocument(t: Probe): Promise<{ doc?: JsonObject; found: Metadata }> {
  await surveyed(t);
  const found = await t.ctx.run.memo(METADATA, () => findMetadata(t));
  if (found.elsewhere)
    return t.notObserved(
      `the metadata is at ${found.elsewhere}, on another origin than the endpoint: the suite reads only the server's origin`,
    );
  if (found.failed) return t.notObserved(`${found.failed} (judged by authorization/discovery)`);
  return { doc: found.answer!.status === 200 ? parseObject(found.answer!.body) : undefined, found };
}

export const protectedResourceMetadata = defineCheck({
  id: 'authorization/protected-resource-metadata',
  title: 'the protected-resource metadata is a JSON document naming the endpoint and its authorization servers',
  ...rule(
    'MUST',
    DISCOVERY,
    'Authorization Server Location',
    'MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers.',
    { section: 'Authorization Server Location' },
  ),
  parts: {
    resource: rule('MUST', D, 'Overview', 'MCP servers MUST implement OAuth 2.0 Protected Resource Metadata (RFC9728).', {
      section: 'Overview',
    }),
    'trailing-slash': rule(
      'SHOULD',
      D,
      'Canonical Server URI',
      'Note: While both https://mcp.example.com/ (with trailing slash) and https://mcp.example.com (without trailing slash) are technically valid absolute URIs according to RFC 3986, implementations SHOULD consistently use the form without the trailing slash for better interoperability unless the trailing slash is semantically significant for the specific resource.',
      { section: 'Canonical Server URI' },
    ),
    'authorization-servers': rule(
      'MUST',
      DISCOVERY,
      'Authorization Server Location',
      'The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
      { section: 'Authorization Server Location' },
    ),
  },
  transports: ['http'],
  async run(t) {
    const { doc, found } = await metadataDocument(t);
    const answer = found.answer!;
    const ok = t.expect(doc !== undefined, {
      expected: `HTTP 200 with a JSON object (RFC 9728 metadata) at ${found.url} (${found.how})`,
      actual: `HTTP ${answer.status}, body ${show(answer.body, 200)}`,
      wire: answer.frames,
    });
    if (!ok || !doc) return;
    const endpoint = t.ctx.authorization!.resource;
    const accepted = acceptedResources(endpoint, found);
    t.expect(typeof doc.resource === 'string' && accepted.map(canonicalUri).includes(canonicalUri(doc.resource)), {
      part: 'resource',
      expected: `resource ${accepted.map((r) => JSON.stringify(r)).join(' or ')} (the MCP endpoint the document describes)`,
      actual: `resource ${show(doc.resource)}`,
      wire: answer.frames,
    });
    if (typeof doc.resource === 'string' && doc.resource.endsWith('/') && !endpoint.endsWith('/')) {
      t.expect(false, {
        part: 'trailing-slash',
        expected: `resource without a trailing slash, as the endpoint ${endpoint} is spelled`,
        actual: `resource ${show(doc.resource)}`,
        wire: answer.frames,
      });
    }
    const servers = doc.authorization_servers;
    t.expect(Array.isArray(servers) && servers.length > 0 && servers.every((s) => typeof s === 'string' && s !== ''), {
      part: 'authorization-servers',
      expected: 'authorization_servers: an array of at least one authorization server (issuer URL)',
      actual: `authorization_servers ${show(servers)}`,
      wire: answer.frames,
    });
  },
});

/** Each hostile kind's own rule (the part its acceptance breaks). */
const KIND_RULES: Record<HostileKind, Rule> = {
  malformed: rule(
    'MUST',
    SECURITY,
    'Access Token Privilege Restriction',
    'A MCP server MUST follow the guidelines in OAuth 2.1 - Section 5.2 to validate inbound tokens.',
    { section: 'Access Token Privilege Restriction' },
  ),
  expired: rule('MUST', D, 'Token Handling', VALIDATE_52, { section: 'Token Handling' }),
  'not-yet-valid': rule(
    'MUST',
    D,
    'Security Considerations',
    'Implementations of this specification MUST follow the normative security requirements in Security Considerations, covering token audience binding and validation, token theft, communication security, authorization code protection, mix-up and confused deputy attacks, open redirection, and Client ID Metadata Document security.',
    { section: 'Token Handling', quote: VALIDATE_52 },
  ),
  'wrong-signature': rule('MUST', D, 'Token Handling', 'MCP servers MUST NOT accept or transit any other tokens.', {
    section: 'Token Handling',
  }),
  'alg-none': rule(
    'MUST',
    SECURITY,
    'Authorization Security Considerations',
    'Additionally, implementors MUST follow OAuth 2.1 security best practices as outlined in OAuth 2.1 Section 7. "Security Considerations".',
    {
      section: 'Security Considerations',
      quote: 'Implementations MUST follow OAuth 2.1 security best practices as laid out in OAuth 2.1 Section 7. "Security Considerations".',
    },
  ),
  'wrong-issuer': rule(
    'MUST',
    D,
    'Token Handling',
    'MCP servers MUST only accept tokens that are valid for use with their own resources.',
    {
      section: 'Token Handling',
    },
  ),
  'wrong-audience': rule(
    'MUST',
    D,
    'Token Handling',
    'MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, according to RFC 8707 Section 2.',
    { section: 'Token Handling' },
  ),
  'no-audience': rule(
    'MUST',
    SECURITY,
    'Token Audience Binding and Validation',
    'MCP servers MUST validate that tokens presented to them were specifically issued for their use',
    { section: 'Token Audience Binding and Validation' },
  ),
  'audience-list': rule(
    'MUST',
    SECURITY,
    'Access Token Privilege Restriction',
    'MCP servers MUST only accept tokens specifically intended for themselves and MUST reject tokens that do not include them in the audience claim or otherwise verify that they are the intended recipient of the token.',
    { section: 'Access Token Privilege Restriction' },
  ),
};

const KIND_WORDS: Record<HostileKind, string> = {
  malformed: 'a token that is not a JWT',
  expired: 'an expired token (exp two hours ago)',
  'not-yet-valid': 'a token not yet valid (nbf two hours ahead)',
  'wrong-signature': 'a token whose signature the issuer never made (another key, the same kid)',
  'alg-none': 'an unsigned token (alg none)',
  'wrong-issuer': 'a token from another issuer (iss https://other-issuer.invalid)',
  'wrong-audience': 'a token for another resource (aud https://other-resource.invalid/mcp)',
  'no-audience': 'a token without an aud claim',
  'audience-list': 'a token whose aud list names two other resources, not this server',
};

/** Judge one hostile kind's answer: accepted (its part), a status other than 401 (the check), no challenge (part challenge). */
function judgeKind(t: Probe, kind: HostileKind, a: AuthAnswer): void {
  const words = KIND_WORDS[kind];
  if (!t.expect(!served(a), { part: kind, expected: `${words} is refused (HTTP 401)`, actual: answerText(a), wire: a.frames })) return;
  if (!t.expect(a.status === 401, { expected: `${words} is answered HTTP 401`, actual: answerText(a), wire: a.frames })) return;
  t.expect(bearerChallenge(a.headers['www-authenticate']) !== undefined, {
    part: 'challenge',
    expected: `the 401 refusing ${words} carries a WWW-Authenticate Bearer challenge (OAuth 2.1 Section 5.3, RFC 6750 Section 3)`,
    actual: answerText(a),
    wire: a.frames,
  });
}

export const invalidToken = defineCheck({
  id: 'authorization/invalid-token',
  title: 'each hostile token kind is refused with 401 and a Bearer challenge',
  ...rule('MUST', D, 'Token Handling', 'Invalid or expired tokens MUST receive a HTTP 401 response.', { section: 'Token Handling' }),
  parts: {
    ...KIND_RULES,
    challenge: rule(
      'MUST',
      D,
      'Token Handling',
      'If validation fails, servers MUST respond according to OAuth 2.1 Section 5.3 error handling requirements.',
      { section: 'Token Handling' },
    ),
  },
  transports: ['http'],
  async run(t) {
    await surveyed(t);
    const tokens = t.ctx.authorization!;
    const left: string[] = [];
    for (const kind of HOSTILE_KINDS) {
      const why = tokens.cannotCraft(kind);
      if (why) {
        left.push(`${kind} (${why})`);
        continue;
      }
      judgeKind(t, kind, await send(t, KIND_WORDS[kind], { token: await tokens.hostile(kind) }));
    }
    if (left.length) t.note('kinds not presented', left);
    if (left.length === HOSTILE_KINDS.length) t.notObserved(`no hostile token could be crafted: ${left.join('; ')}`);
  },
});

/** A token lacking every scope, or skip when the run cannot sign one. */
async function scopelessAnswer(t: Probe): Promise<{ tokens: RunTokens; first: AuthAnswer }> {
  await surveyed(t);
  const tokens = t.ctx.authorization!;
  const why = tokens.cannotCraft('scopes');
  if (why) return t.skip(why);
  const first = await send(t, 'a request with a token lacking every scope', { token: await tokens.withScopes([]) });
  if (served(first)) return t.notObserved('the server served a token carrying no scope: it requires none for this request');
  return { tokens, first };
}

export const insufficientScope = defineCheck({
  id: 'authorization/insufficient-scope',
  title: 'a token lacking the required scope is answered 403 insufficient_scope, naming the scopes needed',
  ...rule('SHOULD', D, 'Runtime Insufficient Scope Errors', `${SCOPE_LEAD} … HTTP 403 Forbidden status code (per RFC 6750 Section 3.1)`, {
    section: 'Runtime Insufficient Scope Errors',
  }),
  parts: {
    challenge: rule(
      'SHOULD',
      D,
      'Runtime Insufficient Scope Errors',
      `${SCOPE_LEAD} … WWW-Authenticate header with the Bearer scheme and additional parameters:`,
      { section: 'Runtime Insufficient Scope Errors' },
    ),
    scope: rule(
      'SHOULD',
      D,
      'Runtime Insufficient Scope Errors',
      'When responding with insufficient scope errors, servers SHOULD include the scopes needed to satisfy the current operation in the scope parameter, consistent with RFC 6750 Section 3.1.',
      {
        section: 'Runtime Insufficient Scope Errors',
        quote:
          'When responding with insufficient scope errors, servers SHOULD include the scopes needed to satisfy the current request in the scope parameter.',
      },
    ),
    'all-scopes': rule(
      'SHOULD',
      D,
      'Runtime Insufficient Scope Errors',
      'Whatever scope-inclusion strategy a server adopts, servers SHOULD include all scopes required for the current operation in a single challenge.',
    ),
    consistent: rule(
      'SHOULD',
      D,
      'Runtime Insufficient Scope Errors',
      'Servers SHOULD be consistent in their scope inclusion strategy to provide predictable behavior for clients.',
      { section: 'Runtime Insufficient Scope Errors' },
    ),
  },
  transports: ['http'],
  async run(t) {
    const { tokens, first } = await scopelessAnswer(t);
    const challenge = bearerChallenge(first.headers['www-authenticate']);
    if (!t.expect(first.status === 403, { expected: 'HTTP 403 Forbidden', actual: answerText(first), wire: first.frames })) return;
    const ok = t.expect(challenge?.error === 'insufficient_scope', {
      part: 'challenge',
      expected: 'the 403 carries WWW-Authenticate: Bearer error="insufficient_scope", scope=..., resource_metadata=...',
      actual: answerText(first),
      wire: first.frames,
    });
    if (!ok || !challenge) return;
    const named = scopeSet(challenge.scope);
    const scoped = t.expect(named.length > 0, {
      part: 'scope',
      expected: 'the 403 challenge names the scopes needed in its scope parameter',
      actual: answerText(first),
      wire: first.frames,
    });
    const again = await send(t, 'the same request with a token lacking every scope, again', { token: await tokens.withScopes([]) });
    const second = scopeSet(bearerChallenge(again.headers['www-authenticate'])?.scope);
    t.expect(again.status === 403 && named.join(' ') === second.join(' '), {
      part: 'consistent',
      expected: `the same request with the same token is challenged the same way: HTTP 403, scope "${named.join(' ')}"`,
      actual: answerText(again),
      wire: [...first.frames, ...again.frames],
    });
    if (scoped && t.ctx.era === 'modern') await judgeAllScopes(t, tokens, named, first);
  },
});

/** A token carrying exactly the challenged scopes is served: the challenge named them all. */
async function judgeAllScopes(t: Probe, tokens: RunTokens, named: string[], first: AuthAnswer): Promise<void> {
  const retry = await send(t, `a request with a token carrying the challenged scopes "${named.join(' ')}"`, {
    token: await tokens.withScopes(named),
  });
  const rechallenged = retry.status === 403 && bearerChallenge(retry.headers['www-authenticate'])?.error === 'insufficient_scope';
  t.expect(!rechallenged, {
    part: 'all-scopes',
    expected: `a token carrying the scopes the 403 challenge named ("${named.join(' ')}") is not challenged for more`,
    actual: answerText(retry),
    wire: [...first.frames, ...retry.frames],
  });
}

export const challengeScope = defineCheck({
  id: 'authorization/challenge-scope',
  title: 'the 401 challenge names the scopes required, the same way each time',
  ...rule(
    'SHOULD',
    D,
    'Scope Selection Strategy',
    'MCP servers SHOULD include a scope parameter in the WWW-Authenticate header as defined in RFC 6750 Section 3 to indicate the scopes required for accessing the resource.',
    { section: 'Protected Resource Metadata Discovery Requirements' },
  ),
  parts: {
    consistent: rule(
      'SHOULD',
      D,
      'Scope Selection Strategy',
      'Servers SHOULD strive for consistency in how they construct scope sets but they are not required to surface every dynamically issued scope through scopes_supported.',
      { section: 'Protected Resource Metadata Discovery Requirements' },
    ),
  },
  transports: ['http'],
  async run(t) {
    const challenge = await noTokenChallenge(t);
    const { noToken } = await surveyed(t);
    const named = scopeSet(challenge.scope);
    if (
      !t.expect(named.length > 0, {
        expected: 'the 401 challenge has a scope parameter',
        actual: answerText(noToken),
        wire: noToken.frames,
      })
    )
      return;
    const again = await send(t, 'a request without a token, again', { token: null });
    const second = scopeSet(bearerChallenge(again.headers['www-authenticate'])?.scope);
    t.expect(named.join(' ') === second.join(' '), {
      part: 'consistent',
      expected: `the same request without a token is challenged with the same scopes ("${named.join(' ')}")`,
      actual: answerText(again),
      wire: [...noToken.frames, ...again.frames],
    });
  },
});

export const offlineAccess = defineCheck({
  id: 'authorization/offline-access',
  title: 'offline_access is not advertised (challenge scope, scopes_supported)',
  ...rule(
    'SHOULD',
    D,
    'Refresh Tokens',
    'MCP Servers (Protected Resources) SHOULD NOT include offline_access in WWW-Authenticate scope or Protected Resource Metadata scopes_supported, as refresh tokens are not a resource requirement.',
  ),
  transports: ['http'],
  async run(t) {
    const { noToken } = await surveyed(t);
    const challenge = bearerChallenge(noToken.headers['www-authenticate']);
    const found = await t.ctx.run.memo(METADATA, () => findMetadata(t));
    const doc = found.answer?.status === 200 ? parseObject(found.answer.body) : undefined;
    const supported = Array.isArray(doc?.scopes_supported) ? (doc.scopes_supported as unknown[]) : undefined;
    if (challenge?.scope === undefined && supported === undefined)
      return t.notObserved('neither the 401 challenge nor the protected-resource metadata names any scope');
    const where = [
      ...(scopeSet(challenge?.scope).includes('offline_access') ? ['the 401 challenge scope'] : []),
      ...(supported?.includes('offline_access') ? ['scopes_supported of the protected-resource metadata'] : []),
    ];
    t.expect(where.length === 0, {
      expected: 'no offline_access in the WWW-Authenticate scope or in scopes_supported',
      actual: `offline_access in ${where.join(' and ')}`,
      wire: [...noToken.frames, ...(found.answer?.frames ?? [])],
    });
  },
});

export const malformedRequest = defineCheck({
  id: 'authorization/malformed-request',
  title: 'a malformed authorization request (the token in the query string) is not served',
  ...STATUS_CODES,
  transports: ['http'],
  async run(t) {
    await surveyed(t);
    const tokens = t.ctx.authorization!;
    if (!isLoopback(tokens.resource)) return t.skip('the suite puts a token in a URL only on loopback (servers and proxies log URLs)');
    const url = `${tokens.resource}${tokens.resource.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(tokens.valid)}`;
    const a = await send(t, 'a request with the valid token in the access_token query parameter and no Authorization header', {
      token: null,
      url,
    });
    t.expect(!served(a) && (a.status === 400 || a.status === 401), {
      expected:
        'not served: HTTP 400 (a malformed authorization request: a token in the URI query string) or 401 (no token in the Authorization header)',
      actual: answerText(a),
      wire: a.frames,
    });
  },
});

/** The URI with its scheme and host in upper case (RFC 3986: the same resource). */
function upperCased(uri: string): string {
  const u = new URL(uri);
  return `${u.protocol.toUpperCase()}//${u.host.toUpperCase()}${u.pathname}${u.search}`;
}

export const audienceCase = defineCheck({
  id: 'authorization/audience-case',
  title: 'a token whose audience spells the server URI with an uppercase scheme and host is accepted',
  ...rule(
    'SHOULD',
    D,
    'Canonical Server URI',
    'While the canonical form uses lowercase scheme and host components, implementations SHOULD accept uppercase scheme and host components for robustness and interoperability.',
    { section: 'Canonical Server URI' },
  ),
  transports: ['http'],
  async run(t) {
    await surveyed(t);
    const tokens = t.ctx.authorization!;
    const why = tokens.cannotCraft('scopes');
    if (why) return t.skip(why);
    const aud = upperCased(tokens.resource);
    const a = await send(t, `a request with a valid token whose aud is ${aud}`, { token: await tokens.withClaims({ aud }) });
    t.expect(served(a), {
      expected: `a valid token with aud ${JSON.stringify(aud)} (the endpoint, scheme and host in upper case) is served`,
      actual: answerText(a),
      wire: a.frames,
    });
  },
});

/** Where a token of the run shows in an answer of the authorization checks (headers or body). */
function echoIn(a: AuthAnswer, tokens: string[]): string | undefined {
  for (const [name, value] of Object.entries(a.headers)) if (tokens.some((tk) => value.includes(tk))) return `its ${name} header`;
  if (tokens.some((tk) => a.body.includes(tk))) return 'its body';
  return undefined;
}

export const tokenNotEchoed = defineCheck({
  id: 'authorization/token-not-echoed',
  title: 'no token the client presented comes back in anything the server sends',
  ...rule(
    'MUST',
    SECURITY,
    'Token Theft',
    'Clients and servers MUST implement secure token storage and follow OAuth best practices, as outlined in OAuth 2.1, Section 7.1.',
    { section: 'Token Theft' },
  ),
  transports: ['http'],
  observer: true,
  async run(t) {
    await surveyed(t);
    const all = tokensOf(t).all();
    const echoes: string[] = [];
    const wire: WireFrame[] = [];
    for (const a of t.ctx.run.peek(ANSWERS) ?? []) {
      const where = echoIn(a, all);
      if (where) (echoes.push(`the answer to ${a.what} (HTTP ${a.status}) carries a token in ${where}`), wire.push(...a.frames));
    }
    for (const s of t.ctx.allSessions()) {
      const frames = s.frames().filter((f) => f.dir === 'in' && f.text.includes(REDACTED_TOKEN));
      if (frames.length) (echoes.push(`${frames.length} message(s) on connection ${s.connection} carry a token`), wire.push(...frames));
    }
    t.expect(echoes.length === 0, {
      expected: `no token the suite presented (shown as ${REDACTED_TOKEN} in the reports) in any header, body or SSE event the server sends`,
      actual: echoes.join('; '),
      wire,
    });
  },
});

export const authorizationChecks = [
  unauthenticated,
  discovery,
  protectedResourceMetadata,
  invalidToken,
  insufficientScope,
  challengeScope,
  offlineAccess,
  malformedRequest,
  audienceCase,
  tokenNotEchoed,
];

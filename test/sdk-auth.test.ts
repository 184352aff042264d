/**
 * What the official SDKs' resource-server middleware does on the wire, read
 * from the SDK-middleware fixtures (fixtures/servers/sdk-auth: v1.js on the
 * 1.x SDK, v2.js on the 2.x server with @modelcontextprotocol/express),
 * each started against the suite's embedded issuer (harness/authorization)
 * and sent the run's tokens by hand: none, each hostile kind, one lacking
 * the scope, the valid one; the protected-resource metadata and its URL;
 * whether a token comes back; and with the middleware's default
 * (`expectedResource` unset), what it lets through. Each observation is pinned here, so an SDK
 * upgrade that moves one shows up; docs/findings.md ("Authorization: the SDK
 * middleware") reads them against the suite's verdicts, which
 * test/real-servers.test.ts pins.
 */
import net from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedIssuer, HOSTILE_KINDS, RunTokens, bearerChallenge, type HostileKind } from '../harness/authorization.js';
import { Redactor } from '../harness/redact.js';
import { ROOT } from './helpers.js';

const FIXTURES = join(ROOT, 'fixtures/servers/sdk-auth');
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sdk-auth-test', version: '1.0.0' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Answer {
  status: number;
  challenge?: Record<string, string>;
  text: string;
  /** Every header value and the body: where an echoed token would show. */
  visible: string;
}

/** Start a fixture on a free port and wait (with a deadline) for its "listening on" line. */
async function startFixture(file: string, issuer: string, flags: string[] = []): Promise<{ url: string; child: ResultPromise }> {
  const child = execa('node', [join(FIXTURES, file), '--port', '0', '--issuer', issuer, ...flags], { reject: false, buffer: false });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const deadline = setTimeout(() => reject(new Error(`${file}: no "listening on" line within 20 s: ${seen}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += String(chunk);
      const m = /listening on (\S+)/.exec(seen);
      if (m) {
        clearTimeout(deadline);
        resolve(m[1]!);
      }
    });
    void child.then(() => reject(new Error(`${file} exited before listening: ${seen}`)));
  });
  return { url, child };
}

async function post(url: string, token?: string, path = ''): Promise<Answer> {
  const headers: Record<string, string> = { ...HEADERS, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
  const r = await fetch(url + path, { method: 'POST', headers, body: INITIALIZE });
  const text = await r.text();
  const wwwAuthenticate = r.headers.get('www-authenticate') ?? undefined;
  return { status: r.status, challenge: bearerChallenge(wwwAuthenticate), text, visible: `${[...r.headers.values()].join('\n')}\n${text}` };
}

/** A request with two Authorization headers, on a raw socket (fetch would join them into one). */
function twoAuthorizationHeaders(url: string, first: string, second: string): Promise<string> {
  const u = new URL(url);
  const head = [
    `POST ${u.pathname} HTTP/1.1`,
    `Host: ${u.host}`,
    `Authorization: Bearer ${first}`,
    `Authorization: Bearer ${second}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(INITIALIZE)}`,
    'Connection: close',
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n${INITIALIZE}`));
    let out = '';
    // The status line is the observation: resolve on it (the server may keep the connection open).
    socket.on('data', (d) => {
      out += String(d);
      if (/^HTTP\/1\.1 \d{3} /.test(out)) {
        socket.destroy();
        resolve(out);
      }
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

/** The description the middleware gives each hostile kind: the application verifier's, or its own audience check's. */
function description(kind: HostileKind): string {
  return kind.includes('audience') ? 'Token was not issued for this resource' : 'Invalid or expired token';
}

describe.each([
  { generation: '1.x SDK (requireBearerAuth, mcpAuthMetadataRouter)', file: 'v1.js' },
  { generation: '2.x SDK (@modelcontextprotocol/express)', file: 'v2.js' },
])('$generation on the wire', ({ file }) => {
  let issuer: EmbeddedIssuer;
  let fixture: { url: string; child: ResultPromise };
  let tokens: RunTokens;
  let prmUrl: string;
  /** Every token presented, and every answer: for the echo test. */
  const presented: string[] = [];
  const answers: Answer[] = [];
  const send = async (token?: string, path?: string) => {
    if (token !== undefined) presented.push(token);
    const a = await post(fixture.url, token, path);
    answers.push(a);
    return a;
  };

  beforeAll(async () => {
    issuer = await EmbeddedIssuer.start();
    fixture = await startFixture(file, issuer.issuer);
    tokens = await RunTokens.embedded(issuer, fixture.url, ['mcp'], new Redactor());
    prmUrl = new URL('/.well-known/oauth-protected-resource/mcp', fixture.url).href;
  }, 30_000);
  afterAll(async () => {
    fixture?.child.kill();
    await fixture?.child;
    await issuer?.stop();
  });

  it('no token: 401, a Bearer challenge with error="invalid_token", the required scope and resource_metadata', async () => {
    const a = await send();
    expect(a.status).toBe(401);
    expect(a.challenge).toEqual({
      error: 'invalid_token',
      error_description: 'Missing Authorization header',
      scope: 'mcp',
      resource_metadata: prmUrl,
    });
    expect(JSON.parse(a.text)).toEqual({ error: 'invalid_token', error_description: 'Missing Authorization header' });
  });

  it.each(HOSTILE_KINDS)('hostile token "%s": 401 invalid_token, the same challenge', async (kind) => {
    const a = await send(await tokens.hostile(kind));
    expect(a.status).toBe(401);
    expect(a.challenge).toEqual({ error: 'invalid_token', error_description: description(kind), scope: 'mcp', resource_metadata: prmUrl });
  });

  it('a token lacking the scope: 403 insufficient_scope naming scope="mcp"', async () => {
    const a = await send(await tokens.withScopes([]));
    expect(a.status).toBe(403);
    expect(a.challenge).toEqual({
      error: 'insufficient_scope',
      error_description: 'Insufficient scope',
      scope: 'mcp',
      resource_metadata: prmUrl,
    });
  });

  it('the valid token: served (initialize answered with a result)', async () => {
    const a = await send(tokens.valid);
    expect(a.status).toBe(200);
    expect(a.challenge).toBeUndefined();
    expect(a.text).toContain('"protocolVersion":"2025-11-25"');
  });

  it('aud with an uppercase scheme: served, because the verifier reports it as a URL (new URL lowercases the scheme and host)', async () => {
    const upper = fixture.url.replace(/^http:/, 'HTTP:');
    expect((await send(await tokens.withClaims({ aud: upper }))).status).toBe(200);
  });

  it('the protected-resource metadata: at the path-aware well-known URI the challenge names, resource = the endpoint', async () => {
    const r = await fetch(prmUrl);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({
      resource: fixture.url,
      authorization_servers: [issuer.issuer],
      scopes_supported: ['mcp'],
      resource_name: `sdk-auth ${file.slice(0, 2)}`,
    });
    // Only the path-aware URI: the root well-known URI is not served.
    expect((await fetch(new URL('/.well-known/oauth-protected-resource', fixture.url))).status).toBe(404);
    // The issuer's own metadata is passed through on the server's origin too.
    const as = (await (await fetch(new URL('/.well-known/oauth-authorization-server', fixture.url))).json()) as { issuer: string };
    expect(as.issuer).toBe(issuer.issuer);
  });

  it('a token in the query string alone is not read (401 "Missing Authorization header"); beside a valid header it is ignored', async () => {
    const query = await send(undefined, `?access_token=${encodeURIComponent(tokens.valid)}`);
    presented.push(tokens.valid);
    expect(query.status).toBe(401);
    expect(query.challenge?.error_description).toBe('Missing Authorization header');
    const both = await send(tokens.valid, `?access_token=${encodeURIComponent(await tokens.hostile('expired'))}`);
    expect(both.status).toBe(200);
  });

  it('two Authorization headers: Node keeps the first, so the middleware never sees the second (no 400)', async () => {
    const expired = await tokens.hostile('expired');
    expect(await twoAuthorizationHeaders(fixture.url, tokens.valid, expired)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await twoAuthorizationHeaders(fixture.url, expired, tokens.valid)).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('GET on the endpoint: 401 without a token, 405 with the valid one (stateless: no standalone stream)', async () => {
    const bare = await fetch(fixture.url, { headers: { accept: 'text/event-stream' } });
    await bare.body?.cancel();
    expect(bare.status).toBe(401);
    const authorized = await fetch(fixture.url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${tokens.valid}` } });
    await authorized.body?.cancel();
    expect(authorized.status).toBe(405);
  });

  it('no token comes back: none of the presented tokens is in any header or body of the answers', () => {
    expect(answers.length).toBeGreaterThan(HOSTILE_KINDS.length);
    for (const token of new Set(presented)) for (const a of answers) expect(a.visible.includes(token)).toBe(false);
  });
});

describe.each([
  { generation: '1.x SDK', file: 'v1.js' },
  { generation: '2.x SDK', file: 'v2.js' },
])("$generation with the middleware's default, expectedResource unset", ({ file }) => {
  let issuer: EmbeddedIssuer;
  let fixture: { url: string; child: ResultPromise };
  let tokens: RunTokens;

  beforeAll(async () => {
    issuer = await EmbeddedIssuer.start();
    fixture = await startFixture(file, issuer.issuer, ['--no-expected-resource']);
    tokens = await RunTokens.embedded(issuer, fixture.url, ['mcp'], new Redactor());
  }, 30_000);
  afterAll(async () => {
    fixture?.child.kill();
    await fixture?.child;
    await issuer?.stop();
  });

  it('no one compares the audience: a token for another resource, none, or a list of others is served', async () => {
    for (const kind of ['wrong-audience', 'no-audience', 'audience-list'] as const) {
      expect((await post(fixture.url, await tokens.hostile(kind))).status, kind).toBe(200);
    }
  });

  it('the verifier still refuses the other kinds, and the scope is still required', async () => {
    for (const kind of HOSTILE_KINDS.filter((k) => !k.includes('audience'))) {
      expect((await post(fixture.url, await tokens.hostile(kind))).status, kind).toBe(401);
    }
    expect((await post(fixture.url, await tokens.withScopes([]))).status).toBe(403);
  });
});

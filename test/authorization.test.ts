/**
 * The run's authorization (harness/authorization.ts, engine/authorization.ts):
 * the embedded issuer's tokens, their redaction, the loopback rule, the 401
 * hint, and a token command for a server that trusts another issuer.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { bearerChallenge, EmbeddedIssuer, HOSTILE_KINDS, isLoopback, RunTokens } from '../harness/authorization.js';
import { Redactor, REDACTED_TOKEN } from '../harness/redact.js';
import { runConformance } from '../engine/run.js';
import { freePort, referenceCommand, tempDir } from './helpers.js';

describe('authorization', () => {
  it('reads the Bearer challenge of a WWW-Authenticate value', () => {
    expect(bearerChallenge('Bearer resource_metadata="http://x/.well-known/p", scope="a b"')).toEqual({
      resource_metadata: 'http://x/.well-known/p',
      scope: 'a b',
    });
    expect(bearerChallenge('Basic realm="x", Bearer error=invalid_token')).toEqual({ error: 'invalid_token' });
    expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(bearerChallenge(undefined)).toBeUndefined();
  });

  it('tells loopback URLs from others', () => {
    for (const url of ['http://127.0.0.1:3000/mcp', 'http://localhost/mcp', 'http://[::1]:8080/mcp'])
      expect(isLoopback(url), url).toBe(true);
    for (const url of ['http://example.com/mcp', 'http://10.0.0.1/mcp', 'not a url']) expect(isLoopback(url), url).toBe(false);
  });

  it('mints the valid token and each hostile kind as the contract says, every one redacted as a token', async () => {
    const issuer = await EmbeddedIssuer.start();
    try {
      const redactor = new Redactor();
      const resource = 'http://127.0.0.1:1/mcp';
      const tokens = await RunTokens.embedded(issuer, resource, ['mcp'], redactor);
      const valid = decodeJwt(tokens.valid);
      expect(valid).toMatchObject({ iss: issuer.issuer, aud: resource, scope: 'mcp', sub: 'mcp-conformance' });
      expect(decodeProtectedHeader(tokens.valid)).toMatchObject({ alg: 'RS256' });
      const now = Date.now() / 1000;
      const claims: Record<string, ReturnType<typeof decodeJwt>> = {};
      for (const kind of HOSTILE_KINDS) {
        const token = await tokens.hostile(kind);
        expect(redactor.redact(`x ${token} y`), kind).toBe(`x ${REDACTED_TOKEN} y`);
        if (kind !== 'malformed') claims[kind] = decodeJwt(token);
      }
      expect(() => decodeJwt(tokens.all()[1]!)).toThrow();
      expect(claims.expired!.exp!).toBeLessThan(now);
      expect(claims['not-yet-valid']!.nbf!).toBeGreaterThan(now);
      expect(claims['wrong-issuer']!.iss).not.toBe(issuer.issuer);
      expect(claims['wrong-audience']!.aud).not.toBe(resource);
      expect(claims['no-audience']!.aud).toBeUndefined();
      expect(claims['audience-list']!.aud).toEqual(expect.not.arrayContaining([resource]));
      expect(claims['wrong-signature']).toEqual(valid);
      expect(redactor.redact(tokens.valid)).toBe(REDACTED_TOKEN);
      const res = await fetch(`${issuer.issuer}/.well-known/oauth-authorization-server`);
      expect(await res.json()).toMatchObject({ issuer: issuer.issuer, jwks_uri: issuer.jwksUri });
    } finally {
      await issuer.stop();
    }
  });

  it('refuses, in one line, to send a token off loopback', async () => {
    const result = await runConformance({ url: 'http://example.invalid/mcp', authorization: { embedded: true } });
    expect(result.exitCode).toBe(2);
    expect(result.aborted).toMatch(/^--auth sends tokens only to loopback: --url http:\/\/example\.invalid\/mcp is not a loopback address/);
  });

  it('ends a run against a protected server without authorization with one line naming --auth and tokenCommand', async () => {
    const port = await freePort();
    const result = await runConformance({
      command: referenceCommand('--http', String(port), '--issuer', 'http://127.0.0.1:1'),
      url: `http://127.0.0.1:${port}/mcp`,
    });
    expect(result.exitCode).toBe(2);
    expect(result.aborted).toMatch(/^the server answered HTTP 401: .*--auth.*authorization\.tokenCommand/);
    expect(result.checks.every((c) => c.results.every((r) => r.verdict !== 'fail'))).toBe(true);
  });

  it('with a token command, runs the checks that need no key of its own and skips the others, saying what to do', async () => {
    const issuer = await EmbeddedIssuer.start();
    const dir = tempDir();
    try {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/mcp`;
      const file = join(dir, 'token');
      const token = await issuer.sign({ iss: issuer.issuer, aud: url, scope: 'mcp', exp: Math.floor(Date.now() / 1000) + 3600 });
      writeFileSync(file, `${token}\n`);
      const result = await runConformance({
        command: referenceCommand('--http', String(port), '--issuer', issuer.issuer),
        url,
        checks: ['authorization/*'],
        config: { authorization: { tokenCommand: `cat ${JSON.stringify(file)}` } },
      });
      expect(result.aborted).toBeUndefined();
      expect(result.authorization).toEqual({ source: 'command' });
      const verdict = (id: string) => result.checks.find((c) => c.id === id)!.results[0]!;
      expect(verdict('authorization/invalid-token').verdict).toBe('pass');
      expect(verdict('authorization/unauthenticated').verdict).toBe('pass');
      expect(verdict('authorization/insufficient-scope')).toMatchObject({ verdict: 'skip', reason: expect.stringMatching(/--auth/) });
      expect(JSON.stringify(result)).not.toContain(token);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await issuer.stop();
    }
  });

  it('never reports a token, even one the server echoes', async () => {
    const port = await freePort();
    const result = await runConformance({
      command: referenceCommand('--http', String(port), '--auth', '--break', 'authorization/token-not-echoed'),
      url: `http://127.0.0.1:${port}/mcp`,
      authorization: { embedded: true },
      checks: ['authorization/*'],
    });
    const echo = result.checks.find((c) => c.id === 'authorization/token-not-echoed')!;
    expect(echo.results[0]!.verdict).toBe('fail');
    const text = JSON.stringify(result);
    expect(text).toContain(REDACTED_TOKEN);
    // A JWT's header begins eyJ (base64url of '{"'); the malformed kind begins not-a-jwt.
    expect(text).not.toMatch(/eyJ[\w-]{10,}\.|not-a-jwt\./);
  });
});

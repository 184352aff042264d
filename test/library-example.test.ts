// The library API from a server project's own vitest suite (README: "Library API").
import { describe, expect, it } from 'vitest';
import { runConformance } from 'mcp-conformance';

describe('my MCP server', () => {
  it('conforms to the MCP specification', async () => {
    const run = await runConformance({
      command: 'node fixtures/servers/reference/server.js', // your server's command line
      checks: ['discover/*', 'tools-list/*'],
    });
    const failures = run.checks.flatMap((c) => c.results.filter((r) => r.verdict === 'fail').map((r) => `${c.id} [${r.subject}]`));
    expect(failures).toEqual([]);
    expect(run.exitCode).toBe(0);
  }, 60_000);
});

/**
 * server/discover: the first request of every modern run (server/discover.mdx).
 */
import { META, wireVersion } from '../harness/protocol.js';
import { walkList } from '../harness/walk.js';
import { defineCheck, describeAnswer, show } from './check.js';
import type { JsonObject } from '../model/json.js';

export const discoverResult = defineCheck({
  id: 'discover/result',
  title: 'server/discover answers with a valid DiscoverResult',
  level: 'MUST',
  spec: { revision: 'draft', page: 'server/discover', section: 'Response' },
  quote:
    'Servers MUST implement server/discover; the result carries supportedVersions, capabilities and resultType "complete" (DiscoverResult).',
  async run(t) {
    const d = t.ctx.discovery();
    const ex = d.exchange;
    if (!ex) return t.notObserved(d.problem ?? 'server/discover was not answered');
    if (!t.expect(!ex.error, { expected: 'a DiscoverResult', actual: describeAnswer(ex), wire: ex })) return;
    t.expectSchemaValid(ex, 'DiscoverResult');
    t.expect(ex.result?.resultType === 'complete', {
      expected: 'resultType "complete"',
      actual: `resultType ${show(ex.result?.resultType)}`,
      wire: ex,
    });
    // It answered a request declaring this version, so it supports it.
    const versions = ex.result?.supportedVersions;
    const spoken = wireVersion(t.ctx.revision);
    t.note('supportedVersions', versions);
    t.expect(Array.isArray(versions) && versions.includes(spoken), {
      expected: `supportedVersions listing ${show(spoken)}, the version the request declared and the server answered`,
      actual: `supportedVersions ${show(versions)}`,
      wire: ex,
    });
    // Its caching hints are judged by caching/ttl-ms and caching/cache-scope.
  },
});

export const discoverServerInfo = defineCheck({
  id: 'discover/server-info',
  title: 'server/discover names the server in _meta serverInfo',
  level: 'SHOULD',
  spec: { revision: 'draft', page: 'server/discover', section: 'DiscoverResult' },
  quote: "_meta['io.modelcontextprotocol/serverInfo']: Name and version of the server software. Servers SHOULD include this field.",
  async run(t) {
    const d = t.ctx.discovery();
    const ex = d.exchange;
    if (!ex?.result) return t.notObserved(d.problem ?? 'server/discover gave no result');
    const info = (ex.result._meta as JsonObject | undefined)?.[META.serverInfo] as JsonObject | undefined;
    t.note('serverInfo', info);
    t.expect(info !== undefined, {
      expected: `_meta["${META.serverInfo}"] with name and version`,
      actual: `_meta ${show(ex.result._meta)}`,
      wire: ex,
    });
  },
});

export const discoverToolsCapability = defineCheck({
  id: 'discover/tools-capability',
  title: 'a server that serves tools declares the tools capability',
  level: 'MUST',
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  quote: 'Servers that support tools MUST declare the tools capability.',
  legacy: { spec: { revision: '2025-11-25', page: 'server/tools', section: 'Capabilities' } },
  async run(t) {
    const d = t.ctx.discovery();
    const caps = d.capabilities;
    const where = t.ctx.era === 'legacy' ? 'the initialize result' : 'server/discover';
    if (!caps) return t.notObserved(d.problem ?? `${where} gave no capabilities`);
    if (caps.tools !== undefined) {
      t.expect(typeof caps.tools === 'object' && caps.tools !== null, {
        expected: 'capabilities.tools to be an object',
        actual: show(caps.tools),
        wire: d.exchange,
      });
      return;
    }
    // Not declared: the server must then not be serving tools.
    const walk = await walkList(t.session, 'tools/list', 'tools', { maxPages: 1 });
    const first = walk.pages[0]!;
    t.expect(!!first.error, {
      expected: `either capabilities.tools in ${where}, or tools/list not served`,
      actual: `tools undeclared, yet tools/list answered with ${Array.isArray(first.result?.tools) ? first.result.tools.length : 'a'} tool(s)`,
      wire: [d.exchange!, first],
    });
  },
});

export const discoverChecks = [discoverResult, discoverServerInfo, discoverToolsCapability];

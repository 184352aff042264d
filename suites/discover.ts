/**
 * server/discover: the first request of every modern run (server/discover.mdx).
 */
import { META, wireVersion } from '../harness/protocol.js';
import { walkList } from '../harness/walk.js';
import { defineCheck, describeAnswer, show } from './check.js';
import type { JsonObject } from '../model/json.js';

/**
 * The MUST is basic/versioning's "Servers MUST implement server/discover"
 * (the page itself states it above its first heading): an answer that is a
 * DiscoverResult of the schema. Its resultType is protocol/result-type's;
 * supportedVersions naming the version the request declared is described
 * ("Protocol versions the server supports"), not required in words, so it is
 * a note here, never a finding; its caching hints are caching/*'s.
 */
export const discoverResult = defineCheck({
  id: 'discover/result',
  title: 'server/discover answers with a valid DiscoverResult',
  level: 'MUST',
  spec: { revision: 'draft', page: 'basic/versioning', section: 'Protocol Version Negotiation' },
  quote: 'Servers MUST implement server/discover.',
  async run(t) {
    const d = t.ctx.discovery();
    const ex = d.exchange;
    if (!ex) return t.notObserved(d.problem ?? 'server/discover was not answered');
    if (!t.expect(!ex.error, { expected: 'a DiscoverResult', actual: describeAnswer(ex), wire: ex })) return;
    t.expectSchemaValid(ex, 'DiscoverResult');
    const versions = ex.result?.supportedVersions;
    const spoken = wireVersion(t.ctx.revision);
    t.note('supportedVersions', versions);
    if (Array.isArray(versions) && !versions.includes(spoken)) {
      t.note('supportedVersions omits the version it answered', spoken);
    }
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

/**
 * "Servers that support tools MUST declare the tools capability." A server
 * that declares no tools and answers tools/list with an empty list shows no
 * tool support (an empty list is what a server without tools may well
 * answer), so only listed tools make an undeclared capability a finding.
 */
export const discoverToolsCapability = defineCheck({
  id: 'discover/tools-capability',
  title: 'a server that serves tools declares the tools capability',
  level: 'MUST',
  spec: { revision: 'draft', page: 'server/tools', section: 'Capabilities' },
  quote: 'Servers that support tools MUST declare the tools capability',
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
    // Not declared: the server must then not be serving tools (an empty list serves none).
    const walk = await walkList(t.session, 'tools/list', 'tools', { maxPages: 1 });
    const first = walk.pages[0]!;
    const listed = Array.isArray(first.result?.tools) ? (first.result.tools as unknown[]).length : 0;
    t.note('tools/list without the capability', first.error ? `JSON-RPC error ${show(first.error.code)}` : `${listed} tool(s)`);
    t.expect(listed === 0, {
      expected: `either capabilities.tools in ${where}, or no tools served by tools/list`,
      actual: `tools undeclared, yet tools/list listed ${listed} tool(s)`,
      wire: [d.exchange!, first],
    });
  },
});

export const discoverChecks = [discoverResult, discoverServerInfo, discoverToolsCapability];

/**
 * Header mirroring (server/tools "x-mcp-header"): the annotations of every
 * listed tool are remembered, and a modern tools/call over HTTP carries the
 * annotated arguments as `Mcp-Param-*` headers. One mirror serves every
 * connection of a target: a tool's annotations do not vary per connection (a
 * server whose list does is judged by tools-list/stable-across-connections).
 */
import { findHeaderAnnotations, mirrorHeaders, type HeaderAnnotation } from './protocol.js';
import type { JsonObject } from '../model/json.js';

export class HeaderMirror {
  private readonly annotations = new Map<string, HeaderAnnotation[]>();

  /** Remember the annotations of the tools a tools/list result lists. */
  learn(result: JsonObject): void {
    if (!Array.isArray(result.tools)) return;
    for (const tool of result.tools as JsonObject[]) {
      if (typeof tool?.name !== 'string') continue;
      const found = findHeaderAnnotations(tool.inputSchema);
      if (found.length) this.annotations.set(tool.name, found);
    }
  }

  /** The `Mcp-Param-*` headers of a tools/call with these params (none for other methods). */
  headersFor(method: string, params: JsonObject | undefined): Record<string, string> {
    if (method !== 'tools/call' || typeof params?.name !== 'string') return {};
    const found = this.annotations.get(params.name);
    return found ? mirrorHeaders(found, params.arguments) : {};
  }
}

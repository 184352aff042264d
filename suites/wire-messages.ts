/**
 * Every message the server sent in the run, as the observers that judge
 * "every error response" or "every result" read them: parsed from the
 * connections' wire logs (bounded: the most recent frames of each), each
 * with the method of the request it answers when the request is in the log.
 */
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';
import type { Probe } from './check.js';

export interface InboundMessage {
  msg: JsonObject;
  frame: WireFrame;
  /** A response: the method of the request with its id on the same connection (undefined when not in the log). */
  method?: string;
  kind: 'result' | 'error' | 'notification' | 'request';
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every JSON-RPC message the server sent, over every connection of the run (cut frames left out). */
export function inboundMessages(t: Probe): InboundMessage[] {
  const out: InboundMessage[] = [];
  for (const s of t.ctx.allSessions()) {
    const methods = new Map<string, string>();
    for (const frame of s.frames()) {
      if (frame.truncated) continue;
      const msg = parse(frame.text);
      if (!isObject(msg)) continue;
      const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? `${typeof msg.id}:${msg.id}` : undefined;
      if (frame.dir === 'out') {
        if (id && typeof msg.method === 'string') methods.set(id, msg.method);
        continue;
      }
      if (msg.jsonrpc !== '2.0') continue;
      if ('method' in msg) out.push({ msg, frame, kind: 'id' in msg ? 'request' : 'notification' });
      else if ('error' in msg) out.push({ msg, frame, kind: 'error', method: id ? methods.get(id) : undefined });
      else if ('result' in msg) out.push({ msg, frame, kind: 'result', method: id ? methods.get(id) : undefined });
    }
  }
  return out;
}

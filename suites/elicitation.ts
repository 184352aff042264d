/**
 * Elicitation requests from the server (2025-11-25/client/elicitation
 * "Capabilities"): a server asks only in the modes the client declared
 * (`elicitation: {}` means form mode only; a request without `mode` is form
 * mode). The configured capability tool, when it needs elicitation, is
 * called on two fresh connections: one declaring form mode only, one URL
 * mode only (with the tool's other required capabilities).
 */
import type { Session } from '../harness/session.js';
import { defineCheck, describeAnswer, show } from './check.js';
import type { InputCapability } from '../model/config.js';
import type { JsonObject } from '../model/json.js';
import type { WireFrame } from '../model/wire.js';

type Mode = 'form' | 'url';

/** The modes an `elicitation` capability declares. */
export function declaredModes(elicitation: unknown): Mode[] {
  if (typeof elicitation !== 'object' || elicitation === null) return [];
  const e = elicitation as JsonObject;
  const modes: Mode[] = [];
  if (e.form !== undefined) modes.push('form');
  if (e.url !== undefined) modes.push('url');
  // "an empty capabilities object is equivalent to declaring support for form mode only"
  return modes.length ? modes : ['form'];
}

/** The mode of an elicitation request: `mode`, or form when absent. */
function modeOf(params: unknown): string {
  const mode = typeof params === 'object' && params !== null ? (params as JsonObject).mode : undefined;
  return mode === undefined ? 'form' : String(mode);
}

/** What the tool's other required capabilities declare (besides elicitation). */
const OTHER_CAPABILITIES: Record<Exclude<InputCapability, 'elicitation'>, JsonObject> = { sampling: {}, roots: { listChanged: true } };

export const supportedModes = defineCheck({
  id: 'elicitation/supported-modes',
  title: 'elicitation requests use only the modes the client declared (form only, URL only)',
  level: 'MUST',
  spec: { revision: '2025-11-25', page: 'client/elicitation', section: 'Capabilities' },
  quote: 'Servers MUST NOT send elicitation requests with modes that are not supported by the client.',
  async run(t) {
    const tool = t.ctx.config.capabilityTool;
    if (!tool?.requires.includes('elicitation')) {
      return t.notObserved(
        'no capabilityTool needing elicitation in the configuration file: the suite knows no call that makes the server elicit',
      );
    }
    const others: JsonObject = {};
    for (const c of tool.requires) if (c !== 'elicitation') others[c] = OTHER_CAPABILITIES[c];
    let asked = 0;
    for (const elicitation of [{ form: {} }, { url: {} }]) {
      const declared = { ...others, elicitation };
      const s: Session = await t.ctx.openSession({ capabilities: declared });
      const seen: Array<{ params: unknown; frame: WireFrame }> = [];
      const off = s.onMessage((m, frame) => {
        if (m.method === 'elicitation/create' && 'id' in m) seen.push({ params: m.params, frame });
      });
      let answer;
      try {
        answer = await s.request('tools/call', { name: tool.name, arguments: tool.arguments ?? {} });
      } finally {
        off();
      }
      const modes = declaredModes(elicitation);
      t.note(
        `${tool.name} declaring elicitation ${show(elicitation)}`,
        `${describeAnswer(answer)}; elicitation modes asked: ${seen.map((x) => modeOf(x.params)).join(', ') || 'none'}`,
      );
      asked += seen.length;
      for (const x of seen) {
        const mode = modeOf(x.params);
        t.expect((modes as string[]).includes(mode), {
          expected: `elicitation/create in a mode the connection declared (${modes.join(', ')}: capabilities ${show(declared)})`,
          actual: `an elicitation/create in ${mode} mode`,
          wire: [...answer.frames, x.frame].sort((a, b) => a.seq - b.seq),
        });
      }
    }
    t.note('elicitation requests judged', asked);
  },
});

export const elicitationChecks = [supportedModes];

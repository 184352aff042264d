/**
 * Elicitation requests from the server (2025-11-25/client/elicitation
 * "Capabilities"): a server asks only in the modes the client declared
 * (`elicitation: {}` means form mode only; a request without `mode` is form
 * mode). The configured capability tool, when it needs elicitation, is
 * called on two fresh connections: one declaring form mode only, one URL
 * mode only (with the tool's other required capabilities). The completion
 * notifications (notifications/elicitation/complete) are judged over the
 * whole run: each names an elicitation the server started on its connection
 * (complete-id), and on HTTP none reaches a session that was not asked
 * (complete-to-initiator). The parameters of every elicitation/create request
 * are parts of protocol/messages-schema-valid (ELICITATION_REQUEST_PARTS).
 */
import type { Session } from '../harness/session.js';
import { defineCheck, describeAnswer, frameKey, show, type Probe, type Rule } from './check.js';
import { inboundMessages } from './wire-messages.js';
import { whyNotCallableAsWritten } from './safety.js';
import { SHOWN } from './violations.js';
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
  unlockedBy: ['capabilityTool'],
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
    const excluded = whyNotCallableAsWritten(t.ctx, tool.name);
    if (excluded) return t.notObserved(`capabilityTool ${tool.name} ${excluded}`);
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

const ELICITATION = { revision: '2025-11-25', page: 'client/elicitation' } as const;

/**
 * The parameters an elicitation/create request must carry (2025-11-25
 * client/elicitation "Elicitation Requests", "Form Mode Elicitation
 * Requests", "URL Mode Elicitation Requests"). The schema states the same
 * shape (ElicitRequestFormParams, ElicitRequestURLParams), so these are parts
 * of protocol/messages-schema-valid, which sets such a request's frame aside
 * from its schema findings: one defect, one finding. Legacy era only (a modern
 * server sends no requests).
 */
export const ELICITATION_REQUEST_PARTS: Record<string, Rule> = {
  'elicitation-message': {
    level: 'MUST',
    spec: { ...ELICITATION, section: 'Elicitation Requests' },
    quote: 'All elicitation requests MUST include the following parameters:',
  },
  'elicitation-form': {
    level: 'MUST',
    spec: { ...ELICITATION, section: 'Form Mode Elicitation Requests' },
    quote:
      'Form mode elicitation requests MUST either specify mode: "form" or omit the mode field, and include these additional parameters:',
  },
  'elicitation-url': {
    level: 'MUST',
    spec: { ...ELICITATION, section: 'URL Mode Elicitation Requests' },
    quote: 'URL mode elicitation requests MUST specify mode: "url", a message, and include these additional parameters:',
  },
  'elicitation-url-valid': {
    level: 'MUST',
    spec: { ...ELICITATION, section: 'URL Mode Elicitation Requests' },
    quote: 'The url parameter MUST contain a valid URL.',
  },
};

/** Whether WHATWG URL parsing accepts `text` (what fails it is no valid URL by any reading). */
function parsesAsUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first parameter rule an elicitation/create request's params break, or
 * none. A mode other than form or url, or params that are no object, are the
 * schema's alone (and a mode the client did not declare is supported-modes').
 */
export function elicitationRequestFault(params: unknown): { part: string; expected: string; actual: string } | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const p = params as JsonObject;
  if (typeof p.message !== 'string') {
    return { part: 'elicitation-message', expected: 'params.message, a string', actual: `message ${show(p.message, 100)}` };
  }
  if (p.mode === undefined || p.mode === 'form') {
    const ok = typeof p.requestedSchema === 'object' && p.requestedSchema !== null && !Array.isArray(p.requestedSchema);
    if (!ok) {
      return {
        part: 'elicitation-form',
        expected: 'a form mode request (mode "form" or no mode) carrying requestedSchema, an object',
        actual: `requestedSchema ${show(p.requestedSchema, 100)}`,
      };
    }
    return undefined;
  }
  if (p.mode !== 'url') return undefined;
  if (typeof p.url !== 'string' || typeof p.elicitationId !== 'string') {
    return {
      part: 'elicitation-url',
      expected: 'a URL mode request carrying url and elicitationId, both strings',
      actual: `url ${show(p.url, 100)}, elicitationId ${show(p.elicitationId, 100)}`,
    };
  }
  if (!parsesAsUrl(p.url))
    return { part: 'elicitation-url-valid', expected: 'a url that parses as a URL', actual: `url ${show(p.url, 200)}` };
  return undefined;
}

/**
 * For protocol/messages-schema-valid: every elicitation/create request the
 * server sent in the run, judged on the parts above; returns the frames found
 * at fault, which the check's schema findings then leave aside (the other
 * checks still judge the rest of such a request, e.g. its id).
 */
export function judgeElicitationRequests(t: Probe): Set<string> {
  const judgedHere = new Set<string>();
  if (t.ctx.era !== 'legacy') return judgedHere;
  let shown = 0;
  let judged = 0;
  for (const m of inboundMessages(t)) {
    if (m.kind !== 'request' || m.msg.method !== 'elicitation/create') continue;
    judged++;
    const fault = elicitationRequestFault(m.msg.params);
    if (!fault) continue;
    judgedHere.add(frameKey(m.frame));
    if (shown++ >= SHOWN) continue;
    t.expect(false, {
      part: fault.part,
      expected: fault.expected,
      actual: `an elicitation/create request with ${fault.actual}`,
      wire: [m.frame],
    });
  }
  t.note('elicitation requests judged', judged);
  return judgedHere;
}

/** The elicitation ids a server message establishes: a URL mode elicitation/create's, or those of a -32042 error's elicitations. */
function establishedIds(msg: JsonObject): string[] {
  if (msg.method === 'elicitation/create' && 'id' in msg) {
    const id = (msg.params as JsonObject | undefined)?.elicitationId;
    return typeof id === 'string' ? [id] : [];
  }
  const error = msg.error as JsonObject | undefined;
  if (typeof error !== 'object' || error === null || error.code !== URL_ELICITATION_REQUIRED) return [];
  const list = (error.data as JsonObject | undefined)?.elicitations;
  if (!Array.isArray(list)) return [];
  return list.flatMap((e) => (typeof (e as JsonObject)?.elicitationId === 'string' ? [(e as JsonObject).elicitationId as string] : []));
}

/** URLElicitationRequiredError's code (2025-11-25 client/elicitation "URL Elicitation Required Error"). */
const URL_ELICITATION_REQUIRED = -32042;

const parsed = (text: string): JsonObject | undefined => {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
};

/** A completion notification as the connection it came on saw it. */
interface Completion {
  frame: WireFrame;
  elicitationId: unknown;
  /** An earlier message of the server on this connection established the id. */
  known: boolean;
  /** The connection's log holds every frame up to this one (none lost to its bound, none cut short). */
  whole: boolean;
  /** Ids the server established on the other connections of the run. */
  elsewhere: ReadonlySet<string>;
}

/** Every notifications/elicitation/complete of the run, each with what its connection had established before it. */
function completions(t: Probe): Completion[] {
  const perSession = t.ctx.allSessions().map((s) => {
    const frames = s.frames();
    let whole = (frames[0]?.seq ?? 1) === 1;
    const known = new Set<string>();
    const seen: Array<Omit<Completion, 'elsewhere'>> = [];
    for (const frame of frames) {
      if (frame.dir !== 'in') continue;
      const msg = frame.truncated ? undefined : parsed(frame.text);
      whole &&= !frame.truncated;
      if (!msg) continue;
      if (msg.method === 'notifications/elicitation/complete' && !('id' in msg)) {
        const elicitationId = (msg.params as JsonObject | undefined)?.elicitationId;
        seen.push({ frame, elicitationId, known: typeof elicitationId === 'string' && known.has(elicitationId), whole });
      } else for (const id of establishedIds(msg)) known.add(id);
    }
    return { known, seen };
  });
  return perSession.flatMap((mine, i) => {
    const elsewhere = new Set(perSession.flatMap((other, j) => (j === i ? [] : [...other.known])));
    return mine.seen.map((c) => ({ ...c, elsewhere }));
  });
}

const NO_COMPLETION =
  'the server sent no notifications/elicitation/complete in the run: configure capabilityTool with a tool that makes the server elicit in URL mode (the server MAY then send the notification)';

/**
 * Judged over every connection of the run, frame by frame: a completion
 * notification must name an id an earlier message of the server established
 * on that connection. When the connection's log lost frames (its bound, or a
 * frame cut short), an id it does not know is not judged: the message that
 * established it may be the lost one. An id another connection established is
 * complete-to-initiator's. The schema gives the session no definition to
 * validate this notification against beyond JSON-RPC, so its elicitationId is
 * this check's alone.
 */
export const completeId = defineCheck({
  id: 'elicitation/complete-id',
  title: 'notifications/elicitation/complete names the elicitationId of an elicitation the server started',
  level: 'MUST',
  spec: { ...ELICITATION, section: 'Completion Notifications for URL Mode Elicitation' },
  quote: 'Servers sending notifications: … MUST include the elicitationId established in the original elicitation/create request.',
  observer: true,
  async run(t) {
    const all = completions(t);
    t.note('completion notifications', all.length);
    if (all.length === 0) t.notObserved(NO_COMPLETION);
    for (const c of all) {
      const id = c.elicitationId;
      if (typeof id === 'string' && (c.known || !c.whole || c.elsewhere.has(id))) continue;
      t.expect(false, {
        expected: 'the elicitationId of an elicitation/create (or a -32042 error) the server sent earlier on this connection',
        actual: `notifications/elicitation/complete with elicitationId ${show(id, 100)}, which no earlier message of the server established`,
        wire: [c.frame],
      });
    }
  },
});

/**
 * HTTP only: on stdio a connection is its own server process, which knows no
 * other connection's elicitations. A completion notification for an id that
 * another connection (another MCP session) of the run established, and this
 * one did not, went to a client that did not initiate the elicitation.
 */
export const completeToInitiator = defineCheck({
  id: 'elicitation/complete-to-initiator',
  title: 'notifications/elicitation/complete goes only to the client whose connection the elicitation was started on',
  level: 'MUST',
  spec: { ...ELICITATION, section: 'Completion Notifications for URL Mode Elicitation' },
  quote: 'Servers sending notifications: … MUST only send the notification to the client that initiated the elicitation request.',
  transports: ['http'],
  observer: true,
  async run(t) {
    const all = completions(t);
    t.note('completion notifications', all.length);
    if (all.length === 0) t.notObserved(NO_COMPLETION);
    for (const c of all) {
      const id = c.elicitationId;
      if (typeof id !== 'string' || c.known || !c.whole || !c.elsewhere.has(id)) continue;
      t.expect(false, {
        expected: 'a completion notification only on the connection (MCP session) whose elicitation it names',
        actual: `notifications/elicitation/complete for ${show(id, 100)}, an elicitation the server started on another connection of the run, came on this one`,
        wire: [c.frame],
      });
    }
  },
});

export const elicitationChecks = [supportedModes, completeId, completeToInitiator];

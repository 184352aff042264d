/**
 * The events of a Server-Sent Events body as they were written, fields and
 * all (the WHATWG event-stream format): what the transport's parser leaves
 * out of the messages it delivers — the event ID, the retry field, an event
 * whose data is empty — for the checks of the legacy era's resumable streams.
 */

/** One event block: the fields it carried (undefined: the field was absent), and its lines as sent. */
export interface SseEvent {
  id?: string;
  event?: string;
  /** The data lines joined with a line feed. */
  data?: string;
  retry?: string;
  text: string;
}

/** The event blocks of an SSE body, in order; a block of comments only is left out. */
export function sseEvents(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  let current: SseEvent = { text: '' };
  let fields = 0;
  const flush = () => {
    if (fields > 0) out.push(current);
    current = { text: '' };
    fields = 0;
  };
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === '') {
      flush();
      continue;
    }
    current.text += current.text === '' ? line : `\n${line}`;
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    fields++;
    if (name === 'data') current.data = current.data === undefined ? value : `${current.data}\n${value}`;
    else if (name === 'id' || name === 'event' || name === 'retry') current[name] = value;
  }
  flush();
  return out;
}

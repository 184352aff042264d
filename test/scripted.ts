/**
 * A Session whose server side is a function of each message the suite sends:
 * for unit tests of harness pieces that talk to a server.
 */
import { Redactor } from '../harness/redact.js';
import { ProtocolSchema } from '../harness/schema.js';
import { Session } from '../harness/session.js';
import type { SendInfo, Transport, TransportSink } from '../harness/transport.js';

export type Answer = (msg: Record<string, any>, reply: (message: unknown) => void, transport: ScriptedTransport) => void;

export class ScriptedTransport implements Transport {
  readonly kind = 'stdio' as const;
  sink!: TransportSink;
  readonly sent: Array<Record<string, any>> = [];
  constructor(private readonly answer: Answer) {}
  async start(sink: TransportSink) {
    this.sink = sink;
  }
  async send(text: string, _info: SendInfo) {
    const msg = JSON.parse(text) as Record<string, any>;
    this.sent.push(msg);
    queueMicrotask(() => this.answer(msg, (m) => this.sink.message(JSON.stringify(m)), this));
    return {};
  }
  async close() {}
}

export const schema = ProtocolSchema.load('2026-07-28');

export async function scriptedSession(answer: Answer, timeoutMs = 2000) {
  const transport = new ScriptedTransport(answer);
  const session = new Session(transport, {
    connection: 1,
    revision: '2026-07-28',
    redactor: new Redactor(),
    schema,
    requestTimeoutMs: timeoutMs,
    clock: () => 0,
  });
  await session.start();
  return { session, transport };
}

/**
 * stdio transport: one server process per connection, one JSON-RPC message per
 * line in each direction (basic/transports/stdio).
 */
import { LineSplitter } from './lines.js';
import { ServerProcess, type LaunchOptions, type StopLedger, type StopOutcome } from './process.js';
import type { SendInfo, SendOutcome, Transport, TransportSink } from './transport.js';

export interface StdioOptions extends LaunchOptions {
  command: string;
  maxMessageBytes: number;
  /** Grace period of each shutdown step. */
  shutdownGraceMs: number;
  /** The run's record of shutdown steps its servers ignore (not waited out twice). */
  stops?: StopLedger;
  /** A process launched ahead for this connection (a warm spare, never spoken to), instead of launching one. */
  launched?: Promise<ServerProcess>;
}

/** How long after its exit a process's stdout may take to deliver its last bytes. */
const STDOUT_DRAIN_MS = 500;

export class StdioTransport implements Transport {
  readonly kind = 'stdio' as const;
  process: ServerProcess | undefined;
  shutdown: StopOutcome | undefined;
  /** Close with every shutdown step waited out, whatever the run has seen (the check that judges the shutdown). */
  fullStop = false;

  constructor(private readonly opts: StdioOptions) {}

  async start(sink: TransportSink): Promise<void> {
    const proc = await (this.opts.launched ?? ServerProcess.launch(this.opts.command, this.opts));
    this.process = proc;
    const splitter = new LineSplitter(
      this.opts.maxMessageBytes,
      (line) => {
        if (line.trim() !== '') sink.message(line);
      },
      (head, bytes) =>
        sink.violation(
          'oversized-message',
          `a stdout line exceeded the maximum message size (${this.opts.maxMessageBytes} bytes; ${bytes} bytes so far) and was dropped; it begins: ${this.opts.redactor.redact(head.slice(0, 200), { clipped: 'end' })}`,
          head,
        ),
      (line) =>
        sink.violation('not-utf8', 'a stdout line is not well-formed UTF-8 (read with replacement characters)', line.slice(0, 2048)),
    );
    proc.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
    proc.stdout.on('end', () => splitter.end());
    // Everything the process wrote before it exited is read before the connection counts as
    // closed (its last answer can trail the exit event); bounded, as a leftover process may
    // hold stdout open until the sweep that follows the exit ends it.
    const drained = new Promise<void>((resolve) => {
      for (const event of ['end', 'close', 'error']) proc.stdout.once(event, () => resolve());
    });
    void proc.exited.then(async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, STDOUT_DRAIN_MS)))]);
      clearTimeout(timer);
      const tail = proc.stderrTail(5);
      sink.closed(`server process ${proc.describeExit()}${tail ? `; stderr ends: ${tail}` : ''}`);
    });
  }

  async send(text: string, _info: SendInfo): Promise<SendOutcome> {
    const proc = this.process;
    if (!proc || !proc.running || proc.stdin.writableEnded) return {};
    await new Promise<void>((resolve) => {
      proc.stdin.write(`${text}\n`, () => resolve());
    });
    return {};
  }

  endInput(): void {
    const stdin = this.process?.stdin;
    if (stdin && !stdin.writableEnded) stdin.end();
  }

  stderrTail(lines?: number): string {
    return this.process?.stderrTail(lines) ?? '';
  }

  async close(): Promise<void> {
    const outcome = await this.process?.stop(this.opts.shutdownGraceMs, this.opts.stops, this.fullStop);
    // The first close tells how the server ended; a later one finds it gone.
    this.shutdown ??= outcome;
  }
}

/**
 * The server under test, as the user named it: a command (stdio), a URL
 * (Streamable HTTP), or both (launch the command, wait until the URL answers,
 * test it, stop it). `connect()` opens a fresh connection: a new process on
 * stdio, a new TCP connection on HTTP. Once the run knows the server's era
 * (`useEra`), every fresh legacy connection opens with the `initialize`
 * handshake.
 */
import net from 'node:net';
import { modernProfile, type Era, type EraProfile } from './era.js';
import { TransportError } from './errors.js';
import { legacyClientProfile, legacyHandshake, type Handshake } from './legacy.js';
import { ToolLedger, type CallGuard } from './call-guard.js';
import { HeaderMirror } from './header-mirror.js';
import { HttpTransport } from './http.js';
import { ServerProcess, StopLedger } from './process.js';
import { Redactor } from './redact.js';
import type { ProtocolSchema } from './schema.js';
import { Session } from './session.js';
import { StdioTransport } from './stdio.js';
import { SparePool } from './spares.js';
import { shellCommandsRun } from './command.js';
import { TimeoutLedger } from './timeouts.js';
import type { TransportKind } from '../model/wire.js';
import type { JsonObject } from '../model/json.js';

export interface TargetOptions {
  /** Command line of the server (stdio, or the HTTP server to launch). */
  command?: string;
  /** Streamable HTTP endpoint. */
  url?: string;
  /** HTTP headers sent on every request (secrets). */
  headers: Record<string, string>;
  /** Environment given to the launched server (values are secrets). */
  env: Record<string, string>;
  cwd?: string;
  revision: string;
  schema: ProtocolSchema;
  redactor: Redactor;
  requestTimeoutMs: number;
  maxMessageBytes: number;
  /** How long a launched HTTP server may take to accept connections. */
  startupTimeoutMs: number;
  shutdownGraceMs: number;
  clock: () => number;
  runSignal?: AbortSignal;
  /** The tool-call gate every connection puts each tools/call to (harness/call-guard.ts). */
  callGuard?: CallGuard;
  /** stdio: server processes kept launched ahead of the connections that will take them (default 0: none). */
  spares?: number;
}

/** Methods that cannot change what a server reads at start-up: any other request moves the spares' epoch on. */
const STATELESS_METHODS = new Set([
  'server/discover',
  'initialize',
  'ping',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'prompts/get',
  'resources/read',
  'completion/complete',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'subscriptions/listen',
]);

export class Target {
  readonly kind: TransportKind;
  private readonly sessions = new Set<Session>();
  private httpServer: ServerProcess | undefined;
  private connections = 0;
  private era: { era: Era; schema: ProtocolSchema };
  private readonly handshakes = new WeakMap<Session, Handshake>();
  /** One x-mcp-header mirror for every connection: a tool listed on one is called the same way on all. */
  private readonly headerMirror = new HeaderMirror();
  /** One record of the listed tools for every connection: what the tool-call gate knows of a tool. */
  private readonly toolLedger = new ToolLedger();
  /** One record of silent tools and methods for every connection: at most one full timeout each. */
  readonly timeouts: TimeoutLedger;
  /** One record of the shutdown steps the server ignores, for every connection: each waited out once. */
  private readonly stops = new StopLedger();
  /** Requests sent that may change server state outside a process (see STATELESS_METHODS). */
  private stateCalls = 0;
  /** stdio: warm spares (see harness/spares.ts). */
  private spares: SparePool | undefined;

  private constructor(readonly opts: TargetOptions) {
    this.kind = opts.url ? 'http' : 'stdio';
    this.era = { era: 'modern', schema: opts.schema };
    this.timeouts = new TimeoutLedger(opts.requestTimeoutMs);
  }

  /** Speak `era` (validated against `schema`) on every connection opened from now on. */
  useEra(era: Era, schema: ProtocolSchema): void {
    this.era = { era, schema };
  }

  get currentEra(): Era {
    return this.era.era;
  }

  /** The schema of the era in use. */
  get schema(): ProtocolSchema {
    return this.era.schema;
  }

  /** The legacy handshake a connection opened with (legacy era). */
  handshakeOf(session: Session): Handshake | undefined {
    return this.handshakes.get(session);
  }

  /** Record a handshake done outside `connect()` (the era detection's fallback). */
  recordHandshake(session: Session, hs: Handshake): void {
    this.handshakes.set(session, hs);
  }

  /** Validate the target; for command + URL, launch the server and wait until it accepts connections. */
  static async open(opts: TargetOptions): Promise<Target> {
    if (!opts.command && !opts.url) throw new Error('nothing to test: give --server "<command>" or --url <url>');
    const target = new Target(opts);
    if (opts.url) {
      let url: URL;
      try {
        url = new URL(opts.url);
      } catch {
        throw new Error(`--url is not a valid URL: ${opts.url}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--url must be http or https: ${opts.url}`);
      if (opts.command) {
        target.httpServer = await ServerProcess.launch(opts.command, { env: opts.env, cwd: opts.cwd, redactor: opts.redactor });
        await waitForPort(url, target.httpServer, opts.startupTimeoutMs, opts.runSignal);
      }
    }
    return target;
  }

  /** The launched process's stderr tail (stdio: of the given session's process). */
  stderrTail(session?: Session, lines = 40): string {
    if (this.httpServer) return this.httpServer.stderrTail(lines);
    const t = session?.transport;
    return t instanceof StdioTransport ? t.stderrTail(lines) : '';
  }

  /**
   * Open a fresh connection (stdio: a new server process). In the legacy era
   * it opens with the handshake unless `handshake: false` (for probes of the
   * handshake itself); a failed handshake closes it and throws.
   */
  async connect(opts: { handshake?: boolean; capabilities?: JsonObject } = {}): Promise<Session> {
    const o = this.opts;
    const connection = ++this.connections;
    const transport = o.url
      ? new HttpTransport({ url: o.url, headers: o.headers, maxMessageBytes: o.maxMessageBytes })
      : new StdioTransport({
          command: o.command!,
          env: o.env,
          cwd: o.cwd,
          redactor: o.redactor,
          maxMessageBytes: o.maxMessageBytes,
          shutdownGraceMs: o.shutdownGraceMs,
          stops: this.stops,
          ...this.spareFor(),
        });
    const era = this.era;
    const profile: EraProfile = era.era === 'legacy' ? legacyClientProfile(era.schema) : modernProfile(o.revision, era.schema);
    const session = new Session(transport, {
      connection,
      revision: o.revision,
      redactor: o.redactor,
      schema: era.schema,
      requestTimeoutMs: o.requestTimeoutMs,
      clock: o.clock,
      runSignal: o.runSignal,
      profile,
      headerMirror: this.headerMirror,
      timeouts: this.timeouts,
      toolLedger: this.toolLedger,
      ...(o.callGuard ? { callGuard: o.callGuard } : {}),
      onRequest: (method) => {
        if (!STATELESS_METHODS.has(method)) this.stateCalls++;
      },
    });
    await session.start();
    // Spares are launched once a connection has started, so they never slow the run's opening.
    this.spares?.fill();
    this.sessions.add(session);
    if (era.era === 'legacy' && opts.handshake !== false) {
      let hs: Handshake;
      try {
        hs = await legacyHandshake(session, era.schema, opts.capabilities ? { capabilities: opts.capabilities } : {});
      } catch (err) {
        await this.disconnect(session);
        throw err;
      }
      this.handshakes.set(session, hs);
      if (hs.problem) {
        await this.disconnect(session);
        throw new TransportError(`the initialize handshake failed on connection ${connection}: ${hs.problem}`);
      }
    }
    return session;
  }

  /** stdio: a warm spare for the next connection, when one is ready (the pool is made on first use). */
  private spareFor(): { launched?: ReturnType<SparePool['take']> } {
    const o = this.opts;
    const size = o.spares ?? 0;
    if (!o.command || size <= 0) return {};
    this.spares ??= new SparePool({
      command: o.command,
      launch: { env: o.env, cwd: o.cwd, redactor: o.redactor },
      size,
      epoch: () => this.stateCalls + shellCommandsRun(),
    });
    const launched = this.spares.take();
    return launched ? { launched } : {};
  }

  async disconnect(session: Session): Promise<void> {
    this.sessions.delete(session);
    await session.close();
  }

  /** Close every connection and stop every process this target started. */
  async close(): Promise<void> {
    await Promise.all([...[...this.sessions].map((s) => s.close()), this.spares?.close()]);
    this.sessions.clear();
    await this.httpServer?.terminate(this.opts.shutdownGraceMs);
  }
}

/**
 * Wait until the launched server accepts TCP connections on the URL's port,
 * or exits, or the startup deadline passes. Each attempt is a real connect;
 * a refused attempt is retried when the previous one has failed.
 */
async function waitForPort(url: URL, proc: ServerProcess, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const deadline = Date.now() + timeoutMs;
  let attempt = 0;
  for (;;) {
    if (!proc.running) {
      const tail = proc.stderrTail(3);
      throw new Error(`server ${proc.describeExit()} before accepting connections on ${url.host}${tail ? `: ${lastLine(tail)}` : ''}`);
    }
    if (signal?.aborted) throw new Error('interrupted while waiting for the server to start');
    if (Date.now() > deadline) throw new Error(`server did not accept connections on ${url.host} within ${timeoutMs / 1000} s`);
    if (await tryConnect(host, port, Math.min(1000, deadline - Date.now()), proc)) return;
    attempt++;
    // Back off between refused attempts, bounded by the process exiting.
    await Promise.race([new Promise((r) => setTimeout(r, Math.min(25 * attempt, 200))), proc.exited]);
  }
}

function tryConnect(host: string, port: number, timeoutMs: number, proc: ServerProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(Math.max(timeoutMs, 1), () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    void proc.exited.then(() => done(false));
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

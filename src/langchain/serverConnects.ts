/**
 * How a toolkit's servers join it: the first connect of each, where a required server's failure
 * rejects `connect()` and an optional one's is recorded and retried in the background; the
 * servers still waiting; and the status of each, which its finished calls keep true.
 */
import type { McpToolkitConfig } from "../config/index.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { EventHub } from "../eventHub.js";
import type { ServerStatus } from "../events.js";
import type { Connection } from "../mcp/session/Connection.js";
import { backgroundDelay, BackgroundConnects } from "./backgroundConnect.js";
import { watchCalls } from "./callHealth.js";
import { ServerStatusBoard } from "./serverStatus.js";

export interface ServerConnectsParts {
  config: McpToolkitConfig;
  connections: ReadonlyMap<string, Connection>;
  events: EventHub;
  /** The copy of an error that leaves the library: redacted as everywhere else. */
  redact: (error: McpToolError) => McpToolError;
  /**
   * Builds the tools of servers that just connected and tells of them; `late` for a server that
   * joins after `connect()` returned, whose tools are a change of `getTools()`.
   */
  join: (servers: string[], late: boolean) => void;
  /** The exposed names of the tools a server offers now. */
  toolsOf: (server: string) => string[];
}

/** One connect attempt's end: the error, or how long the connect took. */
type Attempt = { error: McpToolError } | { error?: undefined; connectMs: number };

export class ServerConnects {
  /** Servers whose last connect failed, waiting to be tried again. */
  readonly pending = new Set<string>();
  /** Servers whose last connect failed and that the background stopped trying: `refresh()` alone tries them. */
  private readonly stopped = new Set<string>();
  private readonly board: ServerStatusBoard;
  private readonly background: BackgroundConnects;
  private closed = false;

  constructor(private readonly parts: ServerConnectsParts) {
    this.board = new ServerStatusBoard(parts.config, (event) => parts.events.emit(event), parts.toolsOf);
    this.background = new BackgroundConnects(
      (server) => this.retry(server),
      (server, failures) => backgroundDelay(parts.config.servers[server]?.reconnect, failures, this.board.lastReason(server)),
      { onWait: (server, at) => this.board.nextAttempt(server, at), onGiveUp: (server, failures) => this.gaveUp(server, failures) },
    );
    watchCalls(parts.events, (server, error) => this.board.callEnded(server, error));
  }

  /**
   * Connects every server once. Rejects with the classified, redacted error of the first required
   * server (in configuration order) that failed; an optional one that failed is left out and
   * tried again in the background.
   */
  async connectAll(servers: string[]): Promise<void> {
    const attempts = await Promise.all(servers.map((server) => this.attempt(server)));
    const failed = servers.findIndex((server, i) => attempts[i]!.error && this.board.required(server));
    if (failed >= 0) throw this.parts.redact(attempts[failed]!.error!);
    this.joined(
      servers.flatMap((server, i) => {
        const attempt = attempts[i]!;
        return attempt.error ? [] : [{ server, connectMs: attempt.connectMs }];
      }),
      false,
    );
    for (const server of servers) if (this.pending.has(server)) this.background.start(server);
  }

  /** Tries every waiting server now, and those the background stopped trying (each joined with an attempt already under way). */
  async refresh(): Promise<void> {
    const failed = [...this.pending, ...this.stopped];
    if (failed.length > 0 && !this.closed) await this.background.now(failed);
  }

  /** A server's connection was re-established after it closed. */
  reconnected(server: string): void {
    this.board.reconnected(server, this.parts.connections.get(server)?.protocolVersion);
  }

  status(): Record<string, ServerStatus> {
    return this.board.snapshot();
  }

  /**
   * Stops the background attempts: their waits end at once, and one under way ends when the
   * caller closes the connections, which it must do meanwhile (this resolves only then).
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.background.close();
    this.board.closeAll();
  }

  /** One background (or `refresh()`) attempt: true once the server is connected and its tools joined. */
  private async retry(server: string): Promise<boolean> {
    if (!this.pending.has(server) && !this.stopped.has(server)) return true;
    const attempt = await this.attempt(server);
    if (attempt.error || this.closed) return !attempt.error;
    this.joined([{ server, connectMs: attempt.connectMs }], true);
    return true;
  }

  private async attempt(server: string): Promise<Attempt> {
    const started = performance.now();
    try {
      const connection = this.parts.connections.get(server)!;
      // Started from a catalog: its tools are known, and its first call connects it.
      if (!connection.fromCatalog) await connection.lease();
      this.pending.delete(server);
      this.stopped.delete(server);
      return { connectMs: performance.now() - started };
    } catch (thrown) {
      const error = normalize(thrown, { serverName: server });
      if (!this.stopped.has(server)) this.pending.add(server);
      // After close() a failure is the close itself: nothing to report.
      if (!this.closed && this.board.failed(server, this.parts.redact(error))) this.parts.events.emit({ type: "error", serverName: server, error });
      return { error };
    }
  }

  /** The background stopped trying `server`: it no longer waits (`pendingServers`), and its status says so. */
  private gaveUp(server: string, failures: number): void {
    if (this.closed || !this.pending.delete(server)) return;
    this.stopped.add(server);
    this.board.gaveUp(server, failures);
  }

  /** Builds the tools of servers that connected, then reports them connected (their tools listed). */
  private joined(connected: { server: string; connectMs: number }[], late: boolean): void {
    if (connected.length === 0) return;
    this.parts.join(
      connected.map((c) => c.server),
      late,
    );
    for (const { server, connectMs } of connected) {
      this.board.connected(server, { protocolVersion: this.parts.connections.get(server)?.protocolVersion, connectMs });
    }
  }
}

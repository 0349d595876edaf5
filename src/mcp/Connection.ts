import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_RECONNECT, type ReconnectOptions, type ServerConfig } from "../config/index.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize, type ExitInfo } from "../errors/normalize.js";
import type { McpEventListener } from "../events.js";
import { raceAbort, sleep } from "../policy/abort.js";
import { sseTransport, StderrTail, stdioTransport, streamableTransport, type TransportProbe } from "./transports.js";

/** How recent a transport error must be to be reported as the cause of a close. */
const CLOSE_CAUSE_WINDOW_MS = 1000;

/** A live client and the generation it belongs to; a call keeps both to tell what happened during it. */
export interface Lease {
  client: Client;
  generation: number;
  /** Did the connection hold a session id when the call started? */
  hadSession: boolean;
}

/**
 * One server's connection. Tools ask it for the live client at call time, so a reconnect
 * (new process, new session) is invisible to them. Reconnection is lazy: the next call
 * after a close builds a fresh transport, with backoff after failures.
 */
export class Connection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Lease> | undefined;
  private generation = 0;
  private live = false;
  private closed = false;
  private failures = 0;
  private nextAttemptAt = 0;
  private readonly probe: TransportProbe = {};
  private readonly stderr: StderrTail;
  private readonly reconnect: Required<ReconnectOptions>;
  private readonly inflight = new Map<number, AbortController>();
  private pendingTransport: Transport | undefined;
  private readonly connectTimeoutMs: number;
  /** The tools the server listed at the last (re)connect. */
  tools: Tool[] = [];
  /** How the last connection ended, for error messages. */
  lastExit: ExitInfo | undefined;

  constructor(
    readonly name: string,
    private readonly config: ServerConfig,
    private readonly clientInfo: { name: string; version: string },
    /** Receives `reconnect` events; must not throw (an EventHub's `emit` does not). */
    private readonly onEvent?: McpEventListener,
  ) {
    this.stderr = new StderrTail("stderrLines" in config ? config.stderrLines : undefined);
    this.reconnect = { ...DEFAULT_RECONNECT, ...config.reconnect };
    this.connectTimeoutMs = config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if ("client" in config) this.reconnect.enabled = false;
    this.probe.onStreamLost = (ids, error) => {
      for (const id of ids) this.inflight.get(id)?.abort(new StreamLostError(error));
    };
  }

  get sessionId(): string | undefined {
    return (this.transport as { sessionId?: string } | undefined)?.sessionId;
  }

  /** Did the connection a lease came from close (or get replaced) since the lease was taken? */
  closedSince(lease: Lease): boolean {
    return lease.generation !== this.generation || !this.live;
  }

  /**
   * Does a reset or a broken response stream lose only the request it hit? Over HTTP it does;
   * over stdio the pipe is the connection.
   */
  get breaksArePerRequest(): boolean {
    if ("client" in this.config) return !(this.config.client.transport instanceof StdioClientTransport);
    return this.config.transport !== "stdio";
  }

  /** The Retry-After the server sent since `since` (ms epoch), if any. */
  retryAfterSince(since: number): number | undefined {
    const r = this.probe.retryAfter;
    return r && r.at >= since ? r.ms : undefined;
  }

  /** Registers a call's controller under its JSON-RPC id, so a broken response stream can end it. */
  track(id: number | undefined, controller: AbortController): () => void {
    if (id === undefined) return () => {};
    this.inflight.set(id, controller);
    return () => {
      if (this.inflight.get(id) === controller) this.inflight.delete(id);
      // A call that timed out or was cancelled gets no answer; close the stream that waits for one.
      if (controller.signal.aborted) this.probe.abandon?.(id);
    };
  }

  /** The live client, connecting or reconnecting first when needed. */
  async lease(signal?: AbortSignal): Promise<Lease> {
    if (this.closed) throw McpToolError.of("not_connected", `The connection to server '${this.name}' was closed by the toolkit.`, { serverName: this.name });
    if (this.live && this.client) return { client: this.client, generation: this.generation, hadSession: this.sessionId !== undefined };
    if (this.generation > 0 && !this.reconnect.enabled) {
      throw McpToolError.of("not_connected", `The connection to server '${this.name}' is closed and reconnection is off.`, { serverName: this.name });
    }
    // The attempt is shared by every caller waiting for it, so it runs under its own connect
    // timeout, and each caller stops waiting the moment its own signal aborts.
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return raceAbort(this.connecting, signal);
  }

  /** Drops the current client so the next call reconnects (after an expired session, say). */
  async invalidate(lease: Lease): Promise<void> {
    if (lease.generation !== this.generation || !this.live) return;
    this.live = false;
    await this.disposeClient();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    for (const controller of this.inflight.values()) controller.abort(new Error("The toolkit is closing."));
    this.inflight.clear();
    await this.connecting?.catch(() => undefined);
    await this.disposeClient();
  }

  private async open(): Promise<Lease> {
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait);
    const isReconnect = this.generation > 0;
    try {
      const lease = await this.withConnectTimeout(() => this.establish());
      this.failures = 0;
      this.nextAttemptAt = 0;
      if (isReconnect) this.onEvent?.({ type: "reconnect", serverName: this.name, attempt: lease.generation - 1 });
      return lease;
    } catch (error) {
      this.failures++;
      const delay = Math.min(this.reconnect.maxDelayMs, this.reconnect.minDelayMs * 2 ** (this.failures - 1));
      this.nextAttemptAt = Date.now() + delay;
      throw normalize(error, { serverName: this.name, exit: this.probe.exit, notSent: true });
    }
  }

  /** Bounds a connect: the SDK's initialize can wait forever on a pipe that broke mid-handshake. */
  private async withConnectTimeout<T>(connect: () => Promise<T>): Promise<T> {
    const ms = this.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.disposeClient();
        void this.pendingTransport?.close().catch(() => undefined);
        reject(McpToolError.of("network_timeout", `Connecting to server '${this.name}' took longer than ${ms} ms.`, { serverName: this.name }));
      }, ms);
    });
    try {
      return await Promise.race([connect(), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async establish(): Promise<Lease> {
    await this.disposeClient();
    this.probe.exit = undefined;
    this.probe.retryAfter = undefined;
    this.stderr.clear();
    const config = this.config;
    let client: Client;
    let transport: Transport | undefined;
    if ("client" in config) {
      client = config.client;
      if (!client.transport) throw new Error("Not connected");
    } else {
      client = new Client(this.clientInfo);
      transport = await this.connectTransport(client, config);
    }
    let tools: Tool[];
    try {
      tools = await listAllTools(client);
    } catch (error) {
      if (transport) await client.close().catch(() => undefined);
      throw error;
    }
    const generation = ++this.generation;
    const previous = client.onclose;
    const previousError = client.onerror;
    let lastError: { message: string; at: number } | undefined;
    client.onerror = (error) => {
      previousError?.(error);
      lastError = { message: error.message, at: Date.now() };
    };
    client.onclose = () => {
      previous?.();
      if (generation !== this.generation) return;
      this.live = false;
      const exit: ExitInfo = { ...(this.probe.exit ?? (this.stderr.text() ? { stderrTail: this.stderr.text() } : {})) };
      // Only an error right before the close explains it; older ones (a skipped garbage line) do not.
      if (lastError && Date.now() - lastError.at < CLOSE_CAUSE_WINDOW_MS) exit.transportError = lastError.message;
      this.lastExit = Object.keys(exit).length > 0 ? exit : undefined;
    };
    this.client = client;
    this.transport = transport;
    this.tools = tools;
    this.live = true;
    return { client, generation, hadSession: this.sessionId !== undefined };
  }

  private async connectTransport(client: Client, config: Exclude<ServerConfig, { client: unknown }>): Promise<Transport> {
    if (config.transport === "stdio") return this.connectOrClose(client, stdioTransport(config, this.probe, this.stderr));
    if (config.transport === "sse") return this.connectOrClose(client, sseTransport(config, this.probe));
    try {
      return await this.connectOrClose(client, streamableTransport(config, this.probe));
    } catch (error) {
      // Servers that only speak the older SSE transport answer a streamable POST with 4xx.
      if (!(error instanceof StreamableHTTPError) || ![400, 404, 405].includes(error.code ?? 0)) throw error;
      return this.connectOrClose(client, sseTransport(config, this.probe));
    }
  }

  /** Connects, and on failure closes the transport so no process or socket is left behind. */
  private async connectOrClose(client: Client, transport: Transport): Promise<Transport> {
    this.pendingTransport = transport;
    try {
      await client.connect(transport);
      return transport;
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw error;
    } finally {
      this.pendingTransport = undefined;
    }
  }

  private async disposeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (!client || "client" in this.config) return;
    client.onclose = undefined;
    await client.close().catch(() => undefined);
  }
}

/** The reason a call's controller is aborted with when its HTTP response stream breaks. */
export class StreamLostError extends Error {
  override readonly name = "StreamLostError";
  constructor(cause: unknown) {
    super(`SSE stream disconnected before the server answered: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

async function listAllTools(client: Client): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

import { StreamableHTTPClientTransport, type Client, type Transport } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_INPUT_ROUNDS, DEFAULT_RECONNECT, type ReconnectOptions, type ServerConfig } from "../config/index.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize, type ExitInfo, type HttpResponseFacts } from "../errors/normalize.js";
import type { McpEventListener } from "../events.js";
import { raceAbort, sleep } from "../policy/abort.js";
import { eraOf, isStdioTransport, listAllTools, protocolVersionOf, transportOf, type AnyClient, type ProtocolEra } from "./clients.js";
import { connectTransport, newClient, withConnectTimeout, type ConnectAttempt, type EraChoice, type PendingTransport } from "./connect.js";
import { StreamLostError, terminateSession, ToolkitClosedError } from "./connectionEnds.js";
import { EraMemory, eraSetting, probeTimeoutMs } from "./era.js";
import type { InputHandler } from "./input.js";
import { watchTools } from "./toolWatch.js";
import { StderrTail, type TransportProbe } from "./transports.js";

export { StreamLostError, ToolkitClosedError } from "./connectionEnds.js";

/** How recent a transport error must be to be reported as the cause of a close. */
const CLOSE_CAUSE_WINDOW_MS = 1000;

/** A live client and the generation it belongs to; a call keeps both to tell what happened during it. */
export interface Lease {
  client: AnyClient;
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
  private client: AnyClient | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Lease> | undefined;
  private generation = 0;
  private live = false;
  private closed = false;
  private failures = 0;
  private nextAttemptAt = 0;
  private readonly probe: TransportProbe = { responses: new Map(), lastActivity: 0 };
  private readonly stderr: StderrTail;
  private readonly reconnect: Required<ReconnectOptions>;
  private readonly inflight = new Map<number, AbortController>();
  /** The transport a connect is opening, so a timeout can close it. */
  private readonly pending: PendingTransport = {};
  /** A user's own client's transport when we took it: the client is closed once it has another or none. */
  private userTransport: Transport | undefined;
  private readonly connectTimeoutMs: number;
  /** The tools the server listed at the last (re)connect, or since, when it said its list changed. */
  tools: Tool[] = [];
  /** Told when the server's tool list changed after the connect that listed it. */
  onToolsChanged: (() => void) | undefined;
  private readonly eras = new EraMemory();
  /** Stops hearing the current client's tool-list changes. */
  private stopWatchingTools: () => void = () => {};
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
    this.probe.onEventStreamLost = (transport, error) => {
      if (transport !== this.transport) return;
      for (const controller of this.inflight.values()) controller.abort(new StreamLostError(error, true));
      // The SDK would re-attach to a fresh, never-initialized session; the next call re-initializes instead.
      this.live = false;
      void this.disposeClient();
    };
  }

  /** The server's URL, for HTTP servers. */
  get url(): string | undefined {
    return "url" in this.config ? String(this.config.url) : undefined;
  }

  private get ownsClient(): boolean {
    return !("client" in this.config);
  }

  /**
   * Is the current client usable? A user's client is never wrapped to hear its close, so it is
   * read instead: the SDK drops a client's transport when it closes.
   */
  private isLive(): boolean {
    if (!this.live || !this.client) return false;
    return this.ownsClient || this.client.transport === this.userTransport;
  }

  get sessionId(): string | undefined {
    return (this.transport as { sessionId?: string } | undefined)?.sessionId;
  }

  /** Did the connection a lease came from close (or get replaced) since the lease was taken? */
  closedSince(lease: Lease): boolean {
    return lease.generation !== this.generation || !this.isLive();
  }

  /**
   * Does a reset or a broken response stream lose only the request it hit? Over HTTP it does;
   * over stdio the pipe is the connection.
   */
  get breaksArePerRequest(): boolean {
    if ("client" in this.config) return !isStdioTransport(transportOf(this.config.client));
    return this.config.transport !== "stdio";
  }

  /** How this server's requests for input are answered, and how many 2026 rounds a call may take. */
  get input(): { handler: InputHandler | undefined; maxRounds: number } {
    return { handler: this.config.inputHandler, maxRounds: this.config.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS };
  }

  /** The protocol version of the live connection, if there is one. */
  get protocolVersion(): string | undefined {
    return this.isLive() ? protocolVersionOf(this.client!) : undefined;
  }

  /** The protocol era of the live connection, if there is one. */
  get era(): ProtocolEra | undefined {
    return this.isLive() ? eraOf(this.client!) : undefined;
  }

  /**
   * The server refused our protocol version on a live connection (-32022): it was upgraded or
   * rolled back under us. The next connect renegotiates the era from scratch, once: returns
   * false when this connection already was that renegotiation, and the error is final.
   */
  versionRefused(lease: Lease): boolean {
    // A user's client is theirs to reconnect; ours is renegotiated once per refusal.
    return this.ownsClient && this.eras.refused(lease.generation, lease.generation === this.generation);
  }

  /**
   * What the HTTP layer saw of the response to request `id` (its status, Retry-After,
   * WWW-Authenticate, a page instead of an answer), read once: each request's facts are its own.
   */
  takeResponse(id: number | undefined): HttpResponseFacts | undefined {
    if (id === undefined) return undefined;
    const facts = this.probe.responses.get(id);
    if (facts) this.probe.responses.delete(id);
    return facts;
  }

  /**
   * Registers a call's controller under its JSON-RPC id, so a broken response stream can end it.
   * The returned function ends the registration; pass `failed` when the call failed some other
   * way (the SDK's own timer): it gets no answer either.
   */
  track(id: number | undefined, controller: AbortController): (failed?: boolean) => void {
    if (id === undefined) return () => {};
    this.inflight.set(id, controller);
    return (failed = false) => {
      if (this.inflight.get(id) === controller) this.inflight.delete(id);
      this.probe.responses.delete(id);
      // A call that timed out or was cancelled gets no answer; close the stream that waits for one.
      if (failed || controller.signal.aborted) this.probe.abandon?.(id);
    };
  }

  /** The live client if there is one now, without waiting; `undefined` when a (re)connect is needed. */
  current(): Lease | undefined {
    if (this.closed || !this.isLive()) return undefined;
    return { client: this.client!, generation: this.generation, hadSession: this.sessionId !== undefined };
  }

  /** Did the toolkit close this connection? */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Does a call on the fast path need a controller of its own, registered (`track`)? Over our
   * HTTP transports a broken answer stream ends the one request it carried; elsewhere nothing
   * outside ends a request.
   */
  get tracksStreams(): boolean {
    return !("client" in this.config) && this.config.transport !== "stdio";
  }

  /** The live client, connecting or reconnecting first when needed. */
  async lease(signal?: AbortSignal): Promise<Lease> {
    if (this.closed) throw McpToolError.of("closed", `The toolkit was closed; server '${this.name}' can no longer be called.`, { serverName: this.name });
    const live = this.current();
    if (live) return live;
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

  /**
   * Lists the server's tools again (a call met `tool_not_found`: the list we hold is stale),
   * and tells `onToolsChanged` when the list differs.
   */
  async refreshTools(signal?: AbortSignal): Promise<Tool[]> {
    const lease = await this.lease(signal);
    const tools = await raceAbort(listAllTools(lease.client), signal);
    if (lease.generation === this.generation) {
      const before = this.tools.map((t) => t.name).join("\u0000");
      this.tools = tools;
      if (tools.map((t) => t.name).join("\u0000") !== before) this.onToolsChanged?.();
    }
    return tools;
  }

  /** Drops the current client so the next call reconnects (after an expired session, say). */
  async invalidate(lease: Lease): Promise<void> {
    if (lease.generation !== this.generation || !this.live) return;
    this.live = false;
    await this.disposeClient();
  }

  /**
   * Ends every call in flight (as `closed`), ends the HTTP session with a DELETE (servers keep
   * sessions until told or timed out), and closes the transport. A user's own client is left as it was.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    for (const controller of this.inflight.values()) controller.abort(new ToolkitClosedError(this.name));
    this.inflight.clear();
    await this.connecting?.catch(() => undefined);
    await this.disposeClient({ terminate: true });
  }

  private async open(): Promise<Lease> {
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait);
    const isReconnect = this.generation > 0;
    try {
      // Past the timeout, what the attempt opened (a process, a socket) is stopped before it rejects.
      const stop = () => Promise.allSettled([this.pending.transport?.close(), this.disposeClient()]);
      const lease = await withConnectTimeout(this.connectTimeoutMs, this.name, (attempt) => this.establish(attempt), stop);
      this.failures = 0;
      this.nextAttemptAt = 0;
      if (isReconnect) this.onEvent?.({ type: "reconnect", serverName: this.name, attempt: lease.generation - 1 });
      return lease;
    } catch (error) {
      // Backoff only after a failed attempt: the first re-initialize after a lost connection is immediate.
      this.failures++;
      const delay = Math.min(this.reconnect.maxDelayMs, this.reconnect.minDelayMs * 2 ** (this.failures - 1));
      this.nextAttemptAt = Date.now() + delay;
      // The connect's requests (initialize, the GET that opens a stream) are read newest first.
      const response = [...this.probe.responses.values()].at(-1);
      this.probe.responses.clear();
      const url = this.url;
      throw normalize(error, { serverName: this.name, exit: this.probe.exit, notSent: true, ...(url ? { url } : {}), ...(response ? { response } : {}) });
    }
  }

  private async establish(attempt: ConnectAttempt): Promise<Lease> {
    await this.disposeClient();
    this.probe.exit = undefined;
    this.probe.responses.clear();
    this.stderr.clear();
    const config = this.config;
    let client: AnyClient;
    let transport: Transport | undefined;
    if ("client" in config) {
      client = config.client;
      transport = transportOf(client);
      if (!transport) throw new Error("Not connected");
    } else {
      ({ client, transport } = await this.connectOwn(config, attempt));
    }
    let tools: Tool[];
    let watching = { ready: Promise.resolve(), stop: () => {} };
    try {
      // Until this connect is done, a timeout must be able to close what it opened.
      if (this.ownsClient) this.pending.transport = transport;
      if (this.ownsClient) {
        const own = client as Client;
        watching = watchTools(
          own,
          (listed) => {
            if (own !== this.client) return;
            this.tools = listed;
            this.onToolsChanged?.();
          },
          // A quarter of the connect timeout, at most 2 s: a server slow to acknowledge the
          // stream delays the connect that long, then the toolkit goes on without live lists.
          Math.max(1, Math.min(2_000, Math.floor(this.connectTimeoutMs / 4))),
        );
        await watching.ready;
      }
      tools = await listAllTools(client);
      if (attempt.abandoned) throw new Error("The connect was abandoned after its timeout.");
    } catch (error) {
      watching.stop();
      if (this.ownsClient) await client.close().catch(() => undefined);
      throw error;
    } finally {
      this.pending.transport = undefined;
    }
    const generation = ++this.generation;
    if (this.ownsClient) this.eras.connected(generation);
    if (this.ownsClient) {
      this.watch(client as Client, generation);
      this.stopWatchingTools = watching.stop;
    }
    this.client = client;
    this.transport = transport;
    this.userTransport = this.ownsClient ? undefined : transport;
    this.tools = tools;
    this.live = true;
    return { client, generation, hadSession: this.sessionId !== undefined };
  }

  /** Opens our own client, in the era its config asks for or the one the last connect learnt. */
  private connectOwn(config: Exclude<ServerConfig, { client: unknown }>, attempt: ConnectAttempt): Promise<{ client: Client; transport: Transport }> {
    const probeMs = probeTimeoutMs(config.transport, this.connectTimeoutMs);
    const open = (choice: EraChoice) => {
      const input = { handler: config.inputHandler, serverName: this.name };
      const client = newClient(this.clientInfo, choice, probeMs, input);
      const legacy = () => newClient(this.clientInfo, { era: "legacy" }, probeMs, input);
      return connectTransport(client, config, this.probe, this.stderr, this.pending, choice, legacy);
    };
    return this.eras.open(eraSetting(config), attempt, open, () => this.probe.responses.clear());
  }

  /**
   * Hears our own client's close and errors, to fail calls at once and report how the connection
   * ended. Only our own: a user's client keeps its handlers exactly as they were.
   */
  private watch(client: Client, generation: number): void {
    let lastError: { message: string; at: number } | undefined;
    client.onerror = (error) => {
      lastError = { message: error.message, at: Date.now() };
    };
    client.onclose = () => {
      if (generation !== this.generation) return;
      this.live = false;
      const exit: ExitInfo = { ...(this.probe.exit ?? (this.stderr.text() ? { stderrTail: this.stderr.text() } : {})) };
      // Only an error right before the close explains it; older ones (a skipped garbage line) do not.
      if (lastError && Date.now() - lastError.at < CLOSE_CAUSE_WINDOW_MS) exit.transportError = lastError.message;
      this.lastExit = Object.keys(exit).length > 0 ? exit : undefined;
    };
  }

  private async disposeClient(options: { terminate?: boolean } = {}): Promise<void> {
    this.stopWatchingTools();
    this.stopWatchingTools = () => {};
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.userTransport = undefined;
    if (!client || !this.ownsClient) return;
    client.onclose = undefined;
    if (options.terminate && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await terminateSession(transport);
    }
    await client.close().catch(() => undefined);
  }
}

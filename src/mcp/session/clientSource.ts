/**
 * Where a connection's client comes from: one the toolkit opens itself (and may open again,
 * watch, renegotiate and close), or one the user holds (taken as it is, never closed, never
 * reopened). The connection asks this adapter and never branches on which it is.
 */
import { StreamableHTTPClientTransport, type Client, type Transport } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../../config/index.js";
import { priorFor, type Listing } from "./catalogCache.js";
import { isStdioTransport, isV2Client, listAllTools, transportOf, type AnyClient } from "./clients.js";
import { connectTransport, newClient, type ConnectAttempt, type EraChoice, type PendingTransport } from "./connect.js";
import { terminateSession } from "./connectionEnds.js";
import { EraMemory, eraSetting, probeTimeoutMs } from "./era.js";
import type { ServerLogs } from "./serverLogs.js";
import type { ToolCatalog } from "./ToolCatalog.js";
import type { StderrTail } from "../transport/transports.js";
import type { NodeTransports } from "../transport/nodeTransports.js";
import { ClientRequests } from "../call/ClientRequests.js";

/** A client opened and listed, not yet the connection's: `adopt` makes it so. */
export interface Opened {
  client: AnyClient;
  transport: Transport;
  tools: Tool[];
  /** The listing `tools` came from, when this connect read them. */
  listed?: Listing;
  /** The tools are a listing that still held (a catalog's), which this client never read. */
  reused?: boolean;
  /** The requests this client wrote, and what its transport saw of them: this client's alone. */
  requests: ClientRequests;
  /**
   * Called when the connection takes the client: it starts hearing the client's list changes
   * (and, on a reconnect that kept the list it had, lists again beside the first calls).
   */
  activate?: (isCurrent: () => boolean) => void;
}

/** How a connection that adopted a client hears it end. */
export interface ClientEnds {
  /** The client closed; `transportError` is the error it reported just before, if recent. */
  onClose(transportError: string | undefined): void;
}

export interface ClientSource {
  /** May the connection open again after its client closed? */
  readonly reconnects: boolean;
  /** Does a reset or a broken response stream lose only the request it hit? Over stdio the pipe is the connection. */
  readonly breaksArePerRequest: boolean;
  /** Opens (or takes) a client and lists its tools (unless the last listing still holds). On failure nothing is left open. */
  open(attempt: ConnectAttempt): Promise<Opened>;
  /** `opened` becomes the connection's client, as generation `generation`. */
  adopt(opened: Opened, generation: number, isCurrent: () => boolean, ends: ClientEnds): void;
  /** Is the adopted client still usable? */
  isLive(opened: Opened): boolean;
  /**
   * The server refused our protocol version on generation `generation` (-32022). True when the
   * next connect renegotiates; false when the error is final.
   */
  versionRefused(generation: number, current: boolean): boolean;
  /** Lets go of the client; `terminate` ends the HTTP session first (the toolkit is closing). */
  release(opened: Opened, terminate: boolean): Promise<void>;
  /** Closes what a connect in progress opened (its timeout ran out, or the toolkit closed). */
  abandon(): Promise<unknown>;
}

/** How recent a transport error must be to be reported as the cause of a close. */
const CLOSE_CAUSE_WINDOW_MS = 1000;

/** A client the toolkit opens from the server's config, in the era the config asks for or the one last learnt. */
export class OwnClient implements ClientSource {
  readonly reconnects: boolean;
  private readonly eras = new EraMemory();
  private readonly pending: PendingTransport = {};

  constructor(
    private readonly name: string,
    private readonly config: Exclude<ServerConfig, { client: unknown }>,
    private readonly clientInfo: { name: string; version: string },
    /** A client's legacy SSE event stream broke (its requests are already ended). */
    private readonly onEventStreamLost: (transport: Transport, error: unknown) => void,
    private readonly stderr: StderrTail,
    /** Starts a stdio server's process; absent where the runtime cannot. */
    private readonly stdio: NodeTransports["stdioTransport"],
    private readonly catalog: ToolCatalog,
    private readonly logs: ServerLogs,
    private readonly connectTimeoutMs: number,
    reconnects: boolean,
  ) {
    this.reconnects = reconnects;
  }

  get breaksArePerRequest(): boolean {
    return this.config.transport !== "stdio";
  }

  async open(attempt: ConnectAttempt): Promise<Opened> {
    this.stderr.clear();
    const seed = this.catalog.takeSeed();
    const prior = seed && priorFor(seed, eraSetting(this.config));
    if (prior) this.eras.assume(prior);
    // Each client its own: its request ids start again at 0, and nothing of an old one's requests may reach it.
    const requests = new ClientRequests(this.onEventStreamLost);
    attempt.requests = requests;
    const { client, transport } = await this.connect(attempt, requests);
    // Ahead of the client's own dispatch (which it set when it connected): see ClientRequests.progressed.
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!requests.progressed(message)) dispatch?.(message, extra);
    };
    let current = false;
    // A quarter of the connect timeout, at most 2 s: a server slow to acknowledge the stream
    // delays the connect that long, then the toolkit goes on without live lists.
    const watching = this.catalog.watch(client, () => current, Math.max(1, Math.min(2_000, Math.floor(this.connectTimeoutMs / 4))));
    try {
      // Until this connect is done, a timeout must be able to close what it opened.
      this.pending.transport = transport;
      // A list that still holds (the server's ttl, or a catalog's) is not asked for again. A list
      // read now is read once the change stream is up, so no change falls between the two; a
      // list kept from before has no such moment to guard, and the call need not wait for it.
      // A reconnect keeps the list the last connection read and lists again beside the first
      // calls, not before them: a restarted server's first answer waits for no list (a tool it
      // dropped meanwhile answers tool_not_found, which lists again at once).
      const fresh = this.catalog.fresh();
      const kept = fresh ?? this.catalog.lastRead;
      if (!kept) await watching.ready;
      this.logs.listen(client);
      await this.askLogLevel(client);
      const listed = kept ? undefined : await this.catalog.read(client);
      if (attempt.abandoned) throw new Error("The connect was abandoned after its timeout.");
      const activate = (isCurrent: () => boolean) => {
        current = true;
        watching.adopt();
        if (!fresh && kept) void this.catalog.relist(client, watching.ready, isCurrent);
      };
      return { client, transport, requests, tools: (kept ?? listed)!.tools, ...(listed ? { listed } : { reused: true }), activate };
    } catch (error) {
      watching.drop();
      await client.close().catch(() => undefined);
      throw error;
    } finally {
      this.pending.transport = undefined;
    }
  }

  adopt(opened: Opened, generation: number, isCurrent: () => boolean, ends: ClientEnds): void {
    this.eras.connected(generation);
    opened.activate?.(isCurrent);
    const client = opened.client as Client;
    let lastError: { message: string; at: number } | undefined;
    client.onerror = (error) => {
      lastError = { message: error.message, at: Date.now() };
    };
    client.onclose = () => {
      if (!isCurrent()) return;
      // Only an error right before the close explains it; older ones (a skipped garbage line) do not.
      ends.onClose(lastError && Date.now() - lastError.at < CLOSE_CAUSE_WINDOW_MS ? lastError.message : undefined);
    };
  }

  isLive(): boolean {
    return true;
  }

  /**
   * A 2025-era server that logs is asked for the configured level once per connect; a 2026-07-28
   * one is asked on each request instead. A server that refuses changes nothing.
   */
  private async askLogLevel(client: Client): Promise<void> {
    const level = this.config.logLevel;
    if (!level || client.getProtocolEra() === "modern" || !client.getServerCapabilities()?.logging) return;
    await client.setLoggingLevel(level).catch(() => undefined);
  }

  versionRefused(generation: number, current: boolean): boolean {
    return this.eras.refused(generation, current);
  }

  async release(opened: Opened, terminate: boolean): Promise<void> {
    const client = opened.client as Client;
    client.onclose = undefined;
    if (terminate && opened.transport instanceof StreamableHTTPClientTransport && opened.transport.sessionId) await terminateSession(opened.transport);
    await client.close().catch(() => undefined);
  }

  abandon(): Promise<unknown> {
    return Promise.allSettled([this.pending.transport?.close()]);
  }

  private connect(attempt: ConnectAttempt, requests: ClientRequests): Promise<{ client: Client; transport: Transport }> {
    const config = this.config;
    const probeMs = probeTimeoutMs(config.transport, this.connectTimeoutMs);
    const input = { handler: config.inputHandler, serverName: this.name };
    const open = (choice: EraChoice) => {
      const client = newClient(this.clientInfo, choice, probeMs, input);
      const legacy = () => newClient(this.clientInfo, { era: "legacy" }, probeMs, input);
      return connectTransport(client, config, requests, this.stderr, this.stdio, this.pending, choice, legacy);
    };
    return this.eras.open(eraSetting(config), attempt, open, () => requests.responses.clear());
  }
}

/**
 * A client the user connected and holds: taken as it is, its handlers left as they were, never
 * closed or reopened by the toolkit. It is read, not wrapped: the SDK drops a client's transport
 * when it closes, so a client whose transport changed or went is no longer the one adopted.
 */
export class UserClient implements ClientSource {
  readonly reconnects = false;

  constructor(private readonly client: AnyClient) {}

  get breaksArePerRequest(): boolean {
    return !isStdioTransport(transportOf(this.client));
  }

  async open(): Promise<Opened> {
    const transport = transportOf(this.client);
    if (!transport) throw new Error("Not connected");
    // The user's transport reports nothing to it. A v2 client hands a request's own headers to its
    // transport; only the streamable HTTP transport sends them (its SSE and stdio ones do not), and
    // it drops the names it reserves (Authorization, DPoP): CallContract.identityFor refuses those.
    const requests = new ClientRequests();
    if (isV2Client(this.client) && typeof (transport as { terminateSession?: unknown }).terminateSession === "function") requests.headerRoute = "options";
    return { client: this.client, transport, requests, tools: await listAllTools(this.client) };
  }

  adopt(): void {}

  isLive(opened: Opened): boolean {
    return opened.client.transport === opened.transport;
  }

  versionRefused(): boolean {
    // A user's client is theirs to reconnect.
    return false;
  }

  async release(): Promise<void> {}

  abandon(): Promise<unknown> {
    return Promise.resolve();
  }
}

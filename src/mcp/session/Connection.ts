/**
 * One server's connection: the lifecycle of its transport (connect, reconnect with backoff,
 * close). Tools ask it for the live client at call time, so a reconnect (new process, new
 * session) is invisible to them. Reconnection is lazy: the next call after a close opens a
 * fresh transport. What it knows of requests in flight lives in its RequestTracker, its tools
 * in its ToolCatalog, whether the client is ours or the user's in its ClientSource, and which
 * client it holds now (its generation, session and era) in its CurrentClient.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_INPUT_ROUNDS, DEFAULT_RECONNECT, DEFAULT_SERVER_OPTIONS, type ReconnectOptions, type ServerConfig } from "../../config/index.js";
import { McpToolError } from "../../errors/McpToolError.js";
import { normalize, type ExitInfo } from "../../errors/normalize.js";
import { INSPECT } from "../../errors/redactor.js";
import type { LogLevel, McpEventListener } from "../../events.js";
import { raceAbort, withDeadline } from "../../policy/abort.js";
import type { Listing } from "./catalogCache.js";
import type { ProtocolEra } from "./clients.js";
import { OwnClient, UserClient, type ClientSource } from "./clientSource.js";
import { withConnectTimeout, type ConnectAttempt } from "./connect.js";
import { closedError, ToolkitClosedError } from "./connectionEnds.js";
import { CurrentClient, type Lease } from "./CurrentClient.js";
import type { InputHandler } from "../../config/input.js";
import { connectFailure } from "./startFailure.js";
import { ReconnectBackoff } from "./reconnectBackoff.js";
import { RequestTracker } from "./RequestTracker.js";
import { ServerLogs } from "./serverLogs.js";
import { ToolCatalog } from "./ToolCatalog.js";
import { StderrTail } from "../transport/transports.js";
import type { ListenProbe, NodeTransports } from "../transport/nodeTransports.js";
import { platform } from "../../platform/index.js";

export { StreamLostError, ToolkitClosedError } from "./connectionEnds.js";
export type { Lease } from "./CurrentClient.js";

/** How long `close()` waits for the client to let go (a session's DELETE, a process's exit) before it returns anyway. */
const CLOSE_WAIT_MS = 1000;

export class Connection {
  /** The client held now, its generation and whether it is live. */
  private readonly client: CurrentClient;
  private connecting: Promise<Lease> | undefined;
  /** Aborts once the toolkit closes: ends a backoff wait or a connect at once. */
  private readonly closing = new AbortController();
  private readonly stderr: StderrTail;
  private readonly reconnect: Required<ReconnectOptions>;
  private readonly backoff: ReconnectBackoff;
  /** Over HTTP: tells when a server that refused the connection listens again. */
  private readonly listen: ListenProbe | undefined;
  /** The requests and attempts in flight, and what the HTTP layer saw of their answers. */
  readonly requests: RequestTracker;
  /** The tools, and where they came from (a listing, a catalog). */
  readonly catalog: ToolCatalog;
  private readonly source: ClientSource;
  /** The server's log messages: reported as `log` events, the last warnings kept for failed calls. */
  readonly logs: ServerLogs;
  private readonly connectTimeoutMs: number;
  /** How the last connection ended, for error messages. */
  get lastExit(): ExitInfo | undefined { return this.client.lastExit; }
  /** Why the last connect failed, until one succeeds: the cause a call waiting on the next one reports. */
  get lastConnectError(): McpToolError | undefined { return this.backoff.lastError; }

  constructor(
    readonly name: string,
    private readonly config: ServerConfig,
    clientInfo: { name: string; version: string },
    /** Receives `reconnect` events; must not throw (an EventHub's `emit` does not). */
    private readonly onEvent?: McpEventListener,
    /** Stdio and the listen probe, where the runtime has them (src/nodeOnly/). */
    node: NodeTransports = {},
  ) {
    this.catalog = new ToolCatalog(config.catalogTtlMs ?? DEFAULT_SERVER_OPTIONS.catalogTtlMs);
    this.stderr = new StderrTail("stderrLines" in config ? config.stderrLines : undefined);
    this.reconnect = { ...DEFAULT_RECONNECT, ...config.reconnect };
    // Every call waiting on this server (a backoff, the breaker, a Retry-After) listens to it: many at once is normal, not a leak.
    platform.unlimitedListeners(this.closing.signal);
    this.listen = "url" in config ? node.listenProbe?.(new URL(String(config.url)), this.closing.signal) : undefined;
    this.backoff = new ReconnectBackoff(this.reconnect);
    this.connectTimeoutMs = config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.requests = new RequestTracker();
    this.logs = new ServerLogs(name, config.logLevel, (event) => this.onEvent?.(event));
    this.source =
      "client" in config
        ? new UserClient(config.client)
        : new OwnClient(name, config, clientInfo, (transport) => this.eventStreamLost(transport), this.stderr, node.stdioTransport, this.catalog, this.logs, this.connectTimeoutMs, this.reconnect.enabled);
    this.client = new CurrentClient(name, this.source, this.catalog, this.stderr, this.closing.signal);
  }

  /** Does the server honour idempotency keys, as it last declared (kept across reconnects, see CurrentClient)? */
  get declaresKeys(): boolean | undefined { return this.client.declaresKeys; }

  /** The server's URL, for HTTP servers. */
  get url(): string | undefined {
    return "url" in this.config ? String(this.config.url) : undefined;
  }

  /**
   * Resolves `true` once a server that refused the connection listens again within `ms`;
   * `false` then, or at once where there is no address to watch (stdio, a user's client).
   */
  readonly listening = (ms: number): Promise<boolean> => this.listen?.within(ms) ?? Promise.resolve(false);

  /** The tools the server listed at the last (re)connect, or since. */
  get tools(): Tool[] {
    return this.catalog.tools;
  }

  /** Told when the server's tool list changed after the connect that listed it. */
  set onToolsChanged(listener: (() => void) | undefined) {
    this.catalog.onChanged = listener;
  }

  /**
   * Starts from a catalog's entry, before any connect: its tools are offered at once, and the
   * first call connects (in the era the entry learnt) without listing while the entry holds.
   */
  seed(listing: Listing): void {
    if (this.client.generation === 0) this.catalog.seed(listing);
  }

  /** Has this connection never connected, and holds tools from a catalog that still hold? Then nothing need connect yet. */
  get fromCatalog(): boolean {
    return this.client.generation === 0 && this.catalog.fresh() !== undefined;
  }

  get sessionId(): string | undefined { return this.client.sessionId; }

  /** Did the connection a lease came from close (or get replaced) since the lease was taken? See CurrentClient. */
  closedSince(lease: Lease): boolean {
    return this.client.closedSince(lease);
  }

  /** Does a reset or a broken response stream lose only the request it hit? Over stdio the pipe is the connection. */
  get breaksArePerRequest(): boolean {
    return this.source.breaksArePerRequest;
  }

  /** The log level asked of the server (`logLevel`), if any. */
  get logLevel(): LogLevel | undefined { return this.config.logLevel; }

  /** How this server's requests for input are answered, and how many 2026 rounds a call may take. */
  get input(): { handler: InputHandler | undefined; maxRounds: number } {
    return { handler: this.config.inputHandler, maxRounds: this.config.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS };
  }

  /** The protocol version of the live connection, if there is one. */
  get protocolVersion(): string | undefined { return this.client.protocolVersion; }

  /** The protocol era of the live connection, if there is one. */
  get era(): ProtocolEra | undefined { return this.client.era; }

  /**
   * The server refused our protocol version on a live connection (-32022): it was upgraded or
   * rolled back under us. The next connect renegotiates the era from scratch, once: returns
   * false when this connection already was that renegotiation, and the error is final.
   */
  versionRefused(lease: Lease): boolean {
    return this.source.versionRefused(lease.generation, lease.generation === this.client.generation);
  }

  /** The live client if there is one now, without waiting; `undefined` when a (re)connect is needed. */
  current(): Lease | undefined {
    if (this.closing.signal.aborted) return undefined;
    return this.client.lease();
  }

  /** Did the toolkit close this connection? */
  get isClosed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Aborts, with a ToolkitClosedError, once the toolkit closes: every wait of a call to this server races it. */
  get closingSignal(): AbortSignal {
    return this.closing.signal;
  }

  /** The live client, connecting or reconnecting first when needed. */
  lease(signal?: AbortSignal): Promise<Lease> {
    if (this.isClosed) return Promise.reject(closedError(this.name));
    const live = this.current();
    if (live) return Promise.resolve(live);
    if (this.client.generation > 0 && !this.source.reconnects) {
      return Promise.reject(McpToolError.of("not_connected", `The connection to server '${this.name}' is closed and reconnection is off.`, { serverName: this.name, transient: false }));
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
    const listing = await raceAbort(this.catalog.read(lease.client), signal);
    this.catalog.replace(listing, lease.generation === this.client.generation);
    return listing.tools;
  }

  /**
   * Drops the current client so the next call reconnects. With `drain` (an answer that proves the
   * server up, an expired session; or a refused connect, the session's process gone), the old
   * client is let go only once the calls still in flight on it have ended: each gets its own
   * answer (its own 404 or refusal, certainly not run, and is re-sent), rather than being cut off
   * by a close.
   */
  async invalidate(lease: Lease, drain = false): Promise<void> {
    if (!this.client.holds(lease)) return;
    this.client.down();
    if (!drain) return this.client.release(false);
    const retiring = this.client.retire(lease);
    if (retiring) void this.requests.afterCurrent().then(() => this.source.release(retiring, false));
  }

  /**
   * The server refused a new connection: the process the lease's connection spoke to is gone.
   * The answer streams it had opened end now (a new process cannot resume them: their calls fail
   * at once, outcome unknown), and a session it held goes with it: the next attempt initializes
   * at once rather than learning it from a 404 first, while the calls still in flight on the old
   * session end on their own, each refused unsent. A user's own client is left as it is: the
   * toolkit cannot open another, and the user's may still reach the server once it is back.
   */
  refused(lease: Lease): Promise<void> {
    if (!this.client.holds(lease)) return Promise.resolve();
    lease.requests.serverGone?.(new Error("the server refused a new connection: its process is gone"));
    return lease.hadSession && this.source.reconnects ? this.invalidate(lease, true) : Promise.resolve();
  }

  /**
   * Final: ends every call in flight at once (as `closed`), stops a connect or a backoff wait
   * under way, starts nothing afterwards, ends the HTTP session with a DELETE and closes the
   * transport. Returns within about a second whatever the server does; a process still exiting
   * then is stopped in the background. A user's own client is left as it was.
   */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.closing.abort(new ToolkitClosedError(this.name));
    this.client.down();
    this.requests.endAll(this.closing.signal.reason);
    const abandoned = this.source.abandon();
    const released = this.client.release(true);
    const letGo = Promise.allSettled([abandoned, released, this.connecting]);
    await withDeadline(CLOSE_WAIT_MS, undefined, () => letGo, () => undefined).catch(() => undefined);
  }

  /** What `util.inspect` prints: never the config, client or transport below (headers, env). */
  [INSPECT](_depth: number, options: object, inspect?: (value: unknown, options: object) => string): string {
    // Another runtime's console may call this without Node's inspect: JSON says the same.
    return `Connection ${typeof inspect === "function" ? inspect(this.toJSON(), options) : JSON.stringify(this.toJSON())}`;
  }

  toJSON(): { name: string; closed: boolean; era?: ProtocolEra; protocolVersion?: string; tools: number } {
    const { era, protocolVersion } = this;
    return { name: this.name, closed: this.isClosed, ...(era ? { era } : {}), ...(protocolVersion ? { protocolVersion } : {}), tools: this.tools.length };
  }

  private async open(): Promise<Lease> {
    const isReconnect = this.client.generation > 0;
    /** The last connect attempt: its client's requests tell why it failed. */
    let tried: ConnectAttempt | undefined;
    try {
      await this.backoff.turn(this.closing.signal);
      // Past the timeout, what the attempt opened (a process, a socket) is stopped before it rejects.
      const stop = () => Promise.allSettled([this.source.abandon(), this.client.release(false)]);
      const connect = () =>
        withConnectTimeout(this.connectTimeoutMs, this.name, this.closing.signal, (attempt) => {
          tried = attempt;
          return this.client.establish(attempt);
        }, stop);
      // A connect whose pooled socket a proxy closed while it sat idle (a slow handshake) meets
      // "other side closed": the handshake is safe to repeat, so it is, once, at once.
      const lease = await connect().catch((error: unknown) => {
        if (this.isClosed || !this.source.breaksArePerRequest || normalize(error, { notSent: true }).reason !== "connection_reset") throw error;
        return connect();
      });
      this.backoff.succeeded();
      if (isReconnect) this.onEvent?.({ type: "reconnect", serverName: this.name, attempt: lease.generation - 1 });
      return lease;
    } catch (error) {
      if (this.isClosed) throw closedError(this.name);
      // Backoff only after a failed attempt: the first re-initialize after a lost connection is immediate.
      const failure = connectFailure(this.name, error, tried?.requests, { config: this.config, lastExit: this.lastExit, restarted: isReconnect });
      this.backoff.failed(failure);
      throw failure;
    }
  }

  /** The legacy SSE transport's event stream broke: every answer it was to carry is lost (its client's requests are ended). */
  private eventStreamLost(transport: Transport): void {
    if (transport !== this.client.transport) return;
    // The SDK would re-attach to a fresh, never-initialized session; the next call re-initializes instead.
    this.client.down();
    void this.client.release(false);
  }
}

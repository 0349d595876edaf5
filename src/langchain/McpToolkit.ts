import { BaseToolkit } from "@langchain/core/tools";
import { nodeOnly } from "../nodeOnly/index.js";
import { validateForRuntime } from "../nodeOnly/runtimeCheck.js";
import { DEFAULT_CLIENT_INFO, DEFAULT_SERVER_OPTIONS, type McpToolkitConfig } from "../config/index.js";
import { checkNames } from "./nameCheck.js";
import { unheardWarnings } from "./warnings.js";
import { INSPECT, Redactor } from "../errors/redactor.js";
import { redactionOf } from "../config/secrets.js";
import { EventHub } from "../eventHub.js";
import type { McpEvent, McpEventListener, McpEventOf, McpEventType, ServerStatus } from "../events.js";
import { connectionDeathKey } from "../mcp/call/attemptFailure.js";
import { serverPing } from "../mcp/session/ping.js";
import type { ProtocolEra } from "../mcp/session/clients.js";
import { Connection } from "../mcp/session/Connection.js";
import { identitiesReady } from "../mcp/session/serverIdentity.js";
import { breakerEvents, CircuitBreaker, type BreakerState } from "../policy/CircuitBreaker.js";
import type { ToolkitGuards } from "../policy/pipeline.js";
import { Bulkhead } from "../policy/Bulkhead.js";
import { RetryAfterGate } from "../policy/RetryAfterGate.js";
import { RetryBudget } from "../policy/RetryBudget.js";
import { throttleFor } from "../policy/Throttle.js";
import type { ResolvedPolicy } from "../policy/resolve.js";
import { ToolkitTelemetry } from "../telemetry/ToolkitTelemetry.js";
import type { ToolRuntime } from "./toolCall.js";
import { ToolCaller } from "./toolCaller.js";
import type { McpTool } from "./McpTool.js";
import { currentToolRun, forwardToToolRuns } from "./runEvents.js";
import { ServerConnects } from "./serverConnects.js";
import type { SharedCatalogs, ToolkitCatalog } from "../config/catalog.js";
import { exportCatalog, startFromCatalogs } from "./catalog.js";
import { ToolBuilder, renamedOf, type BuiltTool } from "./toolBuilder.js";
import { McpPrompts } from "./McpPrompts.js";
import { McpResources } from "../resources/McpResources.js";

/**
 * MCP servers as LangChain tools that never crash the agent.
 *
 * ```ts
 * const toolkit = await McpToolkit.connect({ servers: { files: { transport: "stdio", command: "mcp-files" } } });
 * const agent = createAgent({ model, tools: toolkit.getTools() });
 * ```
 */
export class McpToolkit extends BaseToolkit {
  tools: McpTool[] = [];
  private readonly toolsByName = new Map<string, McpTool>();
  private readonly connections = new Map<string, Connection>();
  private readonly guards = new Map<string, ToolkitGuards>();
  private readonly byName = new Map<string, ToolRuntime>();
  /** Tools the server stopped listing, by runtime: the objects come back if it lists them again. */
  private readonly retired = new Map<ToolRuntime, McpTool>();
  /** How servers join: the first connects, the optional ones retried in the background, their status. */
  private readonly connects: ServerConnects;
  /** The one redaction of everything that leaves the toolkit; it keeps its secrets where nothing prints them. */
  private readonly redactor: Redactor;
  private readonly events: EventHub;
  /** Spans and metrics through OpenTelemetry; does nothing unless the application registered a provider. */
  private readonly telemetry: ToolkitTelemetry;
  /** Calls the tools: their runtimes, the pipeline, fallbacks. */
  private readonly caller: ToolCaller;
  /** Names and builds the tools a server lists, for this toolkit to offer. */
  private readonly builder: ToolBuilder;
  /** The servers' prompts, through the same pipeline as a tool call: `list`, `get`, `template` (docs/resources-and-prompts.md). */
  readonly prompts: McpPrompts;
  /** The servers' resources, through the same pipeline as a tool call: `list`, `read` (docs/resources-and-prompts.md). */
  readonly resources: McpResources = new McpResources(() => this.caller.parts);
  private closed = false;
  /** The shared state on Redis, when `sharedState` is set. */
  private fleet: { close(): void; catalogs: SharedCatalogs } | undefined;

  // esbuild (tsup) renames a class whose body names itself (connect's `new McpToolkit`) to `_McpToolkit`, which stacks print.
  static {
    Object.defineProperty(this, "name", { value: "McpToolkit" });
  }

  private constructor(private readonly config: McpToolkitConfig) {
    super();
    this.redactor = new Redactor(redactionOf(config));
    this.events = new EventHub(config.onEvent, this.redactor, unheardWarnings(config.warnings));
    this.telemetry = new ToolkitTelemetry(this.events, {
      connection: (name) => this.connections.get(name),
      tool: (name) => ({ mcpName: this.byName.get(name)?.identity.mcpName ?? name, description: this.toolsByName.get(name)?.description ?? "" }),
      toolCallId: () => currentToolRun()?.toolCallId,
      redact: (error) => this.redactor.error(error),
    });
    forwardToToolRuns(this.events);
    const emit = (event: McpEvent) => this.events.emit(event);
    const clientInfo = config.clientInfo ?? DEFAULT_CLIENT_INFO;
    for (const [name, server] of Object.entries(config.servers)) {
      const throttle = throttleFor(name, config.throttle, server.throttle);
      const connection: Connection = new Connection(name, server, clientInfo, (event) => {
        if (event.type === "reconnect") this.connects.reconnected(name);
        emit(event);
      }, nodeOnly);
      connection.onToolsChanged = () => this.syncTools(name);
      this.connections.set(name, connection);
      this.guards.set(name, {
        breaker: new CircuitBreaker(name, { ...config.breaker, ...server.breaker }, { ...breakerEvents(name, emit), failureKey: connectionDeathKey, listening: connection.listening, ping: serverPing(connection), closing: connection.closingSignal }),
        gate: new RetryAfterGate(name),
        budget: new RetryBudget({ ...config.retryBudget, ...server.retryBudget }),
        listening: connection.listening,
        closing: connection.closingSignal,
        ...(throttle ? { throttle } : {}),
        ...(server.maxConcurrent !== undefined ? { bulkhead: new Bulkhead(name, server.maxConcurrent, server.maxQueue ?? Number.POSITIVE_INFINITY) } : {}),
      });
    }
    this.caller = new ToolCaller({ config, connections: this.connections, guards: this.guards, events: this.events, telemetry: this.telemetry, redactor: this.redactor });
    this.builder = new ToolBuilder({ config, connections: this.connections, caller: this.caller, redactor: this.redactor });
    this.prompts = new McpPrompts({ config, connections: this.connections, guards: this.guards, events: this.events, telemetry: this.telemetry, redactor: this.redactor });
    this.connects = new ServerConnects({
      config,
      connections: this.connections,
      events: this.events,
      redact: (error) => this.redactor.error(error),
      join: (servers, late) => this.join(servers, late),
      toolsOf: (server) => this.tools.filter((t) => t.metadata.serverName === server).map((t) => t.name),
    });
  }

  /** Subscribes to one type of event (or `"*"` for all); returns the function that unsubscribes. `config.onEvent` receives every event too. */
  on<T extends McpEventType>(type: T, listener: (event: McpEventOf<T>) => void): () => void;
  on(type: "*", listener: McpEventListener): () => void;
  on(type: McpEventType | "*", listener: (event: never) => void): () => void {
    return this.events.on(type as "*", listener as McpEventListener);
  }

  /**
   * Validates the configuration, connects every server and lists their tools.
   * Rejects with an `McpConfigError` naming the field for invalid configuration, and with
   * the classified `McpToolError` of a required server that fails to connect (its
   * `serverName` names it). An optional server that fails is left out and tried again in the
   * background; see `status()`.
   */
  static async connect(config: McpToolkitConfig): Promise<McpToolkit> {
    validateForRuntime(config);
    const toolkit = new McpToolkit(config);
    try {
      // Loaded only here, so a toolkit without `sharedState` never loads fleet/. Its Redis keys hold each server's identity, a slow hash: worked out first, off the event loop.
      if (config.sharedState) await identitiesReady(Object.values(config.servers));
      const fleet = config.sharedState ? await nodeOnly.fleet?.() : undefined;
      if (fleet && config.sharedState) toolkit.fleet = fleet.joinFleet(config.sharedState, config, toolkit.guards, (event) => toolkit.events.emit(event));
      await startFromCatalogs(toolkit.connections, config, toolkit.fleet?.catalogs, (field, message) => toolkit.events.emit({ type: "warning", field, message }));
      await toolkit.connects.connectAll([...toolkit.connections.keys()]);
      checkNames(config, toolkit.connections, toolkit.pendingServers, toolkit.tools, toolkit.byName.values(), (found) => toolkit.events.emit({ type: "warning", ...found }));
    } catch (error) {
      await toolkit.close();
      throw error;
    }
    return toolkit;
  }

  /**
   * The tools each server listed, with when, for how long they hold and the era learnt, as
   * plain JSON-safe data: hand it to `McpToolkit.connect({ catalog })` to start without
   * listing. See docs/catalog.md. Each entry's `identity` is a slow hash
   * (scrypt, some 40 ms), worked out on a server's first export unless connecting needed it.
   */
  catalog(): ToolkitCatalog {
    return exportCatalog(this.connections, this.config);
  }

  /** The tools offered to the model now (an optional server's join them once it connects), and the two each of `prompts: { tools: true }` and `resources: { tools: true }` add. */
  override getTools(): McpTool[] {
    return [...this.tools, ...this.prompts.tools(), ...this.resources.tools()];
  }

  getTool(name: string): McpTool | undefined {
    return this.toolsByName.get(name) ?? this.getTools().find((t) => t.name === name);
  }

  /** The resolved policy of a tool (retry, timeouts, fallback, idempotent), by its exposed name. */
  policyOf(name: string): ResolvedPolicy | undefined {
    return this.byName.get(name)?.policy;
  }

  /** A server's circuit: `"closed"` (calls flow), `"open"` (calls fail fast) or `"half-open"` (one call tests it). */
  circuitState(serverName: string): BreakerState | undefined {
    return this.guards.get(serverName)?.breaker.state;
  }

  /** The protocol era a server's live connection speaks: `"modern"` (2026-07-28), `"legacy"` (the 2025 revisions), `undefined` while it is not connected. */
  protocolEra(serverName: string): ProtocolEra | undefined {
    return this.connections.get(serverName)?.era;
  }

  /** Servers that failed to connect and are waiting to be tried again. */
  get pendingServers(): string[] {
    return [...this.connects.pending];
  }

  /**
   * Every server's status by name: its state, protocol version, the exposed names of the tools it
   * offers, its last failure to connect (reason and redacted message) and how long its last
   * connect took. A `server_status` event tells each change.
   */
  status(): Record<string, ServerStatus> {
    return this.connects.status();
  }

  /** Does the toolkit trust this server's tool annotations (`trustAnnotations`)? */
  trustsAnnotations(serverName: string): boolean {
    return this.config.servers[serverName]?.trustAnnotations ?? DEFAULT_SERVER_OPTIONS.trustAnnotations;
  }

  /** Tries the waiting servers again now, without their backoff; their tools join `getTools()` once connected. */
  async refresh(): Promise<McpTool[]> {
    await this.connects.refresh();
    return [...this.tools];
  }

  /** Closes every connection the toolkit opened: no process, socket or timer is left. */
  async close(): Promise<void> {
    this.closed = true;
    this.fleet?.close();
    // Together: a background attempt under way ends only when its connection closes.
    await Promise.allSettled([this.connects.close(), ...[...this.connections.values()].map((c) => c.close())]);
  }

  /** Builds the tools of servers that just connected. */
  private join(servers: string[], late: boolean): void {
    if (this.closed) return;
    const built = this.buildTools(servers);
    // Tools of the first connect are not a change, unless a clash renamed some; a late server's are.
    for (const server of servers) {
      const own = built.filter((t) => t.server === server);
      const renamed = renamedOf(own);
      if (late ? own.length > 0 : renamed.length > 0) this.events.emit({ type: "tools_changed", serverName: server, added: own.map((t) => t.name), removed: [], ...(renamed.length > 0 ? { renamed } : {}) });
    }
  }

  /**
   * A server's tool list changed: its new tools join `getTools()`, and a tool it no longer lists
   * leaves it; a caller still holding that tool gets `tool_not_found` without a call.
   */
  private syncTools(server: string): void {
    if (this.closed || this.connects.pending.has(server)) return;
    const listed = new Set(this.connections.get(server)!.tools.map((t) => t.name));
    const removed: string[] = [];
    for (const runtime of this.caller.forgetUnlisted(server, listed)) {
      const name = runtime.identity.exposedName;
      if (this.byName.get(name) !== runtime) continue;
      // The tool object is kept: the agent may hold it, and it works again if the server relists the tool.
      const tool = this.toolsByName.get(name);
      if (tool) this.retired.set(runtime, tool);
      this.byName.delete(name);
      this.toolsByName.delete(name);
      removed.push(name);
    }
    this.tools = this.tools.filter((t) => this.toolsByName.get(t.name) === t);
    const revived = this.reviveTools(server, listed);
    const built = this.buildTools([server]);
    const added = [...revived, ...built.map((t) => t.name)];
    const renamed = renamedOf(built);
    if (added.length > 0 || removed.length > 0) this.events.emit({ type: "tools_changed", serverName: server, added, removed, ...(renamed.length > 0 ? { renamed } : {}) });
  }

  /** Tools the server lists again after dropping them: the same objects, under their old names. */
  private reviveTools(server: string, listed: ReadonlySet<string>): string[] {
    const back: string[] = [];
    for (const runtime of this.caller.revive(server, listed)) {
      const tool = this.retired.get(runtime);
      const name = runtime.identity.exposedName;
      this.retired.delete(runtime);
      if (!tool || this.toolsByName.has(name)) continue;
      this.byName.set(name, runtime);
      this.toolsByName.set(name, tool);
      this.tools.push(tool);
      back.push(name);
    }
    return back;
  }

  /** Builds the servers' tools not built yet (see toolBuilder.ts) and offers them; tools already built are kept. */
  private buildTools(newServers: string[]): BuiltTool[] {
    return this.builder.build(newServers, [...this.tools, ...this.resources.tools()], (made, runtime) => {
      this.byName.set(made.name, runtime);
      this.tools.push(made);
      this.toolsByName.set(made.name, made);
    });
  }

  /**
   * What `console.log(toolkit)` prints: each server's status and the tools offered, never the
   * configuration, connections or transports the toolkit keeps (their headers and env hold secrets).
   */
  [INSPECT](_depth: number, options: object, inspect?: (value: unknown, options: object) => string): string {
    // Another runtime's console may call this without Node's inspect: JSON says the same.
    return `McpToolkit ${typeof inspect === "function" ? inspect(this.toJSON(), options) : JSON.stringify(this.toJSON())}`;
  }

  /** What `JSON.stringify(toolkit)` gives: as `util.inspect` prints it, with no secret. */
  toJSON(): { servers: Record<string, ServerStatus>; tools: string[] } {
    return { servers: this.status(), tools: this.tools.map((t) => t.name) };
  }
}

import { BaseToolkit } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { validateConfig, type McpToolkitConfig, type ServerConfig } from "../config.js";
import { isServerFailure, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { ModelTextOptions } from "../errors/text.js";
import { safeEmit } from "../events.js";
import { Connection } from "../mcp/Connection.js";
import { convertResult, type ConvertedResult } from "../mcp/content.js";
import { CircuitBreaker } from "../policy/CircuitBreaker.js";
import { runTool, type ToolRuntime } from "../policy/pipeline.js";
import { resolvePolicy, type ResolvedPolicy, type ToolIdentity } from "../policy/resolve.js";
import { McpTool } from "./McpTool.js";

/** @default { name: "langchain-mcp-errors", version: "0.1.0" } */
export const DEFAULT_CLIENT_INFO = Object.freeze({ name: "langchain-mcp-errors", version: "0.1.0" });

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
  private readonly connections = new Map<string, Connection>();
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly runtimes = new Map<string, ToolRuntime>();
  private readonly byName = new Map<string, ToolRuntime>();
  private readonly pending = new Set<string>();
  private retrying: Promise<void> | undefined;
  private readonly secrets: string[];
  private closed = false;

  private constructor(private readonly config: McpToolkitConfig) {
    super();
    this.secrets = collectSecrets(config);
    const clientInfo = config.clientInfo ?? DEFAULT_CLIENT_INFO;
    for (const [name, server] of Object.entries(config.servers)) {
      this.connections.set(name, new Connection(name, server, clientInfo, config.onEvent));
      this.breakers.set(
        name,
        new CircuitBreaker(name, { ...config.breaker, ...server.breaker }, {
          onOpen: (error) => safeEmit(config.onEvent, { type: "circuit_open", serverName: name, ...(error ? { error } : {}) }),
          onClose: () => safeEmit(config.onEvent, { type: "circuit_close", serverName: name }),
        }),
      );
    }
  }

  /**
   * Validates the configuration, connects every server and lists their tools.
   * Rejects with an `McpConfigError` naming the field for invalid configuration, and with
   * the classified `McpToolError` of a server that fails to connect (unless
   * `onConnectionError: "skip"`).
   */
  static async connect(config: McpToolkitConfig): Promise<McpToolkit> {
    validateConfig(config);
    const toolkit = new McpToolkit(config);
    try {
      await toolkit.connectAll([...toolkit.connections.keys()], config.onConnectionError ?? "throw");
    } catch (error) {
      await toolkit.close();
      throw error;
    }
    return toolkit;
  }

  /** The tools of every connected server. A skipped server is tried again in the background. */
  override getTools(): McpTool[] {
    // A failure here is already reported as an `error` event; the skipped server stays pending.
    if (this.pending.size > 0) this.refresh().catch(() => undefined);
    return [...this.tools];
  }

  getTool(name: string): McpTool | undefined {
    return this.tools.find((t) => t.name === name);
  }

  /** The resolved policy of a tool (retry, timeouts, fallback, idempotent), by its exposed name. */
  policyOf(name: string): ResolvedPolicy | undefined {
    return this.byName.get(name)?.policy;
  }

  /** Servers that failed to connect and are waiting to be tried again. */
  get pendingServers(): string[] {
    return [...this.pending];
  }

  /** Tries the skipped servers again now; their tools join `getTools()` once connected. */
  async refresh(): Promise<McpTool[]> {
    if (this.pending.size > 0 && !this.closed) {
      this.retrying ??= this.connectAll([...this.pending], "skip").finally(() => {
        this.retrying = undefined;
      });
      await this.retrying;
    }
    return [...this.tools];
  }

  /** Closes every connection the toolkit opened: no process, socket or timer is left. */
  async close(): Promise<void> {
    this.closed = true;
    await this.retrying?.catch(() => undefined);
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()));
  }

  private async connectAll(names: string[], onError: "throw" | "skip"): Promise<void> {
    const results = await Promise.allSettled(names.map((name) => this.connections.get(name)!.lease()));
    const failures: McpToolError[] = [];
    results.forEach((r, i) => {
      const name = names[i]!;
      if (r.status === "fulfilled") {
        this.pending.delete(name);
        return;
      }
      const error = normalize(r.reason, { serverName: name });
      failures.push(error);
      this.pending.add(name);
      safeEmit(this.config.onEvent, { type: "error", serverName: name, error });
    });
    if (onError === "throw" && failures.length > 0) throw failures[0];
    this.buildTools(names.filter((n) => !this.pending.has(n)));
  }

  /** Names tools (prefixing clashes) and builds each tool's runtime and policy once. */
  private buildTools(newServers: string[]): void {
    const incoming: { server: string; tool: Tool }[] = [];
    for (const server of newServers) {
      if (this.config.servers[server]?.exposeTools === false) {
        for (const tool of this.connections.get(server)!.tools) this.runtimeFor(server, tool, tool.name);
        continue;
      }
      for (const tool of this.connections.get(server)!.tools) incoming.push({ server, tool });
    }
    const taken = new Set(this.tools.map((t) => t.name));
    const counts = new Map<string, number>();
    for (const { tool } of incoming) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
    for (const { server, tool } of incoming) {
      const clash = (counts.get(tool.name) ?? 0) > 1 || taken.has(safeName(tool.name));
      const name = this.config.prefixToolNames || clash ? safeName(`${server}__${tool.name}`) : safeName(tool.name);
      taken.add(name);
      this.tools.push(this.makeTool(server, tool, name));
    }
  }

  private runtimeFor(server: string, tool: Tool, exposedName: string): ToolRuntime {
    const key = `${server}\u0000${tool.name}`;
    const existing = this.runtimes.get(key);
    if (existing) return existing;
    const identity: ToolIdentity = { exposedName, serverName: server, mcpName: tool.name, ...(tool.annotations ? { annotations: tool.annotations } : {}) };
    const serverConfig = this.config.servers[server] as ServerConfig;
    const runtime: ToolRuntime = {
      identity,
      policy: resolvePolicy(identity, this.config),
      connection: () => this.connections.get(server)!,
      breaker: () => this.breakers.get(server)!,
      ...(serverConfig.errorCodes ? { customCodes: serverConfig.errorCodes } : {}),
      ...(this.config.onEvent ? { onEvent: this.config.onEvent } : {}),
    };
    this.runtimes.set(key, runtime);
    return runtime;
  }

  private makeTool(server: string, tool: Tool, name: string): McpTool {
    const runtime = this.runtimeFor(server, tool, name);
    this.byName.set(name, runtime);
    return new McpTool({
      name,
      description: tool.description ?? tool.title ?? tool.name,
      schema: (tool.inputSchema ?? { type: "object", properties: {} }) as JSONSchema,
      metadata: {
        serverName: server,
        mcpToolName: tool.name,
        idempotent: runtime.policy.idempotent,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      execute: async (args, config) => {
        const { result, fallback } = await this.execute(runtime, args, config?.signal);
        return withFallbackNote(convertResult(result), fallback);
      },
      errorMode: this.config.errors?.mode ?? "return",
      text: () => this.textOptions(),
    });
  }

  private textOptions(): ModelTextOptions {
    const errors = this.config.errors ?? {};
    return {
      secrets: this.secrets,
      ...(errors.redact ? { patterns: errors.redact } : {}),
      ...(errors.maxLength !== undefined ? { maxLength: errors.maxLength } : {}),
    };
  }

  private async execute(
    runtime: ToolRuntime,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<{ result: CallToolResult; fallback?: { from: string; reason: string } }> {
    const { identity, policy } = runtime;
    const emit = this.config.onEvent;
    try {
      return { result: await runTool(runtime, args, signal) };
    } catch (thrown) {
      const error = normalize(thrown, { toolName: identity.exposedName, serverName: identity.serverName });
      const fallback = policy.fallback;
      if (fallback === undefined || !isServerFailure(error) || signal?.aborted) {
        safeEmit(emit, { type: "error", toolName: identity.exposedName, serverName: identity.serverName, attempt: error.attempts, error });
        throw error;
      }
      if ((await this.config.beforeFallback?.(identity.exposedName, args, error)) === "skip") {
        safeEmit(emit, { type: "error", toolName: identity.exposedName, serverName: identity.serverName, attempt: error.attempts, error });
        throw error;
      }
      const from = typeof fallback === "function" ? "function" : `server '${fallback}'`;
      try {
        const result = await this.runFallback(fallback, runtime, args, error, signal);
        safeEmit(emit, { type: "fallback", toolName: identity.exposedName, serverName: identity.serverName, error, fallback: typeof fallback === "function" ? "function" : fallback });
        return { result, fallback: { from, reason: error.reason } };
      } catch (fallbackError) {
        const f = normalize(fallbackError);
        const combined = error.with({ message: `${error.message} The fallback ${from} also failed (${f.reason}): ${f.message}` });
        safeEmit(emit, { type: "error", toolName: identity.exposedName, serverName: identity.serverName, attempt: combined.attempts, error: combined });
        throw combined;
      }
    }
  }

  private async runFallback(
    fallback: NonNullable<ToolRuntime["policy"]["fallback"]>,
    runtime: ToolRuntime,
    args: Record<string, unknown>,
    error: McpToolError,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult> {
    if (typeof fallback === "function") {
      const out = await fallback(args, error);
      return typeof out === "string" ? { content: [{ type: "text", text: out }] } : out;
    }
    const connection = this.connections.get(fallback)!;
    // A fallback server skipped at connect is tried now; if it is down, that is the error to report.
    if (connection.tools.length === 0) await connection.lease(signal);
    const tool = connection.tools.find((t) => t.name === runtime.identity.mcpName);
    if (!tool) throw McpToolError.of("tool_not_found", `Server '${fallback}' has no tool '${runtime.identity.mcpName}'.`, { serverName: fallback });
    // The fallback runs under its own server's policy and breaker, and never falls back again.
    return runTool(this.runtimeFor(fallback, tool, runtime.identity.exposedName), args, signal);
  }
}

/** Tells the model, first thing, that a fallback answered and why. */
function withFallbackNote(converted: ConvertedResult, fallback: { from: string; reason: string } | undefined): [ConvertedResult["content"], unknown] {
  if (!fallback) return [converted.content, converted.artifact];
  const note = `[The primary server failed (${fallback.reason}); this answer came from the fallback ${fallback.from}.]`;
  const content = typeof converted.content === "string" ? `${note}\n${converted.content}` : [{ type: "text" as const, text: note }, ...converted.content];
  return [content, { ...converted.artifact, fallback }];
}

/** LangChain and model APIs accept `[A-Za-z0-9_-]{1,64}` as a tool name. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** Every header and env value the configuration sends; none may reach a model. */
function collectSecrets(config: McpToolkitConfig): string[] {
  const out: string[] = [];
  for (const server of Object.values(config.servers)) {
    if ("headers" in server && server.headers) out.push(...Object.values(server.headers));
    if ("env" in server && server.env) out.push(...Object.values(server.env));
  }
  // Header values like "Bearer abc" leak their token alone too.
  for (const v of [...out]) {
    if (/\s/.test(v)) out.push(...v.split(/\s+/).filter((p) => p.length >= 8));
  }
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

/** Options for {@link createMcpTools}. */
export type CreateMcpToolsOptions = Omit<McpToolkitConfig, "servers" | "onConnectionError"> & {
  /** The server's name in tool metadata, events and `tools` keys. @default "mcp" */
  serverName?: string;
  server?: Omit<ServerConfig, "transport">;
};

/** The toolkit's conversion for a client you already connected; the client stays yours to close. */
export async function createMcpTools(client: Client, options: CreateMcpToolsOptions = {}): Promise<McpTool[]> {
  const { serverName = "mcp", server, ...rest } = options;
  const toolkit = await McpToolkit.connect({ ...rest, servers: { [serverName]: { ...server, client } } });
  return toolkit.getTools();
}

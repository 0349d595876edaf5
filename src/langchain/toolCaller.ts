/**
 * How a toolkit calls its tools: each tool's runtime (its resolved policy and where it is
 * called), and each call through the pipeline with the server's guards, the tool's fallback
 * and the toolkit's events and telemetry. McpToolkit decides which tools exist; this calls them.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MAX_RESULT_LENGTH, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import { McpToolError } from "../errors/McpToolError.js";
import type { Redactor } from "../errors/redactor.js";
import type { EventHub } from "../eventHub.js";
import type { ProgressEvent } from "../events.js";
import type { Progress } from "../mcp/session/clients.js";
import type { Connection } from "../mcp/session/Connection.js";
import { convertResult, withFallbackNote } from "../mcp/call/content.js";
import type { CallContext } from "../policy/abort.js";
import { begin } from "../policy/chain.js";
import { functionFallback, type Fallback, type WithFallback } from "../policy/FallbackPolicy.js";
import { runPipeline, type PipelineSpec, type ToolkitGuards } from "../policy/pipeline.js";
import { CallContract } from "../mcp/call/CallContract.js";
import { resolvePolicy, type ResolvedPolicy, type ToolIdentity } from "../policy/resolve.js";
import { chaosPlan, type ChaosPlan, type ChaosTransport } from "../policy/chaos.js";
import { telemetryOn } from "../telemetry/otel.js";
import type { ToolkitTelemetry } from "../telemetry/ToolkitTelemetry.js";
import type { ToolExecutorFactory } from "./McpTool.js";
import { currentToolRun, reportProgress, type ToolRun } from "./runEvents.js";
import { idempotencyKeyOf } from "../errors/idempotency.js";
import { keyPropertyOf } from "./idempotencyKey.js";
import { SharedCalls } from "./sharedCalls.js";
import { hedgedCall } from "./hedgedCall.js";
import { ToolCall, type FirstPlan, type ToolRuntime } from "./toolCall.js";

/** What the caller shares with its toolkit. */
export interface ToolCallerParts {
  config: McpToolkitConfig;
  connections: ReadonlyMap<string, Connection>;
  guards: ReadonlyMap<string, ToolkitGuards>;
  events: EventHub;
  telemetry: ToolkitTelemetry;
  /** Removes the configuration's secrets from a tool's results, unless its policy says `redactResults: false`. */
  redactor?: Redactor;
}

export class ToolCaller {
  /** Every tool's runtime, by server and MCP name, exposed or not (a fallback may call a hidden one). */
  private readonly runtimes = new Map<string, ToolRuntime>();
  /** The shared requests in flight of the tools that `coalesce`. */
  private readonly shared: SharedCalls;

  constructor(readonly parts: ToolCallerParts) {
    this.shared = new SharedCalls(parts.events);
  }

  /** Is this server's tool known already? */
  has(server: string, mcpName: string): boolean {
    return this.runtimes.has(`${server}\u0000${mcpName}`);
  }

  /** The tool's runtime, made (and its policy resolved) on first use. */
  runtimeFor(server: string, tool: Tool, exposedName: string): ToolRuntime {
    const key = `${server}\u0000${tool.name}`;
    const existing = this.runtimes.get(key);
    if (existing) return existing;
    const { config, connections, events } = this.parts;
    const identity: ToolIdentity = { exposedName, serverName: server, mcpName: tool.name, ...(tool.annotations ? { annotations: tool.annotations } : {}) };
    const serverConfig = config.servers[server] as ServerConfig;
    const policy = resolvePolicy(identity, config);
    const keyProperty = keyPropertyOf(tool, policy.idempotencyKey);
    const runtime: ToolRuntime = {
      identity,
      policy,
      // The connection object lives as long as the toolkit; it resolves the live client per call.
      target: {
        connection: connections.get(server)!,
        mcpName: tool.name,
        ...(serverConfig.errorCodes ? { customCodes: serverConfig.errorCodes } : {}),
        // Our timers govern; the SDK's is a backstop far behind them.
        sdkTimeoutMs: Math.max(policy.timeoutMs, policy.maxTotalTimeoutMs ?? 0) + 60_000,
        resetTimeoutOnProgress: policy.resetTimeoutOnProgress,
        ...chaosOf(policy, serverConfig),
      },
      context: { toolName: exposedName, mcpName: tool.name, serverName: server },
      onTaskStatus: (status, message, taskId) => events.emit({ type: "task", toolName: exposedName, serverName: server, taskId, status, ...(message ? { message } : {}) }),
      ...(config.beforeToolCall || config.afterToolCall
        ? { intercept: { ...(config.beforeToolCall ? { before: config.beforeToolCall } : {}), ...(config.afterToolCall ? { after: config.afterToolCall } : {}) } }
        : {}),
      streamProgress: config.streamProgress === true,
      hearsProgress: () => events.listens("progress") || currentToolRun() !== undefined || telemetryOn(),
      onProgress: (progress, run) => this.progressed(exposedName, server, progress, run),
      ...(keyProperty !== undefined ? { keyProperty } : {}),
    };
    this.runtimes.set(key, runtime);
    return runtime;
  }

  /**
   * Marks the server's tools it no longer lists removed, so that a caller still holding one gets
   * `tool_not_found`, unsent, unless the server lists it again. Returns the runtimes newly removed.
   */
  forgetUnlisted(server: string, listed: ReadonlySet<string>): ToolRuntime[] {
    const gone: ToolRuntime[] = [];
    for (const runtime of this.runtimes.values()) {
      if (runtime.removed || runtime.identity.serverName !== server || listed.has(runtime.identity.mcpName)) continue;
      // Kept, marked: the tool object the agent holds comes back to life if the server lists it again.
      runtime.removed = true;
      gone.push(runtime);
    }
    return gone;
  }

  /** The runtimes of tools the server had stopped listing and lists again: alive from now on. */
  revive(server: string, listed: ReadonlySet<string>): ToolRuntime[] {
    const back: ToolRuntime[] = [];
    for (const runtime of this.runtimes.values()) {
      if (!runtime.removed || runtime.identity.serverName !== server || !listed.has(runtime.identity.mcpName)) continue;
      runtime.removed = false;
      back.push(runtime);
    }
    return back;
  }

  /**
   * One progress notification of a call, reported where it is heard: as a `progress` event, in
   * the call's tool run (a custom event, LangGraph's custom stream) and on its span. Runs in the
   * attempt's async context (see ToolCall), so the run and the span are the call's own.
   */
  private progressed(toolName: string, serverName: string, { progress, total, message }: Progress, call?: ToolRun): void {
    const toolCallId = (currentToolRun() ?? call)?.toolCallId;
    const event: ProgressEvent = {
      type: "progress",
      toolName,
      serverName,
      progress,
      ...(total !== undefined ? { total } : {}),
      // The server's words go to the run's callbacks and a graph's stream as well as to the hub: redacted here.
      ...(typeof message === "string" ? { message: this.parts.redactor ? this.parts.redactor.text(message) : message } : {}),
      ...(toolCallId ? { toolCallId } : {}),
    };
    this.parts.events.emit(event);
    reportProgress(event, call);
    this.parts.telemetry.progress(event);
  }

  /**
   * What an McpTool runs for this tool; its two handlers are made once per tool. A result that
   * cannot become the model's content (invalid_result) fails through `failed` too. Chained, not
   * awaited: see policy/chain.ts.
   */
  executor(runtime: ToolRuntime): ToolExecutorFactory {
    return (failed) => {
      const redactor = runtime.policy.redactResults ? this.parts.redactor : undefined;
      const replied = (out: WithFallback<CallToolResult>): [unknown, unknown] => {
        try {
          const value = redactor ? redactor.result(out.value) : out.value;
          return this.toolReply(value === out.value ? out : { ...out, value });
        } catch (error) {
          return failed(error);
        }
      };
      return (args, config) => begin(() => this.call(runtime, args, config?.signal, false, config)).then(replied, failed);
    };
  }

  /** A call's result as the model reads it, with the artifact. Made once, not per call. */
  private readonly toolReply = ({ value, fallback }: WithFallback<CallToolResult>): [unknown, unknown] =>
    withFallbackNote(convertResult(value, this.parts.config.maxResultLength ?? DEFAULT_MAX_RESULT_LENGTH), fallback);

  /**
   * One call of a tool: the pipeline, with the server's breaker, the tool's fallback, and events.
   * Its contract (its deadline, how it is keyed) is made here, once; a fallback server's call runs
   * inside its primary's (`outer`): never past its deadline, and with its key.
   */
  private call(runtime: ToolRuntime, args: Record<string, unknown>, signal: AbortSignal | undefined, nested = false, config?: RunnableConfig, outer?: CallContract, key?: string): Promise<WithFallback<CallToolResult>> {
    const traced = telemetryOn();
    // Telemetry tracks a call by its context object, so a traced call needs one of its own;
    // untraced, nothing keys on it, and the tool's own serves every call.
    const context = traced ? { ...runtime.context } : runtime.context;
    const { policy, keyProperty } = runtime;
    const contract = new CallContract(policy, { property: keyProperty, policy: policy.idempotencyKey }, outer, key);
    const spec = this.specFor(runtime, args, context, traced, nested, contract, config);
    const start = (under: AbortSignal | undefined, planned?: FirstPlan) =>
      policy.hedge
        ? // A hedged read (hedgedCall.ts): each attempt its own ToolCall, under its own signal; only the first goes with the plan.
          hedgedCall(runtime, spec, under, (mine, i) => new ToolCall(runtime, args, mine, context, contract, config, i === 0 ? planned : undefined), contract.deadline)
        : runPipeline(spec, under, new ToolCall(runtime, args, under, context, contract, config, planned), contract.deadline);
    if (nested || !policy.coalesce) return start(signal);
    // A shared read (sharedCalls.ts): the whole call runs once, under its own signal, for every caller of the same request.
    const planner = runtime.intercept?.before ? new ToolCall(runtime, args, signal, context, contract, config) : undefined;
    return this.shared.call(runtime.identity, args, signal, context, planner, start);
  }

  /**
   * The pipeline spec of a call: the tool's own, shared by its plain calls, or for a call that
   * has a fallback, is traced, or is a fallback's own call, a copy with those added.
   */
  private specFor(runtime: ToolRuntime, args: Record<string, unknown>, context: CallContext, traced: boolean, nested: boolean, contract: CallContract, config: RunnableConfig | undefined): PipelineSpec<CallToolResult, ToolCall> {
    const shared = (runtime.spec ??= {
      context: runtime.context,
      policy: runtime.policy,
      attempt: ToolCall.attempt,
      guards: this.parts.guards.get(runtime.identity.serverName)!,
      events: this.parts.events,
    });
    // A fallback's own call runs under its server's policy and breaker, and never falls back again.
    const fallback = nested ? undefined : this.fallbackFor(runtime, args, contract, config);
    if (!traced && !nested && !fallback) return shared;
    return { ...shared, context, ...(traced ? { instrument: this.parts.telemetry } : {}), ...(nested ? { report: false } : {}), ...(fallback ? { fallback } : {}) };
  }

  private fallbackFor(runtime: ToolRuntime, args: Record<string, unknown>, contract: CallContract, config: RunnableConfig | undefined): Fallback<CallToolResult> | undefined {
    const fallback = runtime.policy.fallback;
    if (fallback === undefined) return undefined;
    const hook = this.parts.config.beforeFallback;
    const before = hook ? (error: McpToolError) => hook(runtime.identity.exposedName, args, error) : undefined;
    if (typeof fallback === "function") {
      return functionFallback(fallback, args, (out): CallToolResult => (typeof out === "string" ? { content: [{ type: "text", text: out }] } : out), before, runtime.policy.timeoutMs);
    }
    return {
      name: fallback,
      from: `server '${fallback}'`,
      run: (error, signal) => this.callFallbackServer(fallback, runtime, args, signal, contract, config, idempotencyKeyOf(error)),
      ...(before ? { before } : {}),
    };
  }

  /**
   * The fallback server's call. It carries the primary's idempotency key, if it had one: a replica
   * sharing the primary's store answers with the first result, and any other server sees a new key.
   * It acts for the same caller: its `beforeToolCall` sees the call's LangChain config (a user's
   * id in `configurable`), so a user's own `Authorization` reaches the fallback too; without it the
   * fallback's request went under the server's own credentials.
   */
  private async callFallbackServer(server: string, runtime: ToolRuntime, args: Record<string, unknown>, signal: AbortSignal | undefined, outer: CallContract, config: RunnableConfig | undefined, key?: string): Promise<CallToolResult> {
    const connection = this.parts.connections.get(server)!;
    // A fallback server skipped at connect is tried now; if it is down, that is the error to report.
    if (connection.tools.length === 0) await connection.lease(signal);
    const tool = connection.tools.find((t) => t.name === runtime.identity.mcpName);
    if (!tool) throw McpToolError.of("tool_not_found", `Server '${server}' has no tool '${runtime.identity.mcpName}'.`, { serverName: server });
    const { value } = await this.call(this.runtimeFor(server, tool, runtime.identity.exposedName), args, signal, true, config, outer, key);
    return value;
  }
}

/** The tool's `chaos` plan, with the faults its server's transport can carry. */
function chaosOf(policy: ResolvedPolicy, server: ServerConfig): { chaos?: ChaosPlan } {
  if (!policy.chaos) return {};
  const plan = chaosPlan(policy.chaos, "client" in server && server.client !== undefined ? "client" : (server as { transport?: ChaosTransport }).transport ?? "http");
  return plan ? { chaos: plan } : {};
}

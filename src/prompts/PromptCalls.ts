/**
 * A server's prompt requests, each one call through the same pipeline as a tool call (its
 * contract and deadline, timeout, retries, the server's breaker, bulkhead, throttle and
 * Retry-After gate, events and telemetry), sent the way a tool call's attempt is (see
 * mcp/call/requestOnce.ts). `prompts/get` and `prompts/list` only read, by protocol: they are
 * retried after an unknown outcome without trusting annotations. Their failures are the
 * pipeline's classified McpToolErrors, unredacted: the caller redacts what leaves the library.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GetPromptResult, ListPromptsResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolkitConfig } from "../config/index.js";
import { McpToolError } from "../errors/McpToolError.js";
import type { EventHub } from "../eventHub.js";
import { CallContract } from "../mcp/call/CallContract.js";
import { requestOnce, type RequestSend } from "../mcp/call/requestOnce.js";
import { isV2Client } from "../mcp/session/clients.js";
import type { Connection } from "../mcp/session/Connection.js";
import { runPipeline, type PipelineSpec, type ToolkitGuards } from "../policy/pipeline.js";
import { resolvePolicy, type ResolvedPolicy } from "../policy/resolve.js";
import { telemetryOn } from "../telemetry/otel.js";
import type { ToolkitTelemetry } from "../telemetry/ToolkitTelemetry.js";

/** What the prompt calls share with their toolkit. */
export interface PromptCallParts {
  config: McpToolkitConfig;
  connections: ReadonlyMap<string, Connection>;
  guards: ReadonlyMap<string, ToolkitGuards>;
  events: EventHub;
  telemetry: ToolkitTelemetry;
}

/** The most pages one listing reads: a server whose cursors never end fails the listing instead of looping. */
const MAX_PAGES = 1000;

export class PromptCalls {
  /** Each server's policy for its prompt requests, resolved on first use. */
  private readonly policies = new Map<string, ResolvedPolicy>();

  constructor(private readonly parts: PromptCallParts) {}

  /** The server names of the toolkit, in configuration order. */
  get servers(): string[] {
    return [...this.parts.connections.keys()];
  }

  /** One prompts/get: the prompt's messages, as the server sent them. */
  get(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
    return this.run(server, "prompts/get", name, signal, (client, options, meta) => {
      const params = { name, arguments: args, ...(meta ? { _meta: meta } : {}) };
      return (isV2Client(client) ? client.getPrompt(params, options as V2Options) : (client as V1Client).getPrompt(params, options)) as Promise<GetPromptResult>;
    });
  }

  /** Every prompt the server lists, every page read (each page one call through the pipeline). */
  async list(server: string, signal?: AbortSignal): Promise<ListPromptsResult["prompts"]> {
    const prompts: ListPromptsResult["prompts"] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.listPage(server, cursor, signal);
      prompts.push(...result.prompts);
      cursor = result.nextCursor;
      if (cursor === undefined) return prompts;
      // A cursor met before would list the same pages again, forever.
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
    throw McpToolError.of("invalid_result", `Server '${server}' kept paging its prompt list (${prompts.length} prompts read, its cursors repeat or never end).`, {
      serverName: server,
      toolName: "prompts/list",
      outcome: "executed",
    });
  }

  private listPage(server: string, cursor: string | undefined, signal: AbortSignal | undefined): Promise<ListPromptsResult> {
    return this.run(server, "prompts/list", undefined, signal, (client, options, meta) => {
      const params = { ...(cursor !== undefined ? { cursor } : {}), ...(meta ? { _meta: meta } : {}) };
      // v2's listPrompts() walks the pages itself and answers [] for a server without prompts: one page, asked for as is.
      if (isV2Client(client)) return client.request({ method: "prompts/list", params }, options as V2Options) as Promise<ListPromptsResult>;
      return (client as V1Client).listPrompts(params, options);
    });
  }

  /**
   * One request through the pipeline. A server that declared no prompts is refused before
   * anything is sent (`capability_missing`); one that declared them and answers -32601 is read
   * the same (errors/classify/prompts.ts).
   */
  private run<T>(server: string, method: "prompts/get" | "prompts/list", name: string | undefined, signal: AbortSignal | undefined, send: RequestSend<T>): Promise<T> {
    const connection = this.parts.connections.get(server);
    if (!connection) return Promise.reject(noSuchServer(server, this.servers));
    const policy = this.policyOf(server);
    const context = { toolName: name ?? method, ...(name !== undefined ? { mcpName: name } : {}), serverName: server };
    const contract = new CallContract(policy, {});
    const customCodes = this.parts.config.servers[server]?.errorCodes;
    const call = {
      target: { connection, mcpName: name ?? method, method, sdkTimeoutMs: policy.timeoutMs + 60_000, resetTimeoutOnProgress: false, ...(customCodes ? { customCodes } : {}) },
      context,
      contract,
      callerSignal: signal,
    };
    const offered: RequestSend<T> = (client, options, meta) => {
      if (!client.getServerCapabilities()?.prompts) throw McpToolError.of("capability_missing", `Server '${server}' offers no prompts.`, { serverName: server, outcome: "not_sent" });
      return send(client, options, meta);
    };
    const spec: PipelineSpec<T> = {
      context,
      policy,
      attempt: (scope, n, meta) => requestOnce(call, scope, n, meta, offered),
      guards: this.parts.guards.get(server)!,
      events: this.parts.events,
      ...(telemetryOn() ? { instrument: this.parts.telemetry } : {}),
    };
    return runPipeline(spec, signal, undefined, contract.deadline).then((out) => out.value);
  }

  /**
   * The server's policy (its timeout, retry, deadline; no `tools` key applies to a prompt, and no
   * fallback: another server's prompt of the same name is another prompt), read-only by protocol.
   */
  private policyOf(server: string): ResolvedPolicy {
    let policy = this.policies.get(server);
    if (!policy) {
      const { tools: _tools, ...config } = this.parts.config;
      const resolved = resolvePolicy({ exposedName: "", serverName: server, mcpName: "" }, config as McpToolkitConfig);
      const { fallback: _fallback, ...rest } = resolved;
      policy = { ...rest, idempotent: true, readOnly: true, coalesce: false };
      this.policies.set(server, policy);
    }
    return policy;
  }
}

type V2Options = Parameters<V2Client["getPrompt"]>[1];

/** A server name the toolkit does not have: the caller's mistake, nothing sent. */
export function noSuchServer(server: string, servers: string[]): McpToolError {
  return McpToolError.of("invalid_arguments", `No server named '${server}' (servers: ${servers.join(", ")}).`, { toolName: "prompts", outcome: "not_sent" });
}

/**
 * A resources/* request as one call through the same pipeline as a tool call: its contract (the
 * deadline told to the server), the timeout, retries, the server's breaker, bulkhead, Retry-After
 * gate and budget, events and telemetry. A read is read-only by protocol, so its policy is
 * idempotent whatever the server's annotations say: it is retried after an unknown outcome (a
 * reset mid-answer), which no tool is without trusted annotations or configuration.
 */
import type { ToolCallerParts } from "../langchain/toolCaller.js";
import { McpToolError } from "../errors/McpToolError.js";
import { CallContract } from "../mcp/call/CallContract.js";
import { requestOnce, type RequestCall, type RequestSend } from "../mcp/call/requestOnce.js";
import type { AnyClient } from "../mcp/session/clients.js";
import type { CallContext } from "../policy/abort.js";
import type { HedgeGroup } from "../policy/Hedger.js";
import { runPipeline, type PipelineSpec } from "../policy/pipeline.js";
import { matchingPolicies, resolvePolicy, type ResolvedPolicy } from "../policy/resolve.js";
import { HedgeOptionsSchema, type HedgeOptions } from "../config/toolPolicy.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";
import { telemetryOn } from "../telemetry/otel.js";

/** What one call's attempts are given: the request to send, and what it sends. */
interface RequestInput {
  call: RequestCall;
  send: RequestSend<unknown>;
}

/** Who a request is for, as events, spans and errors name it. */
export interface RequestWho {
  server: string;
  /** The MCP method: `resources/read`, `resources/list`, `resources/templates/list`. */
  method: string;
  /** The name errors and events carry: the model's tool (`read_mcp_resource`), else the method. */
  toolName: string;
}

/** One attempt of a hedged read: the group's contract (its deadline), and the read it is an attempt of. */
export interface HedgedAttempt {
  within: CallContract;
  call: HedgeGroup;
}

const attempt = (scope: AttemptScope, n: number, meta: Record<string, string> | undefined, input: RequestInput): Promise<unknown> => requestOnce(input.call, scope, n, meta, input.send);

export class ResourceRequests {
  /** Each server's policy for each method and name, resolved once. */
  private readonly policies = new Map<string, ResolvedPolicy>();

  constructor(private readonly parts: () => ToolCallerParts) {}

  /** The servers configured, by name. */
  get servers(): string[] {
    return Object.keys(this.parts().config.servers);
  }

  /**
   * The policy of a server's resource requests: its timeouts, retries and deadline as a tool of
   * that server would have them (a `tools` key may name `<server>/resources/read`), made
   * idempotent and read-only, never answered by a fallback. Identical reads in flight share one
   * request unless such a key says `coalesce: false` (see McpResources.readResult).
   */
  policyFor(who: RequestWho): ResolvedPolicy {
    const key = `${who.server}\u0000${who.method}\u0000${who.toolName}`;
    let policy = this.policies.get(key);
    if (!policy) {
      const identity = { exposedName: who.toolName, serverName: who.server, mcpName: who.method };
      const { config } = this.parts();
      const { fallback: _none, ...resolved } = resolvePolicy(identity, config);
      const layers = matchingPolicies(config.tools, identity);
      const coalesce = layers.reduce<boolean>((on, layer) => layer.coalesce ?? on, true);
      const hedge = layers.reduce<HedgeOptions | undefined>((set, layer) => layer.hedge ?? set, undefined);
      policy = { ...resolved, idempotent: true, readOnly: true, coalesce, ...(hedge ? { hedge: HedgeOptionsSchema.parse(hedge) as Required<HedgeOptions> } : {}) };
      this.policies.set(key, policy);
    }
    return policy;
  }

  /**
   * Sends one request through the pipeline. `send` runs on the live client of each attempt; a
   * server that declared no resources capability is refused unsent, naming it.
   */
  run<T>(who: RequestWho, send: (client: AnyClient, options: Parameters<RequestSend<T>>[1], meta: Record<string, unknown> | undefined) => Promise<T>, signal?: AbortSignal, hedged?: HedgedAttempt): Promise<T> {
    const parts = this.parts();
    const connection = parts.connections.get(who.server);
    if (!connection) return Promise.reject(unknownServer(who, this.servers));
    const resolved = this.policyFor(who);
    // A hedged read's attempt (within its group's contract) is a single attempt: the hedges are its repeats.
    const policy = hedged ? { ...resolved, retry: { ...resolved.retry, retries: 0 } } : resolved;
    const context: CallContext = { toolName: who.toolName, mcpName: who.method, serverName: who.server };
    const contract = new CallContract(policy, { policy: false }, hedged?.within);
    const call: RequestCall = {
      target: { connection, mcpName: who.method, method: who.method, sdkTimeoutMs: Math.max(policy.timeoutMs, policy.maxTotalTimeoutMs ?? 0) + 60_000, resetTimeoutOnProgress: false },
      context,
      contract,
      callerSignal: signal,
    };
    const checked: RequestSend<unknown> = (client, options, meta) => {
      if (!client.getServerCapabilities()?.resources) throw noResources(who);
      return send(client, options, meta);
    };
    const spec: PipelineSpec<unknown, RequestInput> = {
      context,
      policy,
      attempt,
      guards: parts.guards.get(who.server)!,
      ...(hedged ? { hedged: hedged.call } : {}),
      events: parts.events,
      ...(telemetryOn() ? { instrument: parts.telemetry } : {}),
    };
    return runPipeline(spec, signal, { call, send: checked }, contract.deadline).then((out) => out.value as T);
  }
}

/** A server that declared no resources capability: nothing was sent. */
export function noResources(who: RequestWho): McpToolError {
  return McpToolError.of("capability_missing", `Server '${who.server}' offers no resources (it declared no resources capability).`, {
    serverName: who.server,
    toolName: who.toolName,
    outcome: "not_sent",
    data: { method: who.method },
  });
}

function unknownServer(who: RequestWho, servers: readonly string[]): McpToolError {
  return McpToolError.of("invalid_arguments", `No server is named '${who.server}' (servers: ${servers.join(", ")}).`, { serverName: who.server, toolName: who.toolName, outcome: "not_sent" });
}

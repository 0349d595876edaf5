import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fromResult } from "../errors/fromResult.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize, type CustomCodeTable } from "../errors/normalize.js";
import { safeEmit, type McpEventListener } from "../events.js";
import { StreamLostError, type Connection, type Lease } from "../mcp/Connection.js";
import type { CircuitBreaker } from "./CircuitBreaker.js";
import type { ResolvedPolicy, ToolIdentity } from "./resolve.js";
import { runWithRetry } from "./RetryPolicy.js";
import { AttemptScope } from "./timeout.js";

/** Everything one tool needs at call time; the connection is looked up per call, never captured. */
export interface ToolRuntime {
  identity: ToolIdentity;
  policy: ResolvedPolicy;
  connection: () => Connection;
  breaker: () => CircuitBreaker;
  customCodes?: CustomCodeTable;
  onEvent?: McpEventListener;
}

/** Reasons after which the current client is dropped so the next attempt reconnects. */
const RECONNECT_REASONS = new Set(["connection_closed", "not_connected", "session_expired", "connection_reset", "stream_error"]);

/**
 * Over HTTP these lose one request, not the session (a 404 says when the session is gone):
 * dropping the client for them would fail every other call in flight on it.
 */
const PER_REQUEST_REASONS = new Set(["connection_reset", "stream_error"]);

/** The SDK's next JSON-RPC id; read just before a request so a broken stream can be tied to it. */
function nextRequestId(lease: Lease): number | undefined {
  const id = (lease.client as unknown as { _requestMessageId?: unknown })._requestMessageId;
  return typeof id === "number" ? id : undefined;
}

/**
 * One call through the pipeline: circuit breaker → retry → timeout → connection → server.
 * Resolves with the server's successful result; rejects with an McpToolError.
 */
export async function runTool(runtime: ToolRuntime, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
  const { identity, policy } = runtime;
  const context = { toolName: identity.exposedName, serverName: identity.serverName };
  safeEmit(runtime.onEvent, { type: "call", ...context });

  const attempt = async (attemptNumber: number): Promise<CallToolResult> => {
    const connection = runtime.connection();
    const scope = new AttemptScope(policy, signal);
    let lease: Lease | undefined;
    const started = Date.now();
    let untrack = () => {};
    let abortedBeforeSend = false;
    try {
      lease = await connection.lease(scope.signal);
      untrack = connection.track(nextRequestId(lease), scope.controller);
      // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
      abortedBeforeSend = scope.signal.aborted;
      const result = (await lease.client.callTool({ name: identity.mcpName, arguments: args }, undefined, {
        signal: scope.signal,
        // Our timers govern; the SDK's is a backstop far behind them.
        timeout: Math.max(policy.timeoutMs, policy.maxTotalTimeoutMs ?? 0) + 60_000,
        ...(policy.resetTimeoutOnProgress ? { onprogress: scope.progress } : {}),
      })) as CallToolResult;
      const domain = fromResult(result, { ...context, attempts: attemptNumber });
      if (domain) throw domain;
      return result;
    } catch (error) {
      if (error instanceof McpToolError) throw error;
      const reason: unknown = scope.signal.reason;
      if (reason instanceof StreamLostError && !signal?.aborted) {
        // We know exactly what happened: the response stream broke after the request was sent.
        // The session lives on, so the calls in flight beside this one are left alone.
        throw McpToolError.of("stream_error", reason.message, { ...context, attempts: attemptNumber, cause: reason });
      }
      const e = normalize(error, {
        ...context,
        aborted: signal?.aborted === true,
        timedOut: scope.timedOut,
        transportClosed: lease !== undefined && connection.closedSince(lease),
        exit: connection.lastExit,
        hadSession: lease?.hadSession ?? false,
        retryAfterMs: connection.retryAfterSince(started),
        customCodes: runtime.customCodes,
        attempts: attemptNumber,
      });
      const perRequest = PER_REQUEST_REASONS.has(e.reason) && connection.breaksArePerRequest;
      if (lease && RECONNECT_REASONS.has(e.reason) && !perRequest) await connection.invalidate(lease);
      // Failing to get a connection, or timing out before sending, means the request was never written.
      throw (lease === undefined || abortedBeforeSend) && e.outcome !== "not_sent" ? e.with({ outcome: "not_sent" }) : e;
    } finally {
      untrack();
      scope.dispose();
    }
  };

  try {
    return await runtime.breaker().execute(() =>
      runWithRetry(attempt, policy.retry, {
        signal,
        idempotent: policy.idempotent,
        normalize: (error) => normalize(error, { ...context, aborted: signal?.aborted === true }),
        onRetry: (error, attemptNumber, delayMs) => safeEmit(runtime.onEvent, { type: "retry", ...context, attempt: attemptNumber, delayMs, error }),
      }),
    );
  } catch (error) {
    const e = normalize(error, { ...context, aborted: signal?.aborted === true });
    e.toolName ??= identity.exposedName;
    e.serverName ??= identity.serverName;
    throw e;
  }
}

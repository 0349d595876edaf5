import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callToolWith, isV2Client, type AnyClient, type CallOptions, type CallParams } from "./clients.js";
import { withInputRounds } from "./input.js";
import { markRequests } from "./requestScope.js";
import { runsAsTask, taskAttempt, type TaskCall } from "./taskCall.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { fromResult } from "../errors/fromResult.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize, type CustomCodeTable } from "../errors/normalize.js";
import { REASONS } from "../errors/reasons.js";
import type { CallContext } from "../policy/abort.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";
import { StreamLostError, ToolkitClosedError, type Connection, type Lease } from "./Connection.js";

/** What one attempt calls: a tool on a server, reached through its connection at call time. */
export interface ToolTarget {
  connection: Connection;
  /** The tool's name on its server. */
  mcpName: string;
  customCodes?: CustomCodeTable;
  /** How long the SDK's own timer may run: a backstop far behind ours. */
  sdkTimeoutMs: number;
  resetTimeoutOnProgress: boolean;
}

const noProgress = (): void => {};

/**
 * One attempt at an MCP tool call. Its failure is classified here, once, with everything the
 * attempt knows: whether our timer fired, whether the caller aborted, whether the connection
 * closed during the call, whether a session was held, what the server said to wait. The
 * error is made for this call alone, even when many calls met the same failed reconnect.
 */
export async function callToolOnce(
  target: ToolTarget,
  args: Record<string, unknown>,
  scope: AttemptScope,
  attempt: number,
  context: CallContext,
  callerSignal: AbortSignal | undefined,
  meta?: Record<string, string>,
  task?: TaskCall,
): Promise<CallToolResult> {
  const { connection } = target;
  let lease: Lease | undefined;
  let id: number | undefined;
  let untrack = () => {};
  let abortedBeforeSend = false;
  let result: CallToolResult;
  const params = { name: target.mcpName, arguments: args, ...(meta ? { _meta: meta } : {}) };
  try {
    const live = connection.current();
    if (live && !connection.tracksStreams && scope.sdkCanBound && !runsAsTask(task, live.client, connection, target.mcpName)) {
      // The common case: a live connection whose requests nothing outside needs to end. The
      // SDK's own timer bounds the call (and cancels it on the server) and the caller's signal
      // goes straight to it: no controller, timer or listener of ours.
      lease = live;
      abortedBeforeSend = callerSignal?.aborted === true;
      result = await sendCall(connection, live.client, params, context, callerSignal, {
        ...(callerSignal ? { signal: callerSignal } : {}),
        timeout: scope.options.timeoutMs,
        ...(scope.options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, onprogress: noProgress } : {}),
      });
    } else {
      lease = await connection.lease(scope.signal);
      const client = lease.client;
      const untracks: Array<() => void> = [];
      untrack = () => {
        for (const end of untracks) end();
      };
      // Each request the call writes is registered under its id, so a broken stream can end it.
      const ids = {
        sent: (sent: number) => {
          id = sent;
          untracks.push(connection.track(sent, scope.controller));
        },
      };
      // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
      abortedBeforeSend = scope.signal.aborted;
      // A task's polls are not tied to the call's controller: each poll's stream ends as it
      // answers while the call goes on, and a lost connection must not cancel the task.
      result = runsAsTask(task, client, connection, target.mcpName)
        ? await taskAttempt(client, params, task, scope, { ...context, attempts: attempt, ...(target.customCodes ? { customCodes: target.customCodes } : {}) }, target.sdkTimeoutMs)
        : await sendCall(connection, client, params, context, scope.signal, {
            ...markRequests(ids),
            signal: scope.signal,
            timeout: target.sdkTimeoutMs,
            ...(target.resetTimeoutOnProgress ? { onprogress: scope.progress } : {}),
          });
    }
  } catch (thrown) {
    if (isControlFlow(thrown)) throw thrown;
    const error = classify(thrown);
    if (lease && error.reason === "protocol_version_unsupported") {
      // The server changed era under us: renegotiate once; a second refusal is final.
      if (!connection.versionRefused(lease)) throw error.with({ transient: false });
    }
    const effect = REASONS[error.reason].connection;
    if (lease && (effect === "lost" || (effect === "request" && !connection.breaksArePerRequest))) await connection.invalidate(lease);
    throw error;
  } finally {
    untrack();
  }
  const domain = fromResult(result, { ...context, attempts: attempt });
  if (domain) throw domain;
  return result;

  function classify(thrown: unknown): McpToolError {
    const error = classifyFailure(thrown);
    return lease && diedWithConnection(error, connection, scope.reason) ? withGeneration(error, lease.generation) : error;
  }

  function classifyFailure(thrown: unknown): McpToolError {
    const here = { ...context, attempts: attempt };
    // Failing to get a connection, or timing out before sending, means the request was never written.
    const unsent = lease === undefined || abortedBeforeSend;
    // A connection's own failure (a refused reconnect) is shared by every call that waited on it.
    if (thrown instanceof McpToolError) return thrown.with({ ...here, ...(unsent ? { outcome: "not_sent" } : {}) });
    const reason: unknown = scope.reason;
    // The toolkit closed under the call: its controller was aborted, or (on the fast path) the
    // closing client ended the request.
    if ((reason instanceof ToolkitClosedError || connection.isClosed) && !callerSignal?.aborted) {
      const closed = reason instanceof ToolkitClosedError ? reason : new ToolkitClosedError(connection.name);
      return McpToolError.of("closed", closed.message, { ...here, outcome: unsent ? "not_sent" : "unknown", cause: thrown });
    }
    if (reason instanceof StreamLostError && !callerSignal?.aborted) {
      // We know exactly what happened: the answer stream broke or ended after the request was sent.
      return McpToolError.of("stream_error", reason.message, { ...here, cause: reason });
    }
    const response = connection.takeResponse(id);
    const url = connection.url;
    const e = normalize(thrown, {
      ...here,
      aborted: callerSignal?.aborted === true,
      timedOut: scope.timedOut,
      ...(scope.expiredAfter ? { timedOutAfter: scope.expiredAfter } : {}),
      transportClosed: lease !== undefined && connection.closedSince(lease),
      exit: connection.lastExit,
      hadSession: lease?.hadSession ?? false,
      ...(url ? { url } : {}),
      ...(response ? { response } : {}),
      ...(target.customCodes ? { customCodes: target.customCodes } : {}),
    });
    return unsent && e.outcome !== "not_sent" ? e.with({ outcome: "not_sent" }) : e;
  }
}

/**
 * Sends a tools/call. In 2026-07-28 the server may answer `input_required`: the rounds run here,
 * in the call's own async context, so an input handler can pause a LangGraph run.
 */
function sendCall(connection: Connection, client: AnyClient, params: CallParams, context: CallContext, signal: AbortSignal | undefined, options: CallOptions): Promise<CallToolResult> {
  if (!isV2Client(client) || client.getProtocolEra() !== "modern") return callToolWith(client, params, options);
  const { handler, maxRounds } = connection.input;
  const inputContext = { serverName: connection.name, era: "modern" as const, ...(context.toolName ? { toolName: context.toolName } : {}), ...(signal ? { signal } : {}) };
  return withInputRounds((p: CallParams) => callToolWith(client, p, { ...options, allowInputRequired: true }), params, { handler, maxRounds, context: inputContext });
}

/**
 * Was this failure the death of the connection the call went over, rather than of this one
 * request? Every call in flight on a connection that dies fails together, and the breaker
 * counts them as one failure by the generation they carry.
 */
function diedWithConnection(error: McpToolError, connection: Connection, abortReason: unknown): boolean {
  if (abortReason instanceof StreamLostError) return abortReason.connectionDied;
  const effect = REASONS[error.reason].connection;
  return effect === "lost" || (effect === "request" && !connection.breaksArePerRequest);
}

/**
 * Which connection death a failure belongs to, for the breaker: every call in flight on a
 * connection that died fails with it, and that is one piece of evidence about the server.
 */
export function connectionDeathKey(error: McpToolError): string | undefined {
  const generation = (error.data as { connectionGeneration?: unknown } | undefined)?.connectionGeneration;
  return typeof generation === "number" ? `connection-${generation}` : undefined;
}

/** `data.connectionGeneration`: which of its server's connections died (one number per connection, per server). */
function withGeneration(error: McpToolError, generation: number): McpToolError {
  const data = error.data;
  if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) return error;
  return error.with({ data: { ...(data as Record<string, unknown> | undefined), connectionGeneration: generation } });
}

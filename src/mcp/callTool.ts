import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callToolWith, isV2Client, type AnyClient, type CallOptions, type CallParams } from "./clients.js";
import { withInputRounds } from "./input.js";
import { markRequests } from "./requestScope.js";
import { runsAsTask, taskAttempt, type TaskCall } from "./taskCall.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { fromResult } from "../errors/fromResult.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize, type CustomCodeTable, type NormalizeContext } from "../errors/normalize.js";
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

/** Asked after an attempt failed: may settle the attempt another way (`again` repeats it). */
export interface AttemptRecovery {
  /** Does this failure call for it? Asked first, so most failures pass by without a step of its own. */
  handles(error: unknown): boolean;
  retry<T>(error: unknown, scope: AttemptScope, again: () => Promise<T>): Promise<T>;
}

/** What one attempt learnt on its way, read when it fails to classify the failure. */
interface AttemptFacts {
  target: ToolTarget;
  args: Record<string, unknown>;
  scope: AttemptScope;
  attempt: number;
  context: CallContext;
  callerSignal: AbortSignal | undefined;
  meta: Record<string, string> | undefined;
  task: TaskCall | undefined;
  recovery: AttemptRecovery | undefined;
  /** The connection the request went over; unset while none was had. */
  lease?: Lease;
  /** The JSON-RPC id of the request, where it was seen being written. */
  id?: number;
  /** Had the attempt been aborted before it was sent? Then the SDK refuses it unsent. */
  abortedBeforeSend: boolean;
}

/**
 * One attempt at an MCP tool call. Its failure is classified here, once, with everything the
 * attempt knows: whether our timer fired, whether the caller aborted, whether the connection
 * closed during the call, whether a session was held, what the server said to wait. The
 * error is made for this call alone, even when many calls met the same failed reconnect.
 */
export function callToolOnce(
  target: ToolTarget,
  args: Record<string, unknown>,
  scope: AttemptScope,
  attempt: number,
  context: CallContext,
  callerSignal: AbortSignal | undefined,
  meta?: Record<string, string>,
  task?: TaskCall,
  recovery?: AttemptRecovery,
): Promise<CallToolResult> {
  const { connection } = target;
  const facts: AttemptFacts = { target, args, scope, attempt, context, callerSignal, meta, task, recovery, abortedBeforeSend: false };
  const params = { name: target.mcpName, arguments: args, ...(meta ? { _meta: meta } : {}) };
  let live: Lease | undefined;
  try {
    live = connection.current();
    if (!live || connection.tracksStreams || !scope.sdkCanBound || runsAsTask(task, live.client, connection, target.mcpName)) return recoverFrom(attemptLeased(facts, params, task), facts);
  } catch (thrown) {
    return recoverFrom(failed(facts, thrown), facts);
  }
  // The common case: a live connection whose requests nothing outside needs to end. The
  // SDK's own timer bounds the call (and cancels it on the server) and the caller's signal
  // goes straight to it: no controller, timer or listener of ours. Chained, not awaited: see
  // policy/chain.ts.
  facts.lease = live;
  facts.abortedBeforeSend = callerSignal?.aborted === true;
  let sent: Promise<CallToolResult>;
  try {
    sent = sendCall(connection, live.client, params, context, callerSignal, {
      ...(callerSignal ? { signal: callerSignal } : {}),
      timeout: scope.options.timeoutMs,
      ...(scope.options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, onprogress: noProgress } : {}),
    });
  } catch (thrown) {
    sent = Promise.reject(thrown);
  }
  return answered(sent, facts);
}

/**
 * The attempt's answer: a result, a domain error, or a failure to classify. Apart from
 * `callToolOnce`, so the handlers a call in flight holds keep `facts` alone (see policy/chain.ts).
 */
function answered(sent: Promise<CallToolResult>, facts: AttemptFacts): Promise<CallToolResult> {
  return sent.then(
    (result) => {
      const domain = domainError(result, facts);
      return domain ? recovered(domain, facts) : result;
    },
    (thrown: unknown) => {
      if (isControlFlow(thrown)) throw thrown;
      const error = settled(facts, thrown);
      return error instanceof Promise ? recoverFrom(error, facts) : recovered(error, facts);
    },
  );
}

/**
 * Inside a `.then`: the call's recovery where it applies, otherwise the error thrown (not
 * returned rejected: the promise it rejects is already awaited, so Node has no unhandled
 * rejection to track and then forget).
 */
function recovered(error: McpToolError, facts: AttemptFacts): Promise<CallToolResult> {
  if (!facts.recovery?.handles(error)) throw error;
  return recoverOrReject(error, facts);
}

/** The attempt's outcome, unless it failed and the call's recovery settles it another way. */
function recoverFrom(outcome: Promise<CallToolResult>, facts: AttemptFacts): Promise<CallToolResult> {
  return facts.recovery ? outcome.catch((error: unknown) => recoverOrReject(error, facts)) : outcome;
}

/** A failed attempt: settled by the call's recovery where that applies, otherwise its error. */
function recoverOrReject(error: unknown, facts: AttemptFacts): Promise<CallToolResult> {
  const { recovery } = facts;
  if (!recovery?.handles(error)) return Promise.reject(error);
  const again = () => callToolOnce(facts.target, facts.args, facts.scope, facts.attempt, facts.context, facts.callerSignal, facts.meta, facts.task, recovery);
  return recovery.retry(error, facts.scope, again);
}

/**
 * An attempt that needs our own controller: a (re)connect to wait for, a stream that can
 * break under it (tracked by request id), a total cap, or a task.
 */
async function attemptLeased(facts: AttemptFacts, params: CallParams, task: TaskCall | undefined): Promise<CallToolResult> {
  const { target, scope, context } = facts;
  const { connection } = target;
  const untracks: Array<() => void> = [];
  let result: CallToolResult;
  try {
    const lease = await connection.lease(scope.signal);
    facts.lease = lease;
    const client = lease.client;
    // Each request the call writes is registered under its id, so a broken stream can end it.
    const ids = {
      sent: (sent: number) => {
        facts.id = sent;
        untracks.push(connection.track(sent, scope.controller));
      },
    };
    // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
    facts.abortedBeforeSend = scope.signal.aborted;
    // A task's polls are not tied to the call's controller: each poll's stream ends as it
    // answers while the call goes on, and a lost connection must not cancel the task.
    result = runsAsTask(task, client, connection, target.mcpName)
      ? await taskAttempt(client, params, task, scope, { ...context, attempts: facts.attempt, ...(target.customCodes ? { customCodes: target.customCodes } : {}) }, target.sdkTimeoutMs)
      : await sendCall(connection, client, params, context, scope.signal, {
          ...markRequests(ids),
          signal: scope.signal,
          timeout: target.sdkTimeoutMs,
          ...(target.resetTimeoutOnProgress ? { onprogress: () => scope.progress() } : {}),
        });
  } catch (thrown) {
    return await failed(facts, thrown);
  } finally {
    for (const end of untracks) end();
  }
  const domain = domainError(result, facts);
  if (domain) throw domain;
  return result;
}

/** A result the tool answered with `isError` is its own failure, classified from the result. */
function domainError(result: CallToolResult, facts: AttemptFacts): McpToolError | undefined {
  return fromResult(result, { ...facts.context, attempts: facts.attempt });
}

/**
 * Rejects with the attempt's failure, classified; a connection the failure broke is dropped
 * first. Not an async function: most failures leave the connection as it is, and settle at once.
 */
function failed(facts: AttemptFacts, thrown: unknown): Promise<never> {
  if (isControlFlow(thrown)) return Promise.reject(thrown);
  try {
    const error = settled(facts, thrown);
    return error instanceof Promise ? error : Promise.reject(error);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The attempt's failure, classified: the error itself, or, where the failure broke the
 * connection, a promise that rejects with it once the connection is dropped.
 */
function settled(facts: AttemptFacts, thrown: unknown): McpToolError | Promise<never> {
  const { lease, target } = facts;
  const { connection } = target;
  const error = classify(facts, thrown);
  if (lease && error.reason === "protocol_version_unsupported") {
    // The server changed era under us: renegotiate once; a second refusal is final.
    if (!connection.versionRefused(lease)) return error.with({ transient: false });
  }
  const effect = REASONS[error.reason].connection;
  if (lease && (effect === "lost" || (effect === "request" && !connection.breaksArePerRequest))) {
    return connection.invalidate(lease).then(() => Promise.reject(error));
  }
  return error;
}

function classify(facts: AttemptFacts, thrown: unknown): McpToolError {
  const { lease, target, scope } = facts;
  const error = classifyFailure(facts, thrown);
  return lease && diedWithConnection(error, target.connection, scope.reason) ? withGeneration(error, lease.generation) : error;
}

function classifyFailure(facts: AttemptFacts, thrown: unknown): McpToolError {
  const { target, scope, context, callerSignal, lease, id } = facts;
  const { connection } = target;
  const here = { ...context, attempts: facts.attempt };
  // Failing to get a connection, or timing out before sending, means the request was never written.
  const unsent = lease === undefined || facts.abortedBeforeSend;
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
  // Built field by field: conditional spreads made this the costliest step of a JSON-RPC error.
  const known: NormalizeContext = {
    toolName: context.toolName,
    serverName: context.serverName,
    attempts: facts.attempt,
    aborted: callerSignal?.aborted === true,
    timedOut: scope.timedOut,
    transportClosed: lease !== undefined && connection.closedSince(lease),
    exit: connection.lastExit,
    hadSession: lease?.hadSession ?? false,
  };
  if (scope.expiredAfter) known.timedOutAfter = scope.expiredAfter;
  const url = connection.url;
  if (url) known.url = url;
  const response = connection.takeResponse(id);
  if (response) known.response = response;
  if (target.customCodes) known.customCodes = target.customCodes;
  const e = normalize(thrown, known);
  return unsent && e.outcome !== "not_sent" ? e.with({ outcome: "not_sent" }) : e;
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

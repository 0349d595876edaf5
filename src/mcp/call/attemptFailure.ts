/**
 * What an attempt's failure is, and what it does to the connection: classified once, with
 * everything the attempt knows (whether our timer fired, whether the caller aborted, whether
 * the connection closed during the call, whether a session was held, what the server said to
 * wait), and the connection dropped first where the failure broke it.
 */
import { isMcpToolError, McpToolError } from "../../errors/McpToolError.js";
import { normalize, type NormalizeContext } from "../../errors/normalize.js";
import { REASONS } from "../../errors/reasons.js";
import type { AttemptFacts } from "./attempt.js";
import { StreamLostError, ToolkitClosedError, type Connection } from "../session/Connection.js";
import { eraOf } from "../session/clients.js";

/** Why the attempt was ended from outside the SDK (the toolkit closed, its stream broke), if it was. */
function endedBy(facts: AttemptFacts): unknown {
  return facts.scope.reason;
}

/**
 * The attempt's failure, classified: the error itself, or, where the failure broke the
 * connection, a promise that rejects with it once the connection is dropped.
 */
export function settled(facts: AttemptFacts, thrown: unknown): McpToolError | Promise<never> {
  const { lease, target } = facts;
  const { connection } = target;
  const error = classify(facts, thrown);
  if (lease && error.reason === "protocol_version_unsupported") {
    // The server changed era under us: renegotiate once; a second refusal is final.
    if (!connection.versionRefused(lease)) return error.with({ transient: false });
  }
  if (lease && error.reason === "connection_refused") return connection.refused(lease).then(() => {
      throw error;
    });
  const effect = REASONS[error.reason].connection;
  if (lease && (effect === "lost" || (effect === "request" && !connection.breaksArePerRequest))) {
    return connection.invalidate(lease, REASONS[error.reason].serverAnswered).then(() => {
      throw error;
    });
  }
  return error;
}

function classify(facts: AttemptFacts, thrown: unknown): McpToolError {
  const { lease, target } = facts;
  const error = withChaos(withServerLogs(classifyFailure(facts, thrown), target.connection, facts.logMark), facts.chaos);
  return lease && diedWithConnection(error, target.connection, endedBy(facts)) ? withGeneration(error, lease.generation) : error;
}

/**
 * `data.serverLogs`: what the server logged at warning or above while the attempt ran, for the
 * artifact and events (the model's text never shows data). Redacted with the error on its way out.
 */
export function withServerLogs(error: McpToolError, connection: Connection, mark: number): McpToolError {
  const lines = connection.logs.since(mark);
  const data = error.data;
  if (lines.length === 0 || (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data)))) return error;
  return error.with({ data: { ...(data as Record<string, unknown> | undefined), serverLogs: lines.map(({ seq: _seq, ...line }) => line) } });
}

function classifyFailure(facts: AttemptFacts, thrown: unknown): McpToolError {
  const { target, scope, context, callerSignal, lease, id } = facts;
  const { connection } = target;
  const here = { ...context, attempts: facts.attempt };
  // Failing to get a connection, or timing out before sending, means the request was never written.
  const unsent = lease === undefined || facts.abortedBeforeSend;
  // A connection's own failure (a refused reconnect) is shared by every call that waited on it.
  if (isMcpToolError(thrown)) return thrown.with({ ...here, ...(unsent ? { outcome: "not_sent" } : {}) });
  // The call's time ran out while the toolkit waited to reconnect (its backoff after failed
  // connects): why the connects fail is the news, not the wait. Nothing was sent.
  const waitedFor = lease === undefined && scope.timedOut && !callerSignal?.aborted ? connection.lastConnectError : undefined;
  if (waitedFor) {
    const timeout = scope.expiredAfter && "timeout" in scope.expiredAfter ? scope.expiredAfter.timeout : scope.options.timeoutMs;
    return waitedFor.with({ ...here, outcome: "not_sent", message: `${waitedFor.message} The call's ${timeout} ms ran out while the toolkit waited to reconnect.` });
  }
  const reason = endedBy(facts);
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
    mcpName: context.mcpName,
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
  const response = lease?.requests.takeResponse(id);
  if (response) known.response = response;
  if (target.customCodes) known.customCodes = target.customCodes;
  if (target.method) known.method = target.method;
  // The era decides how an unregistered JSON-RPC code reads (2026-07-28: not retried).
  const era = lease ? eraOf(lease.client) : undefined;
  if (era) known.era = era;
  const e = normalize(thrown, known);
  return unsent && e.outcome !== "not_sent" ? e.with({ outcome: "not_sent" }) : e;
}

/**
 * `data.chaos`: the fault the tool's `chaos` injected into the attempt, so every event and
 * artifact of the failure names it (the model's text, which never shows data, reads as for the
 * real failure).
 */
export function withChaos(error: McpToolError, fault: { kind: string } | undefined): McpToolError {
  const data = error.data;
  if (!fault || (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data)))) return error;
  return error.with({ data: { ...(data as Record<string, unknown> | undefined), chaos: fault.kind } });
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

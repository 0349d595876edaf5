/**
 * What a server's finished calls say about it, for `status()`: a server whose last call was
 * refused its credentials reads `"unauthorized"`, one whose recent calls fail at a high rate
 * reads `"degraded"`. Only the server's own failures count, by the rule the circuit breaker
 * counts by (policy/CircuitBreaker.ts `verdictOf`); a call the server never saw says nothing.
 */
import { isMcpToolError, isServerFailure, type McpToolError } from "../errors/McpToolError.js";
import type { EventHub } from "../eventHub.js";
import { verdictOf } from "../policy/CircuitBreaker.js";
import { isDeadlineError } from "../policy/Deadline.js";

/** How many of a server's last counted calls `"degraded"` looks at. */
export const HEALTH_WINDOW = 20;
/** The fewest counted calls in that window before a server can read `"degraded"`. */
export const DEGRADED_MIN_CALLS = 5;
/** The share of failed calls among them at which a server reads `"degraded"`. */
export const DEGRADED_FAILURE_RATE = 0.5;

/** What one finished call says about its server. */
export type CallVerdict = "healthy" | "failure" | "unauthorized" | "no_evidence";

/** The state a server's calls give it, while its tools are offered. */
export type CallsState = "connected" | "degraded" | "unauthorized";

/**
 * A call's verdict from its final error (`undefined`: it succeeded). A 401 (`unauthorized`) is
 * its own verdict: the server refused the credentials, which says nothing of its health. A call
 * refused on our side before it was sent (invalid arguments, a `beforeToolCall` hook, a
 * capability the server lacks, the toolkit closed) is no evidence, and so is a call its deadline
 * cut before it met any failure. Everything else is the breaker's verdict: a transient
 * transport, protocol or timeout failure is a failure; a cancel or our own guard (an open
 * circuit) is no evidence; any other answer (a tool's `isError`, a permanent protocol error, a
 * 403) shows a server that answers.
 */
export function callVerdict(error?: unknown): CallVerdict {
  if (error === undefined) return "healthy";
  if (isMcpToolError(error)) {
    if (error.reason === "unauthorized") return "unauthorized";
    if (error.kind === "client" && error.outcome === "not_sent" && !error.transient) return "no_evidence";
    // The call's deadline ended it: the last failure it met (a 503 it kept meeting) is the server's; a cut alone is not.
    if (isDeadlineError(error)) return error.reason !== "request_timeout" && isServerFailure(error) ? "failure" : "no_evidence";
  }
  return verdictOf(error);
}

/** One server's recent calls, and the state they give it. */
export class CallHealth {
  /** The last counted calls, oldest first: `true` for a failure. */
  private readonly recent: boolean[] = [];
  private refused = false;

  /** Counts one finished call; a call that is no evidence changes nothing. */
  record(verdict: CallVerdict): void {
    if (verdict === "no_evidence") return;
    this.refused = verdict === "unauthorized";
    if (verdict === "unauthorized") return;
    this.recent.push(verdict === "failure");
    if (this.recent.length > HEALTH_WINDOW) this.recent.shift();
  }

  /** Forgets every call: the server (re)joined. */
  reset(): void {
    this.recent.length = 0;
    this.refused = false;
  }

  get state(): CallsState {
    if (this.refused) return "unauthorized";
    const failed = this.recent.filter(Boolean).length;
    return this.recent.length >= DEGRADED_MIN_CALLS && failed >= DEGRADED_FAILURE_RATE * this.recent.length ? "degraded" : "connected";
  }
}

/**
 * Hears how each tool call of the toolkit ended, from its own events: `ended(server)` for a
 * success, `ended(server, error)` for a failure. A call a fallback answered is its primary's
 * failure: the `fallback` event carries it, and the `success` that the pipeline reports right
 * after it (the same call, synchronously) is the fallback's answer, not the primary's. A fallback
 * server's own call reports no events, and is not counted. A connect's `error` event (no
 * `toolName`) is not a call. A call that shared another's request (`coalesced`) is not counted
 * either: the server answered once, and the shared request's own event counts that.
 */
export function watchCalls(events: EventHub, ended: (server: string, error?: McpToolError) => void): void {
  /** Calls a fallback just answered, by server and tool: their `success` is skipped once. */
  const answeredElsewhere = new Map<string, number>();
  const keyOf = (server: string, tool: string) => `${server}\u0000${tool}`;
  events.on("fallback", (e) => {
    if (e.serverName === undefined) return;
    const key = keyOf(e.serverName, e.toolName);
    answeredElsewhere.set(key, (answeredElsewhere.get(key) ?? 0) + 1);
    ended(e.serverName, e.error);
  });
  events.on("success", (e) => {
    if (e.serverName === undefined || e.coalesced) return;
    const key = keyOf(e.serverName, e.toolName);
    const skip = answeredElsewhere.get(key);
    if (skip === undefined) return ended(e.serverName);
    if (skip > 1) answeredElsewhere.set(key, skip - 1);
    else answeredElsewhere.delete(key);
  });
  events.on("error", (e) => {
    if (e.serverName !== undefined && e.toolName !== undefined && !e.coalesced) ended(e.serverName, e.error);
  });
}

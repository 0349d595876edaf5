import { idempotencyKeyOf } from "./idempotency.js";
import type { McpToolError } from "./McpToolError.js";
import { decidedByCaller } from "./reasons.js";

/**
 * Which failures with an `unknown` outcome (the tool may have run) may be repeated:
 * `"idempotent"` only for tools known to be idempotent or read-only, `true` all, `false` none.
 */
export type RetryUnknownOutcome = "idempotent" | boolean;

/**
 * Does a repeat of this call only ask about a task the server already holds (`data.resumeTask`,
 * set by a call that ran as an MCP Task and lost its connection)? Asking runs nothing again.
 */
export function resumesTask(error: McpToolError): boolean {
  const data = error.data as { resumeTask?: unknown } | undefined;
  return typeof data === "object" && data !== null && typeof data.resumeTask === "string";
}

/**
 * What makes a repeat of a tool call safe; every repeat relies on one:
 * - `not_sent`: the server or the transport proved that nothing ran (a refused connect, a 404
 *   for an expired session, a tool the server did not know by the name we called);
 * - `task`: the repeat only asks about a task the server already holds;
 * - `idempotency_key`: the call carries a key the server honours (`data.idempotencyKey`, set by the
 *   toolkit on a failure of a call that sent one to a tool with a key property or to a server that
 *   declared the capability): the server runs the key's call at most once and answers a repeat
 *   with the first result;
 * - `idempotent`: running the tool again is harmless (trusted annotations or configuration, or
 *   `retryUnknownOutcome: true`).
 */
export type RepeatFact = "not_sent" | "task" | "idempotency_key" | "idempotent";

/**
 * The one rule for every repeat, whichever mechanism asks (a retry, the re-send on a new
 * session, the re-send of a relisted tool): the fact that makes repeating this call after
 * `error` safe, or `undefined` when there is none. A failure the caller decided (cancelled,
 * closed) is never repeated.
 */
export function repeatFact(error: McpToolError, idempotent = false, retryUnknownOutcome: RetryUnknownOutcome = "idempotent"): RepeatFact | undefined {
  if (decidedByCaller(error.reason)) return undefined;
  if (error.outcome === "not_sent") return "not_sent";
  if (resumesTask(error)) return "task";
  // `retryUnknownOutcome: false` repeats no unknown outcome, a keyed one included.
  if (retryUnknownOutcome !== false && idempotencyKeyOf(error) !== undefined) return "idempotency_key";
  return retryUnknownOutcome === true || (retryUnknownOutcome === "idempotent" && idempotent) ? "idempotent" : undefined;
}

/**
 * A retry: the same call again after a wait. Safe when the rule finds a fact, and worth it when
 * the failure is transient (the same call could succeed later).
 *
 * The retry policy, `mcpRetryOn` and `ErrorHandler.isSafeToRetry` all call this.
 */
export function isSafeToRetry(error: McpToolError, idempotent = false, retryUnknownOutcome: RetryUnknownOutcome = "idempotent"): boolean {
  return error.transient && repeatFact(error, idempotent, retryUnknownOutcome) !== undefined;
}

/**
 * A re-send after the cause was put right (a new session, a fresh tool list): safe only when
 * nothing ran, whatever the tool; its failure need not be transient, since the repeat is not
 * the same call again but the first that can run.
 */
export function mayResend(error: McpToolError): boolean {
  return repeatFact(error) === "not_sent";
}

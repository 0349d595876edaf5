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
 * The safe-repeat rule, the one place it is written: a failure may be repeated when it is
 * transient, was not the caller's own decision, and either the server certainly did not
 * run the tool (`not_sent`) or repeating it is harmless (`idempotent`, as
 * `retryUnknownOutcome` allows).
 *
 * The retry policy, `mcpRetryOn` and `ErrorHandler.isSafeToRetry` all call this.
 */
export function isSafeToRetry(error: McpToolError, idempotent = false, retryUnknownOutcome: RetryUnknownOutcome = "idempotent"): boolean {
  if (!error.transient || decidedByCaller(error.reason)) return false;
  if (error.outcome === "not_sent" || resumesTask(error)) return true;
  return retryUnknownOutcome === true || (retryUnknownOutcome === "idempotent" && idempotent);
}

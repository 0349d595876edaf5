import { fromResult } from "./errors/fromResult.js";
import type { McpToolError } from "./errors/McpToolError.js";
import { normalize, type NormalizeContext } from "./errors/normalize.js";
import { handleError, handleResponseError, toModelText, wrapToolError } from "./errors/text.js";

/**
 * The `shouldRetry` verdict: could the same call succeed later? Accepts anything, including
 * raw SDK errors, and normalizes first. This says nothing about whether a repeat is *safe*;
 * the retry policy adds that rule (see `isSafeToRetry`).
 */
export function shouldRetry(error: unknown, context?: NormalizeContext): boolean {
  return normalize(error, context).transient;
}

/**
 * The safe-repeat rule: transient, and either the server certainly did not run the tool,
 * or repeating it is harmless (idempotent or read-only).
 */
export function isSafeToRetry(error: McpToolError, idempotent: boolean): boolean {
  return error.transient && (error.outcome === "not_sent" || idempotent);
}

/** The facade over the error model; each member is also exported by name. */
export const ErrorHandler = {
  normalize,
  fromResult,
  handleError,
  handleResponseError,
  shouldRetry,
  wrapToolError,
  toModelText,
} as const;

export { fromResult, handleError, handleResponseError, normalize, toModelText, wrapToolError };

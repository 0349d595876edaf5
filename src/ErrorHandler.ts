import { fromResult } from "./errors/fromResult.js";
import { normalize, type NormalizeContext } from "./errors/normalize.js";
import { isSafeToRetry } from "./errors/safeRepeat.js";
import { handleError, handleResponseError, toModelText, wrapToolError } from "./errors/text.js";

/**
 * The `shouldRetry` verdict: could the same call succeed later? Accepts anything, including
 * raw SDK errors, and normalizes first. This says nothing about whether a repeat is *safe*;
 * the retry policy adds that rule (see `isSafeToRetry`).
 */
export function shouldRetry(error: unknown, context?: NormalizeContext): boolean {
  return normalize(error, context).transient;
}

/** The facade over the error model; each member is also exported by name. */
export const ErrorHandler = {
  normalize,
  fromResult,
  handleError,
  handleResponseError,
  shouldRetry,
  isSafeToRetry,
  wrapToolError,
  toModelText,
} as const;

export { fromResult, handleError, handleResponseError, isSafeToRetry, normalize, toModelText, wrapToolError };

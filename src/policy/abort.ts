import { McpToolError } from "../errors/McpToolError.js";

/** Small helpers that make waits end at once when a signal aborts. */

/** Waits `ms`, rejecting at once with the signal's reason if it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts. The
 * promise keeps running; its own rejection is still handled, so it never goes unhandled.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Who a call is for; policies that decide a failure themselves put it in the error. */
export interface CallContext {
  /** The name the model called. */
  toolName: string;
  serverName?: string;
}

/**
 * The error for a call its caller aborted while a policy held it (a backoff, a half-open
 * queue, a reconnect). `outcome` is `not_sent` when no attempt could have reached the server.
 */
export function cancelled(context: CallContext, reason: unknown, outcome: "not_sent" | "unknown" = "unknown"): McpToolError {
  return McpToolError.of("cancelled", "The call was cancelled by the caller.", { ...context, outcome, cause: reason });
}

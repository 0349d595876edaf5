import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FallbackFunction } from "../config/index.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, isServerFailure, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import { cancelled, withDeadline } from "./abort.js";
import { deadlineMarked, isDeadlineError } from "./Deadline.js";

/** Where an answer came from when the primary failed: what the model and the artifact are told. */
export interface FallbackNote {
  /** `server '<name>'` or `function`. */
  from: string;
  /** The primary's failure reason. */
  reason: string;
}

/** The line the model reads first when a fallback answered: who answered, and why. */
export function fallbackNote(note: FallbackNote): string {
  return `[The primary server failed (${note.reason}); this answer came from the fallback ${note.from}.]`;
}

/** A fallback for one call: what answers instead, and the hooks around it. */
export interface Fallback<T> {
  /** `"function"` or the fallback server's name, for events. */
  name: string;
  /** How the model is told who answered, e.g. `server 'backup'`. */
  from: string;
  /** Produces the answer; `error` is the primary's failure; `signal` ends the wait for it. */
  run: (error: McpToolError, signal: AbortSignal) => Promise<T>;
  /**
   * How long the fallback may take, in milliseconds; past it the call fails `request_timeout`.
   * Unset for a fallback server: its own call runs under its own policy's timeouts.
   */
  timeoutMs?: number;
  /** Asked first; `"skip"` keeps the primary's error. */
  before?: (error: McpToolError) => "skip" | void | Promise<"skip" | void>;
}

/**
 * A fallback answered by the user's function; `shape` turns its answer (text or a tool result)
 * into what the call returns.
 */
export function functionFallback<T>(
  fallback: FallbackFunction,
  args: Record<string, unknown>,
  shape: (answer: string | CallToolResult, error: McpToolError) => T,
  before: Fallback<T>["before"] | undefined,
  timeoutMs: number,
): Fallback<T> {
  return {
    name: "function",
    from: "function",
    timeoutMs,
    run: async (error, signal) => shape(await fallback(args, error, signal), error),
    ...(before ? { before } : {}),
  };
}

/** The outcome of a call under a fallback: the answer, and who gave it if not the primary. */
export interface WithFallback<T> {
  value: T;
  /** Set when the fallback answered. */
  fallback?: FallbackNote & { error: McpToolError; name: string };
}

/**
 * Runs `primary`; when it fails because the server is unhealthy (transient, not the tool's
 * own `isError`, not the caller's cancel) and the caller has not aborted, runs the fallback.
 * Permanent and domain errors never fall back: another server would answer them the same.
 * A fallback that fails too reports both failures in one error. The wait for the fallback ends
 * at once on the caller's abort (`cancelled`) and after its `timeoutMs` (`request_timeout`),
 * whether or not it heeds its signal.
 */
export async function runWithFallback<T>(
  primary: () => Promise<T>,
  fallback: Fallback<T> | undefined,
  signal: AbortSignal | undefined,
): Promise<WithFallback<T>> {
  let value: T;
  try {
    value = await primary();
  } catch (thrown) {
    // Without a fallback, every failure passes through as it is.
    if (!fallback) throw thrown;
    return fallBack(thrown, fallback, signal);
  }
  return { value };
}

/** The longest a timer can run: a fallback server's own call is bounded by its own policy. */
const UNBOUNDED_MS = 2 ** 31 - 1;

/** The primary failed: the fallback answers, when the failure and the caller allow it. */
async function fallBack<T>(thrown: unknown, fallback: Fallback<T>, signal: AbortSignal | undefined): Promise<WithFallback<T>> {
  if (isControlFlow(thrown) || !isMcpToolError(thrown)) throw thrown;
  const error = thrown;
  if (!isServerFailure(error) || signal?.aborted) throw error;
  const context = { toolName: error.toolName ?? "", ...(error.serverName ? { serverName: error.serverName } : {}) };
  const ms = fallback.timeoutMs ?? UNBOUNDED_MS;
  const timedOut = () => McpToolError.of("request_timeout", `The fallback ${fallback.from} did not answer within ${ms} ms.`, { ...context, outcome: "unknown" });
  // The hook is asked first; its own failure is a bug in it, reported as it is, not as the fallback's.
  let hookFailed = false;
  const answer = async (bounded: AbortSignal) => {
    let verdict: "skip" | void;
    try {
      verdict = await fallback.before?.(error);
    } catch (hookError) {
      hookFailed = true;
      throw hookError;
    }
    if (verdict === "skip") throw error;
    return fallback.run(error, bounded);
  };
  let value: T;
  try {
    value = await withDeadline(ms, signal, answer, timedOut);
  } catch (fallbackError) {
    if (fallbackError === error || hookFailed || isControlFlow(fallbackError)) throw fallbackError;
    if (signal?.aborted) throw cancelled(context, signal.reason);
    // A fallback function is the user's code and may throw anything.
    const f = isMcpToolError(fallbackError) ? fallbackError : normalize(fallbackError);
    const both = error.with({ message: `${error.message} The fallback ${fallback.from} also failed (${f.reason}): ${f.message}` });
    // A fallback server's call ended by the deadline it shares with this call: so is this call.
    throw isDeadlineError(f) ? deadlineMarked(both) : both;
  }
  return { value, fallback: { from: fallback.from, reason: error.reason, error, name: fallback.name } };
}


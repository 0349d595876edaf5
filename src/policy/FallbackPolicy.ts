import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FallbackFunction } from "../config/index.js";
import { isServerFailure, type McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import { begin } from "./chain.js";

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
  /** Produces the answer; `error` is the primary's failure. */
  run: (error: McpToolError, signal: AbortSignal | undefined) => Promise<T>;
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
  before?: Fallback<T>["before"],
): Fallback<T> {
  return {
    name: "function",
    from: "function",
    run: async (error) => shape(await fallback(args, error), error),
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
 * A fallback that fails too reports both failures in one error.
 */
export function runWithFallback<T>(
  primary: () => Promise<T>,
  fallback: Fallback<T> | undefined,
  signal: AbortSignal | undefined,
): Promise<WithFallback<T>> {
  // Chained, not awaited (see chain.ts); without a fallback, every failure passes through as it is.
  const first = begin(primary);
  return fallback ? first.then(valueOnly, (thrown: unknown) => fallBack(thrown as McpToolError, fallback, signal)) : first.then(valueOnly);
}

function valueOnly<T>(value: T): WithFallback<T> {
  return { value };
}

/** The primary failed: the fallback answers, when the failure and the caller allow it. */
async function fallBack<T>(error: McpToolError, fallback: Fallback<T>, signal: AbortSignal | undefined): Promise<WithFallback<T>> {
  if (!isServerFailure(error) || signal?.aborted) throw error;
  if ((await fallback.before?.(error)) === "skip") throw error;
  let value: T;
  try {
    value = await fallback.run(error, signal);
  } catch (fallbackError) {
    // A fallback function is the user's code and may throw anything.
    const f = normalize(fallbackError);
    throw error.with({ message: `${error.message} The fallback ${fallback.from} also failed (${f.reason}): ${f.message}` });
  }
  return { value, fallback: { from: fallback.from, reason: error.reason, error, name: fallback.name } };
}

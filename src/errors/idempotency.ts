/**
 * The wire names of idempotency keys, shared by the client (which sends a key and reads a
 * server's refusals) and the server helper (`langchain-mcp-errors/server`, which honours them).
 * SEP-3182 proposed a key for `tools/call` and was closed unmerged, so these names are ours, under
 * our own `_meta` prefix: the `io.modelcontextprotocol/` prefix is reserved for the specification.
 */
import type { McpToolError } from "./McpToolError.js";

/**
 * The experimental capability a server declares (`capabilities.experimental`) to say it honours
 * the key in `_meta` for every tool: a call that carries one may be repeated after an unknown outcome.
 */
export const IDEMPOTENCY_CAPABILITY = "langchain-mcp-errors/idempotency";

/** The request `_meta` entry that carries a call's key (a UUID, the same on every send of the call). */
export const IDEMPOTENCY_KEY_META = "langchain-mcp-errors/idempotencyKey";

/**
 * The result `_meta` entry with which the server helper refuses a send without running it:
 * `{ status: "in_progress", retryAfterMs? }` (the key's first call is still running: not_sent,
 * transient) or `{ status: "conflict" }` (the key was used with other arguments: not_sent, permanent).
 */
export const IDEMPOTENCY_RESULT_META = "langchain-mcp-errors/idempotency";

/** The input-schema properties that make a tool take a key, unless its policy names another. */
export const KEY_PROPERTIES = ["idempotency_key", "idempotencyKey"] as const;

/** The key the failed call carried to a server that honours it (`data.idempotencyKey`), if any. */
export function idempotencyKeyOf(error: McpToolError): string | undefined {
  const data = error.data as { idempotencyKey?: unknown } | undefined;
  return typeof data === "object" && data !== null && typeof data.idempotencyKey === "string" ? data.idempotencyKey : undefined;
}

/**
 * The wire name of a call's deadline, shared by the client (which sends it) and the server helper
 * (`langchain-mcp-errors/server`, whose `withDeadline` honours it). MCP has no deadline field of its
 * own (SEP-1539 is open, unsponsored), so the name is ours, under our own `_meta` prefix: the
 * `io.modelcontextprotocol/` prefix is reserved for the specification.
 */

/**
 * The request `_meta` entry that carries the milliseconds the caller will still wait, counted at
 * the moment the request was sent: a relative figure, so the two clocks never need to agree.
 */
export const DEADLINE_META = "langchain-mcp-errors/deadline";

/** The milliseconds left that a request's `_meta` states, if it states a usable figure. */
export function deadlineOf(meta: Record<string, unknown> | undefined): number | undefined {
  const value = meta?.[DEADLINE_META];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

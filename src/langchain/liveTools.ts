/**
 * Live tool lists: a tool the server no longer lists, and a server that says a tool is unknown.
 */
import { McpToolError } from "../errors/McpToolError.js";
import type { Connection } from "../mcp/Connection.js";
import { begin } from "../policy/chain.js";
import type { ToolIdentity } from "../policy/resolve.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";

type Attempt<T> = (scope: AttemptScope, attempt: number, meta?: Record<string, string>) => Promise<T>;

/** The error of a call of a tool its server stopped listing: nothing was sent. */
export function toolGone(identity: ToolIdentity, attempts: number): McpToolError {
  return McpToolError.of("tool_not_found", `Server '${identity.serverName}' no longer offers the tool '${identity.mcpName}'.`, {
    toolName: identity.exposedName,
    serverName: identity.serverName,
    attempts,
  });
}

/**
 * A server that answers `tool_not_found` may have changed its list since we read it: list the
 * tools again, once per call, and if the tool is still there call it once more (the server
 * refused the first call unsent). If it is gone, the listing has removed it from the toolkit.
 */
export function refreshingOnToolNotFound<T>(connection: Connection, mcpName: string, attempt: Attempt<T>): Attempt<T> {
  let refreshed = false;
  const afterFailure = async (error: unknown, scope: AttemptScope, n: number, meta: Record<string, string> | undefined): Promise<T> => {
    if (refreshed || !(error instanceof McpToolError) || error.reason !== "tool_not_found") throw error;
    refreshed = true;
    const tools = await connection.refreshTools(scope.signal).catch(() => undefined);
    if (!tools?.some((t) => t.name === mcpName)) throw error;
    return attempt(scope, n, meta);
  };
  // Chained, not awaited: see policy/chain.ts.
  return (scope, n, meta) => begin(() => attempt(scope, n, meta)).then(undefined, (error: unknown) => afterFailure(error, scope, n, meta));
}

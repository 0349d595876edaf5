/**
 * Live tool lists: a tool the server no longer lists, and a server that says a tool is unknown.
 */
import { McpToolError } from "../errors/McpToolError.js";
import type { AttemptRecovery } from "../mcp/callTool.js";
import type { Connection } from "../mcp/Connection.js";
import type { ToolIdentity } from "../policy/resolve.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";

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
 * One per call, shared by its attempts; an object rather than a wrapper around each attempt,
 * so that nothing of it waits on an attempt in flight (see policy/chain.ts).
 */
export class ToolListRefresh implements AttemptRecovery {
  private refreshed = false;

  constructor(
    private readonly connection: Connection,
    private readonly mcpName: string,
  ) {}

  handles(error: unknown): boolean {
    return !this.refreshed && error instanceof McpToolError && error.reason === "tool_not_found";
  }

  async retry<T>(error: unknown, scope: AttemptScope, again: () => Promise<T>): Promise<T> {
    if (!this.handles(error)) throw error;
    this.refreshed = true;
    const tools = await this.connection.refreshTools(scope.signal).catch(() => undefined);
    if (!tools?.some((t) => t.name === this.mcpName)) throw error;
    return again();
  }
}

import type { McpToolkitConfig, ServerConfig } from "../config/index.js";
import type { AnyClient } from "../mcp/session/clients.js";
import type { McpTool } from "./McpTool.js";
import { McpToolkit } from "./McpToolkit.js";

/** Options for {@link createMcpTools}. */
export type CreateMcpToolsOptions = Omit<McpToolkitConfig, "servers" | "onConnectionError"> & {
  /** The server's name in tool metadata, events and `tools` keys. @default "mcp" */
  serverName?: string;
  server?: Omit<ServerConfig, "transport">;
};

/**
 * The tools {@link createMcpTools} returns: an array of tools as before, with a way to close what
 * the toolkit behind them runs.
 */
export type McpTools = McpTool[] & {
  /**
   * Stops everything the tools' toolkit runs (with `sharedState`, its refresh from Redis);
   * calls in flight end `closed`, as do later calls of these tools. Your client, and your Redis
   * client, stay open and yours to close. Calling it again does nothing more.
   */
  close(): Promise<void>;
};

/**
 * The toolkit's conversion for a client you already connected, of either SDK line
 * (`@modelcontextprotocol/client` v2 or `@modelcontextprotocol/sdk` v1); the client stays yours to close.
 * The result is an array of tools with a non-enumerable `close()`: call it when you are done
 * with the tools (with `sharedState`, the toolkit refreshes its view of Redis until then).
 */
export async function createMcpTools(client: AnyClient, options: CreateMcpToolsOptions = {}): Promise<McpTools> {
  const { serverName = "mcp", server, ...rest } = options;
  const toolkit = await McpToolkit.connect({ ...rest, servers: { [serverName]: { ...server, client } } });
  // Not enumerable: the array still spreads, serializes and compares as the tools alone.
  return Object.defineProperty(toolkit.getTools(), "close", { value: () => toolkit.close(), enumerable: false }) as McpTools;
}

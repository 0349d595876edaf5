import type { McpToolkitConfig, ServerConfig } from "../config/index.js";
import type { AnyClient } from "../mcp/clients.js";
import type { McpTool } from "./McpTool.js";
import { McpToolkit } from "./McpToolkit.js";

/** Options for {@link createMcpTools}. */
export type CreateMcpToolsOptions = Omit<McpToolkitConfig, "servers" | "onConnectionError"> & {
  /** The server's name in tool metadata, events and `tools` keys. @default "mcp" */
  serverName?: string;
  server?: Omit<ServerConfig, "transport">;
};

/**
 * The toolkit's conversion for a client you already connected, of either SDK line
 * (`@modelcontextprotocol/client` v2 or `@modelcontextprotocol/sdk` v1); the client stays yours to close.
 */
export async function createMcpTools(client: AnyClient, options: CreateMcpToolsOptions = {}): Promise<McpTool[]> {
  const { serverName = "mcp", server, ...rest } = options;
  const toolkit = await McpToolkit.connect({ ...rest, servers: { [serverName]: { ...server, client } } });
  return toolkit.getTools();
}

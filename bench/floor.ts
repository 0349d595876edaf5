/**
 * The LangChain floor: the least a LangChain tool over the raw SDK can be. A bare
 * `StructuredTool` with the server's JSON Schema and `content_and_artifact`, as ours has,
 * whose `_call` calls `client.callTool` with the caller's signal and returns the text.
 * Anything that keeps LangChain's callbacks and validation pays at least this.
 */
import { StructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

export class FloorTool extends StructuredTool {
  override name: string;
  override description: string;
  override schema: JSONSchema;
  override responseFormat = "content_and_artifact" as const;

  constructor(
    private readonly client: Client,
    tool: Tool,
  ) {
    super();
    this.name = tool.name;
    this.description = tool.description ?? "";
    this.schema = tool.inputSchema as JSONSchema;
  }

  protected override async _call(args: Record<string, unknown>, _run: unknown, config?: ToolRunnableConfig): Promise<[string, CallToolResult]> {
    const result = (await this.client.callTool({ name: this.name, arguments: args }, undefined, config?.signal ? { signal: config.signal } : undefined)) as CallToolResult;
    return [result.content.map((c) => (c.type === "text" ? c.text : "")).join(""), result];
  }
}

/** The floor's tools for every tool the client lists. */
export async function floorTools(client: Client): Promise<FloorTool[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => new FloorTool(client, tool));
}

/**
 * The LangChain floor: the least a LangChain tool over the raw SDK can be. A bare
 * `StructuredTool` with the server's JSON Schema and `content_and_artifact`, as ours has,
 * whose `_call` calls the client's `callTool` with the caller's signal and returns the text.
 * Anything that keeps LangChain's callbacks and validation pays at least this.
 */
import { StructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

export class FloorTool extends StructuredTool {
  override name: string;
  override description: string;
  override schema: JSONSchema;
  override responseFormat = "content_and_artifact" as const;

  constructor(
    private readonly send: CallTool,
    tool: Tool,
  ) {
    super();
    this.name = tool.name;
    this.description = tool.description ?? "";
    this.schema = tool.inputSchema as JSONSchema;
  }

  protected override async _call(args: Record<string, unknown>, _run: unknown, config?: ToolRunnableConfig): Promise<[string, CallToolResult]> {
    const result = await this.send({ name: this.name, arguments: args }, config?.signal ? { signal: config.signal } : undefined);
    return [result.content.map((c) => (c.type === "text" ? c.text : "")).join(""), result];
  }
}

/** One tool call on a client of either SDK line. */
export type CallTool = (params: { name: string; arguments: Record<string, unknown> }, options: { signal: AbortSignal } | undefined) => Promise<CallToolResult>;

/** The floor's tools for every tool a v1 client lists. */
export async function floorTools(client: Client): Promise<FloorTool[]> {
  const { tools } = await client.listTools();
  const send: CallTool = async (params, options) => (await client.callTool(params, undefined, options)) as CallToolResult;
  return tools.map((tool) => new FloorTool(send, tool));
}

/** The floor's tool named `name` on a v2 client (`@modelcontextprotocol/client`). */
export async function floorToolV2(client: V2Client, name: string): Promise<FloorTool> {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`The server lists no tool '${name}'.`);
  const send: CallTool = async (params, options) => (await client.callTool(params, options)) as CallToolResult;
  return new FloorTool(send, tool as Tool);
}

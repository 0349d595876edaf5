/**
 * The prompts as two model tools, for autonomous agents only (`prompts: { tools: true }`, per
 * toolkit and per server): `list_mcp_prompts` lists the prompts of the servers that offer them,
 * and `get_mcp_prompt({ name, server?, arguments? })` fills one in and hands the model its
 * messages. Two fixed tools, not one per prompt: the tool list does not grow with the servers'
 * prompts. They are McpTools: a failure is one readable, redacted line in an error ToolMessage,
 * with the McpToolError as its artifact, as for any tool of the toolkit.
 */
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_ERROR_OPTIONS, DEFAULT_MAX_RESULT_LENGTH, type McpToolkitConfig } from "../config/index.js";
import type { ContentBlock } from "../errors/contentText.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { Redactor } from "../errors/redactor.js";
import { McpTool, type ToolExecutorFactory } from "./McpTool.js";
import { convertResult } from "../mcp/call/content.js";
import { begin } from "../policy/chain.js";
import type { McpPromptInfo } from "./McpPrompts.js";

export const LIST_PROMPTS_TOOL = "list_mcp_prompts";
export const GET_PROMPT_TOOL = "get_mcp_prompt";

/** What the tools ask of `toolkit.prompts`; their failures come back classified, unredacted (the tool redacts). */
export interface PromptSource {
  list(server: string, signal?: AbortSignal): Promise<McpPromptInfo[]>;
  fetch(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult>;
}

/** The servers whose prompts the model is offered: a server's own `prompts.tools`, else the toolkit's. */
export function promptToolServers(config: McpToolkitConfig): string[] {
  return Object.entries(config.servers)
    .filter(([, server]) => server.prompts?.tools ?? config.prompts?.tools ?? false)
    .map(([name]) => name);
}

/** The two tools, or none when no server offers its prompts to the model. */
export function promptTools(config: McpToolkitConfig, redactor: Redactor, source: PromptSource): McpTool[] {
  const servers = promptToolServers(config);
  if (servers.length === 0) return [];
  const server = { type: "string", enum: servers, description: "The server the prompt is on; optional when only one server has a prompt of that name." };
  const tool = (name: string, description: string, schema: JSONSchema, run: (args: Record<string, unknown>, signal?: AbortSignal) => Promise<[unknown, unknown]>) =>
    new McpTool({
      name,
      description,
      schema,
      metadata: { idempotent: true },
      execute: executor(name, run),
      errorMode: config.errors?.mode ?? DEFAULT_ERROR_OPTIONS.mode,
      redactor,
    });
  const maxLength = config.maxResultLength ?? DEFAULT_MAX_RESULT_LENGTH;
  return [
    tool(LIST_PROMPTS_TOOL, "List the prompts (reusable instructions and conversation templates) the MCP servers offer, with their arguments.", { type: "object", properties: { server } }, async (args, signal) => {
      const named = typeof args.server === "string" ? [args.server] : servers;
      return [listing(await listAll(source, named.filter((s) => servers.includes(s)), signal)), undefined];
    }),
    tool(
      GET_PROMPT_TOOL,
      `Get a prompt of an MCP server, filled in with its arguments; call ${LIST_PROMPTS_TOOL} first to learn the names and arguments.`,
      {
        type: "object",
        properties: { name: { type: "string", description: "The prompt's name." }, server, arguments: { type: "object", additionalProperties: { type: "string" }, description: "The prompt's arguments, each a string." } },
        required: ["name"],
      },
      async (args, signal) => {
        const name = String(args.name);
        const where = typeof args.server === "string" ? args.server : await serverOf(source, servers, name, signal);
        const result = await source.fetch(where, name, stringArgs(args.arguments), signal);
        const { content, artifact } = convertResult({ content: asContent(result) }, maxLength);
        return [content, { ...artifact, prompt: { serverName: where, name }, messages: result.messages }];
      },
    ),
  ];
}

/** The tool's executor: its failures named after the tool the model called, and handed to McpTool's own handling. */
function executor(toolName: string, run: (args: Record<string, unknown>, signal?: AbortSignal) => Promise<[unknown, unknown]>): ToolExecutorFactory {
  return (failed) => (args, config) =>
    begin(() => run(args, config?.signal)).then(undefined, (thrown: unknown) => failed(isMcpToolError(thrown) ? thrown.with({ toolName }) : thrown));
}

interface Listed {
  prompts: McpPromptInfo[];
  failed: { server: string; error: McpToolError }[];
}

/** Every named server's prompts; a server that fails is named, the others still listed. */
async function listAll(source: PromptSource, servers: string[], signal: AbortSignal | undefined): Promise<Listed> {
  const settled = await Promise.allSettled(servers.map((s) => source.list(s, signal)));
  const out: Listed = { prompts: [], failed: [] };
  settled.forEach((result, i) => {
    if (result.status === "fulfilled") out.prompts.push(...result.value);
    else if (!(isMcpToolError(result.reason) && result.reason.reason === "capability_missing")) out.failed.push({ server: servers[i]!, error: result.reason as McpToolError });
  });
  return out;
}

function listing({ prompts, failed }: Listed): string {
  const lines = prompts.map((p) => {
    const args = p.arguments.map((a) => `${a.name}${a.required ? " (required)" : ""}${a.description ? `: ${a.description}` : ""}`);
    return `- server "${p.serverName}", prompt "${p.name}"${p.description ? `: ${p.description}` : ""}${args.length > 0 ? `\n  arguments: ${args.join("; ")}` : ""}`;
  });
  // The model reads the reason only; the message may hold what the redaction of the error would remove.
  for (const { server, error } of failed) lines.push(`- server "${server}": its prompts could not be listed (${error.reason}).`);
  return lines.length > 0 ? lines.join("\n") : "No server offers prompts.";
}

/** The one server that lists the prompt, when the model named none. */
async function serverOf(source: PromptSource, servers: string[], name: string, signal: AbortSignal | undefined): Promise<string> {
  const { prompts, failed } = await listAll(source, servers, signal);
  const holders = [...new Set(prompts.filter((p) => p.name === name).map((p) => p.serverName))];
  if (holders.length === 1) return holders[0]!;
  if (holders.length > 1) {
    throw McpToolError.of("invalid_arguments", `The prompt '${name}' is on the servers ${holders.join(", ")}: say which in 'server'.`, { outcome: "not_sent" });
  }
  const unlisted = failed.length > 0 ? ` (${failed.map((f) => f.server).join(", ")} could not be listed)` : "";
  throw McpToolError.of("prompt_not_found", `No server lists a prompt '${name}'${unlisted}.`, { outcome: "not_sent" });
}

function stringArgs(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined && v !== null) out[key] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}

/** The prompt's messages as one tool result's content: each message after a line naming its role. */
function asContent(result: GetPromptResult): ContentBlock[] {
  const blocks: ContentBlock[] = result.description ? [{ type: "text", text: result.description }] : [];
  for (const message of result.messages) {
    const block = message.content as ContentBlock;
    if (block.type === "text") blocks.push({ type: "text", text: `[${message.role}] ${block.text}` });
    else blocks.push({ type: "text", text: `[${message.role}]` }, block);
  }
  return blocks;
}

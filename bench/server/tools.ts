/**
 * The bench's own MCP servers (the test fixtures record every call, which would read as
 * growth, and change under the tests' feet). One McpServer holds every tool the sections
 * call; a low-level Server answers JSON-RPC errors, which McpServer would turn into `isError`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { FORM_SHAPE, formReply } from "./form.js";

const readOnly = { readOnlyHint: true, idempotentHint: true };

/**
 * `echo` (one string), `file_ticket` (a dozen fields), `fail` (answers isError), and
 * `hold`/`held`/`release`: `hold` waits until `release` is called, `held` says how many wait,
 * so the heap section can keep calls in flight without guessing when they have arrived.
 */
export function buildBenchServer(name = "bench"): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() }, annotations: readOnly }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("file_ticket", { description: "File a support ticket.", inputSchema: FORM_SHAPE, annotations: readOnly }, async (args) => ({
    content: [{ type: "text", text: formReply(args) }],
  }));
  server.registerTool("fail", { description: "Always answers isError.", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: message }],
    isError: true,
  }));

  const waiting: (() => void)[] = [];
  server.registerTool("hold", { description: "Answers once release is called.", annotations: readOnly }, async () => {
    await new Promise<void>((resolve) => waiting.push(resolve));
    return { content: [{ type: "text", text: "released" }] };
  });
  server.registerTool("held", { description: "How many hold calls wait.", annotations: readOnly }, async () => ({
    content: [{ type: "text", text: String(waiting.length) }],
  }));
  server.registerTool("release", { description: "Answers every waiting hold call." }, async () => {
    for (const resolve of waiting.splice(0)) resolve();
    return { content: [{ type: "text", text: "ok" }] };
  });
  return server;
}

/** `raise` answers a JSON-RPC error with the code and message of its arguments. */
export function buildProtocolErrorServer(): Server {
  return listingServer("bench-protocol-errors", [
    {
      name: "raise",
      description: "Answers with a JSON-RPC error.",
      inputSchema: { type: "object", properties: { code: { type: "number" }, message: { type: "string" } }, required: ["code", "message"] },
    },
  ], (args) => {
    throw new McpError(Number(args.code), String(args.message));
  });
}

/** A server listing `count` tools named `<group>_<n>` over `groups` groups (the build section's). */
export function buildManyToolsServer(count: number, groups: number): Server {
  const tools: Tool[] = Array.from({ length: count }, (_, i) => ({
    name: `${groupName(i % groups)}_${i}`,
    description: `Tool ${i}.`,
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  }));
  return listingServer("bench-many", tools, () => ({ content: [{ type: "text", text: "ok" }] }));
}

export const groupName = (g: number): string => `group${g}`;

function listingServer(name: string, tools: Tool[], call: (args: Record<string, unknown>) => unknown): Server {
  const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => call(request.params.arguments ?? {}) as never);
  return server;
}

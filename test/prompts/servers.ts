/**
 * Servers with prompts, built on each SDK line: the v1 `McpServer` (@modelcontextprotocol/sdk)
 * and the v2 one (@modelcontextprotocol/server), with the same prompts; a server with no prompts;
 * one that declares prompts but answers no prompts request (-32601); and a low-level v1 server
 * whose prompt list runs over several pages.
 */
import { McpServer as V1Server } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server as V1LowServer } from "@modelcontextprotocol/sdk/server/index.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpServer as V2Server, Server as V2LowServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
/** A value the toolkit's configuration sends to the server as a secret header. */
export const SECRET = "sk-live-prompt-9f8e7d6c5b4a3210";

type Message = { role: "user" | "assistant"; content: Record<string, unknown> };

const greet = ({ name, style }: { name: string; style?: string | undefined }): { messages: Message[] } => ({
  messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}${style ? ` in a ${style} way` : ""}.` } }],
});

const withResource = ({ topic }: { topic: string }): { messages: Message[] } => ({
  messages: [
    { role: "user", content: { type: "resource", resource: { uri: `notes://${topic}`, mimeType: "text/markdown", text: `# Notes on ${topic}` } } },
    { role: "user", content: { type: "resource", resource: { uri: "blob://logo", mimeType: "image/png", blob: PNG_1PX } } },
    { role: "assistant", content: { type: "text", text: `I have read the notes on ${topic}.` } },
    { role: "user", content: { type: "resource_link", uri: "files://report.pdf", name: "report", mimeType: "application/pdf" } },
  ],
});

const withImage = (): { messages: Message[] } => ({
  messages: [{ role: "user", content: { type: "image", data: PNG_1PX, mimeType: "image/png" } }],
});

const leaky = (): { messages: Message[] } => ({
  messages: [{ role: "assistant", content: { type: "text", text: `Use the key ${SECRET} to call the API.` } }],
});

/** The v1 SDK's McpServer with the fixture prompts. */
export function v1PromptServer(): V1Server {
  const server = new V1Server({ name: "prompts-v1", version: "1.0.0" });
  server.registerPrompt("greet", { description: "Greets someone.", argsSchema: { name: z.string().describe("Who to greet"), style: z.string().optional() } }, greet as never);
  server.registerPrompt("with_resource", { description: "Notes, a logo and a report.", argsSchema: { topic: z.string() } }, withResource as never);
  server.registerPrompt("with_image", { description: "An image." }, withImage as never);
  server.registerPrompt("leaky", { description: "Holds a secret." }, leaky as never);
  return server;
}

/** The v2 SDK's McpServer with the same prompts. */
export function v2PromptServer(): V2Server {
  const server = new V2Server({ name: "prompts-v2", version: "2.0.0" });
  server.registerPrompt("greet", { description: "Greets someone.", argsSchema: z.object({ name: z.string().describe("Who to greet"), style: z.string().optional() }) }, greet as never);
  server.registerPrompt("with_resource", { description: "Notes, a logo and a report.", argsSchema: z.object({ topic: z.string() }) }, withResource as never);
  server.registerPrompt("with_image", { description: "An image." }, withImage as never);
  server.registerPrompt("leaky", { description: "Holds a secret." }, leaky as never);
  return server;
}

/** Servers with a tool and no prompts at all (no prompts capability). */
export function v1NoPrompts(): V1Server {
  const server = new V1Server({ name: "tools-only-v1", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
}

export function v2NoPrompts(): V2Server {
  const server = new V2Server({ name: "tools-only-v2", version: "2.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
}

/** Servers that declare prompts and answer no prompts request: -32601 Method not found. */
export function v1DeclaresOnly(): V1LowServer {
  return new V1LowServer({ name: "declares-v1", version: "1.0.0" }, { capabilities: { prompts: {} } });
}

export function v2DeclaresOnly(): V2LowServer {
  return new V2LowServer({ name: "declares-v2", version: "2.0.0" }, { capabilities: { prompts: {} } });
}

/** A low-level v1 server listing `total` prompts, `perPage` at a time; counts the pages it served. */
export function pagedServer(total: number, perPage: number, pages: { served: number }): V1LowServer {
  const server = new V1LowServer({ name: "paged", version: "1.0.0" }, { capabilities: { prompts: {} } });
  server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
    pages.served++;
    const start = Number(request.params?.cursor ?? 0);
    const end = Math.min(total, start + perPage);
    const prompts = Array.from({ length: end - start }, (_, i) => ({ name: `p${start + i}`, arguments: [{ name: "x", required: true }] }));
    return end < total ? { prompts, nextCursor: String(end) } : { prompts };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request) => ({
    messages: [{ role: "user", content: { type: "text", text: `${request.params.name}(${request.params.arguments?.x ?? ""})` } }],
  }));
  return server;
}

/**
 * A server shaped like `@modelcontextprotocol/server-filesystem`: tools whose optional arguments
 * (`head`, `tail`, `excludePatterns`, `dryRun`, nested `options`) are what a model in strict
 * function-calling mode sends as `null`. Built once with the v1 SDK (`@modelcontextprotocol/sdk`)
 * and once with the v2 server package; each tool answers with the arguments it received, as
 * JSON, so a test sees exactly what reached the server. No file is touched.
 */
import { McpServer as V1Server } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer as V2Server } from "@modelcontextprotocol/server";
import { z } from "zod";

/** Each tool's input, as zod shapes both SDK lines turn into the JSON Schema the client lists. */
const TOOLS = {
  read_text_file: {
    description: "Read a file as text; `head` or `tail` limits it to the first or last N lines.",
    shape: { path: z.string(), head: z.number().optional(), tail: z.number().optional() },
  },
  search_files: {
    description: "Find files under a path whose names match a pattern.",
    shape: { path: z.string(), pattern: z.string(), excludePatterns: z.array(z.string()).optional() },
  },
  edit_file: {
    description: "Apply line edits to a file; `dryRun` only shows the diff.",
    shape: {
      path: z.string(),
      edits: z.array(z.object({ oldText: z.string(), newText: z.string(), replaceAll: z.boolean().optional() })),
      dryRun: z.boolean().optional(),
    },
  },
  write_file: {
    description: "Write a file; `note` may be null on purpose, `options` is an optional object.",
    shape: {
      path: z.string(),
      content: z.string(),
      note: z.string().nullable().optional(),
      options: z.object({ mode: z.string().optional(), append: z.boolean().optional() }).optional(),
    },
  },
} as const;

export type FilesToolName = keyof typeof TOOLS;

/** What the server answers: the arguments it received, for a test to read back. */
const received = (args: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(args) }] });

/** The server-filesystem-shaped tools on a v1 SDK McpServer. */
export function buildV1FilesServer(): V1Server {
  const server = new V1Server({ name: "files-v1", version: "1.0.0" });
  for (const [name, tool] of Object.entries(TOOLS)) {
    server.registerTool(name, { description: tool.description, inputSchema: tool.shape }, async (args: unknown) => received(args));
  }
  return server;
}

/** The same tools on a v2 `@modelcontextprotocol/server` McpServer. */
export function buildV2FilesServer(): V2Server {
  const server = new V2Server({ name: "files-v2", version: "2.0.0" });
  for (const [name, tool] of Object.entries(TOOLS)) {
    server.registerTool(name, { description: tool.description, inputSchema: z.object(tool.shape) }, async (args: unknown) => received(args));
  }
  return server;
}

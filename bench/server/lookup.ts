/**
 * The "Under faults" section's server: one read-only tool, `lookup`, whose work takes
 * `LOOKUP_WORK_MS` (a wait, as a query to a database or an index is, not CPU: 16 callers on a
 * 2-core machine would otherwise measure the server's queue).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export const LOOKUP_WORK_MS = 20;

export const lookupReply = (key: string): string => `found ${key}`;

export function buildLookupServer(): McpServer {
  const server = new McpServer({ name: "bench-lookup", version: "1.0.0" });
  server.registerTool(
    "lookup",
    { description: "Looks a key up.", inputSchema: { key: z.string() }, annotations: { readOnlyHint: true, idempotentHint: true } },
    async ({ key }) => {
      await new Promise((resolve) => setTimeout(resolve, LOOKUP_WORK_MS));
      return { content: [{ type: "text", text: lookupReply(key) }] };
    },
  );
  return server;
}

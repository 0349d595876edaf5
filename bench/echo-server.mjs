// A stdio MCP server with one tool, echo, in plain JavaScript: it starts in a fraction of
// the time the TypeScript fixture needs under tsx, so recovery figures show the client's
// reconnect work rather than a compiler's start-up.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { appendFileSync, existsSync } from "node:fs";
import { z } from "zod";

// Lets the bench stop a client that would restart this server forever: once the file
// exists, a new process exits at once, so the client's restart attempts run out.
// Each refusal is logged there, so the bench can count the starts.
const stopFile = process.env.BENCH_STOP_FILE;
if (stopFile && existsSync(stopFile)) {
  appendFileSync(stopFile, "refused\n");
  process.exit(1);
}

const server = new McpServer({ name: "bench-echo-stdio", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true, idempotentHint: true } },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());

/**
 * A stdio MCP server as careless as real ones: it prints its configuration, secrets included,
 * to stderr, and dies.
 * - `query` prints DB_PASS and REDIS_PASS (and a connection URL holding DB_PASS) to stderr, then
 *   exits in the middle of the call, before answering.
 * - `login` answers `isError: true` with the same text.
 * - LEAK_AT_START=1: prints them and exits before answering `initialize`, so connecting fails.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const leak = () =>
  `config: DB_PASS=${process.env.DB_PASS} REDIS_PASS=${process.env.REDIS_PASS}\n` +
  `fatal: could not connect to postgres://app:${process.env.DB_PASS}@db:5432/app (password ${process.env.DB_PASS} rejected), redis auth ${process.env.REDIS_PASS} failed\n`;

if (process.env.LEAK_AT_START === "1") {
  // Writes to a pipe are synchronous on POSIX: all of it is out before the exit.
  process.stderr.write(leak());
  process.exit(3);
}

const server = new McpServer({ name: "leaky-stdio", version: "1.0.0" });
server.registerTool("query", { description: "Runs a query; dies printing its secrets.", inputSchema: { sql: z.string() } }, () => {
  process.stderr.write(leak());
  process.exit(1);
});
server.registerTool("login", { description: "Fails, echoing its secrets.", inputSchema: {} }, () => ({
  isError: true,
  content: [{ type: "text", text: leak() }],
}));
await server.connect(new StdioServerTransport());

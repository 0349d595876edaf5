/**
 * A long-running tool as an MCP Task, with progress. The reference server's
 * `simulate-research-query` requires task execution; the toolkit calls it as a task, polls it,
 * and reports each status message as a `task` event (a UI would show these). Its timeout bounds
 * the whole task, and a lost connection would be resumed by task id, not re-run.
 * Run: npx tsx examples/long-task.ts
 */
import { createRequire } from "node:module";
// In your project: import { McpToolkit } from "langchain-mcp-errors";
import { McpToolkit } from "../src/index.js";

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const toolkit = await McpToolkit.connect({
  servers: { research: { transport: "stdio", command: process.execPath, args: [everything, "stdio"] } },
  // One minute for the whole task, polls included.
  tools: { "simulate-research-query": { timeoutMs: 60_000 } },
});
toolkit.on("task", (event) => console.log(`  [task ${event.status}] ${event.message ?? ""}`));

try {
  const tool = toolkit.getTool("simulate-research-query")!;
  const reply = await tool.invoke({ id: "call_1", name: tool.name, args: { topic: "tidal energy" }, type: "tool_call" });
  const firstLine = String(reply.content).split("\n").find((line) => line.startsWith("#"));
  console.log(`result [${reply.status}]: ${firstLine}`);
} finally {
  await toolkit.close();
}

/**
 * A long tool's progress streamed from a LangGraph run, as a UI would show it. The reference
 * server's `trigger-long-running-operation` reports each step with `notifications/progress`;
 * with `streamProgress: true` the toolkit passes each one to the graph's custom stream
 * (`streamMode: "custom"`) as `{ event: "mcp_progress", progress, total, ... }`, while the tool's
 * answer arrives as usual.
 * Run: npx tsx examples/stream-progress.ts
 */
import { createRequire } from "node:module";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
// In your project: import { McpToolkit } from "langchain-mcp-errors";
import { McpToolkit } from "../src/index.js";

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const toolkit = await McpToolkit.connect({
  servers: { everything: { transport: "stdio", command: process.execPath, args: [everything, "stdio"] } },
  // LangGraph cannot tell a tool whether the run streams `custom`: the toolkit writes there when asked.
  streamProgress: true,
});

try {
  const graph = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile();
  // A scripted model turn: call the long tool (2 s, 4 steps).
  const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "trigger-long-running-operation", args: { duration: 2, steps: 4 } }] });
  const stream = await graph.stream({ messages: [new HumanMessage("Run the long operation."), call] }, { streamMode: ["custom", "updates"] });
  for await (const [mode, chunk] of stream) {
    if (mode === "custom") {
      const { progress, total } = chunk as { progress: number; total?: number };
      console.log(`progress ${progress}/${total ?? "?"}`);
    } else if (mode === "updates") {
      const messages = (chunk as { tools?: { messages?: { content: unknown }[] } }).tools?.messages ?? [];
      for (const message of messages) console.log(`tool answered: ${String(message.content)}`);
    }
  }
} finally {
  await toolkit.close();
}

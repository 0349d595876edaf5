/**
 * Our tools in your own LangGraph graph. ToolNode runs the model's tool calls; a failed MCP
 * call comes back as an error ToolMessage (status "error", the classified error in its
 * artifact) instead of an exception, so the next node runs and can decide what to do.
 * Run: npx tsx examples/langgraph-toolnode.ts
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
// In your project: import { McpToolkit, type McpToolErrorJSON } from "langchain-mcp-errors";
import { McpToolkit, type McpToolErrorJSON } from "../src/index.js";
import { startDemoServer } from "../demo/server.js";

const server = await startDemoServer({ name: "shop", only: ["inventory", "send_sms"] });
const toolkit = await McpToolkit.connect({ servers: { shop: { transport: "http", url: server.url } } });

// After the tools ran, branch on the artifact: your code reads reason/transient, not text.
const review = (state: typeof MessagesAnnotation.State) => {
  const results = state.messages.filter((m) => ToolMessage.isInstance(m));
  const failed = results.filter((m) => m.status === "error").map((m) => `${m.name} (${(m.artifact as McpToolErrorJSON).reason})`);
  return { messages: [new AIMessage(`${results.length - failed.length} of ${results.length} calls worked; failed: ${failed.join(", ") || "none"}.`)] };
};

const graph = new StateGraph(MessagesAnnotation)
  .addNode("tools", new ToolNode(toolkit.getTools()))
  .addNode("review", review)
  .addEdge(START, "tools")
  .addEdge("tools", "review")
  .addEdge("review", END)
  .compile();

try {
  // The AIMessage a model would produce: two tool calls, run in parallel by ToolNode.
  const request = new AIMessage({
    content: "",
    tool_calls: [
      { id: "call_1", name: "inventory", args: { sku: "MCP-1" } },
      { id: "call_2", name: "send_sms", args: { to: "+15550100", text: "Back in stock" } },
    ],
  });
  const { messages } = await graph.invoke({ messages: [new HumanMessage("Check stock and tell the customer."), request] });
  for (const m of messages.filter((m) => ToolMessage.isInstance(m))) {
    console.log(`${m.name} [${m.status}]: ${String(m.content)}`);
  }
  console.log(`review node: ${String(messages.at(-1)?.content)}`);
} finally {
  await toolkit.close();
  await server.close();
}

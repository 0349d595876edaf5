/**
 * A server that needs a person's answer before it acts, inside a LangGraph run. With
 * `langGraphInputHandler()`, the server's question pauses the graph as an interrupt; resuming
 * with the person's answer completes the tool call. The server (2026-07-28) asks before it
 * acts, so the action happens once, after the answer.
 * Run: npx tsx examples/langgraph-interrupt.ts
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
// In your project: import { McpToolkit } from "langchain-mcp-errors"; and from "langchain-mcp-errors/agents".
import { langGraphInputHandler, type McpInputInterrupt } from "../src/agents.js";
import { McpToolkit } from "../src/index.js";

// A refund tool that asks for confirmation first (a 2026-07-28 server built with the v2 SDK).
let refunds = 0;
const build = () => {
  const server = new McpServer({ name: "billing", version: "1.0.0" });
  server.registerTool("refund", { description: "Refunds an order after confirmation.", inputSchema: z.object({ order: z.string() }) }, async ({ order }, ctx) => {
    const answer = (ctx.mcpReq.inputResponses as Record<string, { action: string; content?: { ok?: boolean } }> | undefined)?.confirm;
    if (!answer) {
      const requestedSchema = { type: "object" as const, properties: { ok: { type: "boolean" as const } }, required: ["ok"] };
      return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Refund order ${order}?`, requestedSchema }) } });
    }
    if (answer.action !== "accept" || answer.content?.ok !== true) return { content: [{ type: "text", text: `Refund of ${order} declined.` }] };
    refunds++;
    return { content: [{ type: "text", text: `Refunded order ${order}.` }] };
  });
  return server;
};
const handler = createMcpHandler(build);
const node = toNodeHandler(handler);
const http = createServer((req, res) => void node(req, res));
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;

const toolkit = await McpToolkit.connect({ servers: { billing: { transport: "http", url, inputHandler: langGraphInputHandler() } } });
const graph = new StateGraph(MessagesAnnotation)
  .addNode("tools", new ToolNode(toolkit.getTools()))
  .addEdge(START, "tools")
  .addEdge("tools", END)
  .compile({ checkpointer: new MemorySaver() });

try {
  const thread = { configurable: { thread_id: "refund-7" } };
  const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "refund", args: { order: "7" } }] });
  const paused = await graph.invoke({ messages: [new HumanMessage("Refund order 7."), call] }, thread);
  const question = (paused as { __interrupt__?: { value: McpInputInterrupt }[] }).__interrupt__?.[0]?.value;
  console.log(`paused: ${question?.serverName} asks "${question?.kind === "elicitation" ? question.request.message : ""}" (refunds so far: ${refunds})`);

  // A person says yes; the graph resumes where it paused.
  const done = await graph.invoke(new Command({ resume: { action: "accept", content: { ok: true } } }), thread);
  const reply = done.messages.filter((m) => ToolMessage.isInstance(m)).at(-1);
  console.log(`resumed: ${String(reply?.content)} (refunds: ${refunds})`);
} finally {
  await toolkit.close();
  await handler.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

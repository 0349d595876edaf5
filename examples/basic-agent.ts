/**
 * The smallest useful setup: an agent whose MCP tool fails, and keeps going.
 *
 * `send_sms` answers `isError: true` (its daily quota is used up). Plain adapters throw
 * here and the run dies; with the toolkit the model gets an error ToolMessage it can read
 * and act on. Run: npx tsx examples/basic-agent.ts (no API key: the model is scripted).
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
// In your project: import { McpToolkit, type McpToolErrorJSON } from "langchain-mcp-errors";
import { McpToolkit, type McpToolErrorJSON } from "../src/index.js";
import { startDemoServer } from "../demo/server.js";

// An MCP server over streamable HTTP on 127.0.0.1; yours would be a real URL or a stdio command.
const server = await startDemoServer({ name: "shop", only: ["send_sms"] });
const toolkit = await McpToolkit.connect({
  servers: { shop: { transport: "http", url: server.url } },
});

// A scripted model: it calls send_sms once, then answers with what the tool told it.
// Swap in any chat model ("openai:gpt-4o-mini", …); nothing else changes.
const model = fakeModel()
  .respondWithTools([{ name: "send_sms", args: { to: "+15550100", text: "Your order shipped" }, id: "call_1" }])
  .respond((messages: BaseMessage[]) => {
    const last = messages.filter((m) => ToolMessage.isInstance(m)).at(-1);
    return new AIMessage(`I could not send the SMS: ${String(last?.content)}`);
  });

const agent = createAgent({ model, tools: toolkit.getTools() });

try {
  // No try/catch around the tool: a failed call comes back as a message, never as a throw.
  const result = await agent.invoke({ messages: [{ role: "user", content: "Text the customer that the order shipped." }] });
  const reply = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
  // The artifact carries the structured error for your code (logs, metrics, alerts).
  const error = reply.artifact as McpToolErrorJSON;

  console.log(`tool message status: ${reply.status}`);
  console.log(`the model read:      ${String(reply.content)}`);
  console.log(`classified as:       reason=${error.reason} kind=${error.kind} transient=${error.transient} outcome=${error.outcome}`);
  console.log(`the agent finished:  ${String(result.messages.at(-1)?.content).slice(0, 60)}…`);
} finally {
  // close() ends every socket and timer the toolkit opened, so the process can exit.
  await toolkit.close();
  await server.close();
}

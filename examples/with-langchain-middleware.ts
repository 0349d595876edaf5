/**
 * Using LangChain's own middleware instead of the toolkit's retries:
 * - `toolRetryMiddleware({ retryOn: mcpRetryOn })` retries only failures that certainly never
 *   reached the server (a 503 yes; an `isError` answer or a dropped connection no);
 * - `mcpErrorMiddleware()` turns whatever still throws, from any tool, MCP or not, into a
 *   classified error ToolMessage, so the run goes on.
 * Run: npx tsx examples/with-langchain-middleware.ts
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { createAgent, fakeModel, toolRetryMiddleware } from "langchain";
import { z } from "zod";
// In your project: import { McpToolkit } from "langchain-mcp-errors";
import { McpToolkit } from "../src/index.js";
// In your project: import { mcpErrorMiddleware, mcpRetryOn } from "langchain-mcp-errors/agents";
import { mcpErrorMiddleware, mcpRetryOn } from "../src/agents.js";
import { startDemoServer } from "../demo/server.js";

const server = await startDemoServer({ name: "shop", searchFailures: 2, only: ["search", "send_sms"] });
const toolkit = await McpToolkit.connect({
  servers: { shop: { transport: "http", url: server.url } },
  // Let the middleware decide: our tools throw their McpToolError and never retry on their own.
  errors: { mode: "throw" },
  retry: { retries: 0 },
  onEvent: (e) => e.type === "error" && console.log(`  ${e.toolName} threw ${e.error.reason} (outcome ${e.error.outcome})`),
});

// A hand-written tool that is not MCP at all, whose cache is down: the same middleware pair
// retries it (a refused connection never reached the cache) and then classifies the failure.
const cacheGet = tool(
  async () => {
    console.log("  cache_get threw ECONNREFUSED");
    throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });
  },
  { name: "cache_get", description: "Read a value from the cache.", schema: z.object({ key: z.string() }) },
);

// Typed as one array: LangChain's createAgent types reject a literal mix of tool kinds.
const tools: StructuredToolInterface[] = [...toolkit.getTools(), cacheGet];

// A scripted model (no API key): one tool call per turn, then its answer.
const model = fakeModel()
  .respondWithTools([{ name: "search", args: { query: "mcp" }, id: "call_1" }])
  .respondWithTools([{ name: "send_sms", args: { to: "+15550100", text: "hi" }, id: "call_2" }])
  .respondWithTools([{ name: "cache_get", args: { key: "cart:7" }, id: "call_3" }])
  .respond(new AIMessage("Search worked after two 503s; the SMS quota is used up and the cache is down."));

const agent = createAgent({
  model,
  tools,
  // The first middleware wraps the others: it sees only what toolRetryMiddleware gave up on.
  middleware: [mcpErrorMiddleware(), toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 50, retryOn: mcpRetryOn, onFailure: "error" })],
});

try {
  const result = await agent.invoke({ messages: [{ role: "user", content: "Run the checks." }] });
  for (const m of result.messages.filter((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage[]) {
    console.log(`${m.name} [${m.status ?? "success"}]: ${String(m.content)}`);
  }
  console.log(`agent: ${String(result.messages.at(-1)?.content)}`);
} finally {
  await toolkit.close();
  await server.close();
}

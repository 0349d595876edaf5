/**
 * The quick start's agent in a Cloudflare Worker (or any runtime with `fetch` and web streams):
 * MCP servers over HTTP only, a scripted model (no API key), and a failing tool that reaches the
 * model as an error ToolMessage instead of failing the request. Built with esbuild (or wrangler)
 * for workerd; runs with and without `nodejs_compat`. test/runtimes/worker.test.ts builds it,
 * runs it in Miniflare, and reads its answer.
 *
 * GET /?mcp=<url of an MCP server with the tools `echo` and `fail`>
 */
import { AIMessage, ToolMessage, createAgent, fakeModel } from "langchain";
// In your project: import { McpToolkit, type McpToolErrorJSON } from "langchain-mcp-errors";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(String(new URL(request.url).searchParams.get("mcp")));
    const toolkit = await McpToolkit.connect({
      servers: { issues: { transport: "http", url, trustAnnotations: true } },
    });
    const retries: string[] = [];
    toolkit.on("retry", (event) => retries.push(event.error.reason));
    try {
      const model = fakeModel()
        .respondWithTools([{ name: "echo", args: { text: "hello" }, id: "call_1" }])
        .respondWithTools([{ name: "fail", args: { message: "the tracker is down" }, id: "call_2" }])
        .respond(new AIMessage("One tool answered; the other reported an error."));
      const agent = createAgent({ model, tools: toolkit.getTools() });
      const result = await agent.invoke({ messages: [{ role: "user", content: "Echo hello, then list the issues." }] });
      const tools = result.messages.filter(ToolMessage.isInstance).map((message) => ({
        name: message.name,
        status: message.status,
        content: message.content,
        // A failed call's artifact is the structured error (McpToolErrorJSON).
        reason: message.status === "error" ? (message.artifact as McpToolErrorJSON).reason : undefined,
      }));
      return Response.json({ tools, retries, answer: result.messages.at(-1)?.content });
    } finally {
      await toolkit.close();
    }
  },
};

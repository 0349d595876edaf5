import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { createAgent, fakeModel, toolRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpErrorMiddleware, mcpRetryOn } from "../../src/agents.js";
import { McpToolkit, McpToolError, wrapTool, type McpToolErrorJSON } from "../../src/index.js";
import { buildFixtureServer, buildProtocolErrorServer, newState } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { connectInMemory } from "../servers/memory.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

/** A scripted model: calls the given tools once, then answers with what the last tool said. */
function scripted(calls: { name: string; args: Record<string, unknown> }[]) {
  const seen: BaseMessage[][] = [];
  const model = fakeModel()
    .respondWithTools(calls.map((c, i) => ({ ...c, id: `tc-${i}` })))
    .respond((messages: BaseMessage[]) => {
      seen.push(messages);
      const last = messages.filter((m) => ToolMessage.isInstance(m)).at(-1);
      return new AIMessage(`The tool said: ${String(last?.content)}`);
    });
  return { model, seen };
}

describe("inside createAgent", () => {
  it("keeps the agent running when an MCP tool answers isError, and the model reads the error", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { fx: { client } } });
    cleanups.push(close, () => toolkit.close());
    const { model, seen } = scripted([{ name: "fail", args: {} }]);
    const agent = createAgent({ model, tools: toolkit.getTools() });
    const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] });
    const toolMessage = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.status).toBe("error");
    expect((toolMessage.artifact as McpToolErrorJSON).reason).toBe("tool_error");
    expect(seen[0]!.some((m) => String(m.content).includes("failed (tool_error): quota exceeded"))).toBe(true);
    expect(String(result.messages.at(-1)!.content)).toContain("The tool said: Error: Tool 'fail' failed (tool_error)");
  });

  it("turns a throwing non-MCP tool into an error ToolMessage with mcpErrorMiddleware", async () => {
    const flaky = tool(
      async () => {
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { cause: { code: "ECONNREFUSED" } });
      },
      { name: "cache_get", description: "Reads the cache.", schema: z.object({ key: z.string() }) },
    );
    const { model, seen } = scripted([{ name: "cache_get", args: { key: "k" } }]);
    const agent = createAgent({ model, tools: [flaky], middleware: [mcpErrorMiddleware()] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] });
    const toolMessage = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.status).toBe("error");
    expect(toolMessage.content).toMatch(/^Error: Tool 'cache_get' failed \(connection_refused\)/);
    expect(seen).toHaveLength(1);
  });

  it("without the middleware the same throwing tool ends the run (the failure we prevent)", async () => {
    const broken = tool(
      async () => {
        throw new Error("boom");
      },
      { name: "broken", description: "Always throws.", schema: z.object({}) },
    );
    const { model } = scripted([{ name: "broken", args: {} }]);
    const agent = createAgent({ model, tools: [broken], middleware: [toolRetryMiddleware({ maxRetries: 0, onFailure: "raise" })] });
    await expect(agent.invoke({ messages: [{ role: "user", content: "go" }] })).rejects.toThrow(/boom/);
  });

  it("lets toolRetryMiddleware retry with mcpRetryOn: a 503 is retried, a permanent error is not", async () => {
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href } },
      errors: { mode: "throw" },
      retry: { retries: 0 },
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    http.failNext(503);
    const { model } = scripted([{ name: "echo", args: { text: "made it" } }]);
    const agent = createAgent({
      model,
      tools: toolkit.getTools(),
      middleware: [toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 1, retryOn: mcpRetryOn, onFailure: "return_message" })],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] });
    const toolMessage = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.content).toBe("made it");
    expect(mcpRetryOn(McpToolError.of("invalid_params", "bad"))).toBe(false);
    expect(mcpRetryOn(McpToolError.of("connection_closed", "gone"))).toBe(false);
    expect(mcpRetryOn(McpToolError.of("service_unavailable", "busy"))).toBe(true);
  });
});

describe("wrapTool", () => {
  it("recovers the reason from @langchain/mcp-adapters' ToolException and returns an error ToolMessage", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    cleanups.push(close);
    const adapterTools = await loadMcpTools("fx", client);
    const fail = wrapTool(adapterTools.find((t) => t.name === "fail")!, { serverName: "fx", retry: { retries: 0 } });
    const reply = (await fail.invoke({ type: "tool_call", id: "c1", name: "fail", args: {} })) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "tool_error", kind: "domain", serverName: "fx" });
    expect(reply.content).toContain("quota exceeded");
    // The original ToolException is kept as the cause, never dropped.
    const thrown = wrapTool(adapterTools.find((t) => t.name === "fail")!, { errorMode: "throw", retry: { retries: 0 } });
    const error = (await thrown.invoke({}).catch((e: unknown) => e)) as McpToolError;
    // Thrown redacted: the cause is reachable only through the explicit accessor.
    expect(error.cause).toBeUndefined();
    expect((error.unredacted().cause as Error).name).toBe("ToolException");
  });

  it("recovers a JSON-RPC code from the adapters' message when there is no cause", async () => {
    const { client, close } = await connectInMemory(buildProtocolErrorServer());
    cleanups.push(close);
    const [raise] = await loadMcpTools("p", client);
    const wrapped = wrapTool(raise!, { retry: { retries: 0 } });
    const text = await wrapped.invoke({ code: -32602, message: "date must be ISO 8601" });
    expect(text).toBe("Error: Tool 'raise' failed (invalid_params): date must be ISO 8601. Fix the arguments to match the tool's input schema, then call it again.");
  });

  it("retries a hand-written tool under the policy and returns its answer", async () => {
    let calls = 0;
    const unstable = tool(
      async ({ q }: { q: string }) => {
        calls++;
        if (calls < 3) throw Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
        return `result for ${q}`;
      },
      { name: "web_search", description: "Searches.", schema: z.object({ q: z.string() }) },
    );
    const wrapped = wrapTool(unstable, { retry: { retries: 3, minTimeout: 1, randomize: false } });
    expect(await wrapped.invoke({ q: "mcp" })).toBe("result for mcp");
    expect(calls).toBe(3);
  });
});

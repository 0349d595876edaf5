/**
 * Issue 33: a tool that ran and reports "Tool docker not found on the build host" is not a stale
 * tool list. Only an error naming the tool that was called (its name on the server) reads as
 * `tool_not_found`, which lists the tools again and sends the call once more; anything else is
 * the tool's own failure, and a non-idempotent tool must not run twice. Real v1 servers over
 * streamable HTTP.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { fromResult } from "../../src/errors/fromResult.js";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function toolkitFor(build: () => McpServer | Server, prefixToolNames = false): Promise<McpToolkit> {
  const http = later(await startHttpFixture({ build }));
  return later(await McpToolkit.connect({ servers: { ci: { transport: "http", url: http.url.href } }, prefixToolNames, retry: { retries: 0 } }));
}

/** A low-level server whose one tool `deploy` throws the JSON-RPC error given, counting calls. */
function throwingServer(state: { calls: number; lists: number }, error: McpError | (() => McpError | undefined)): Server {
  const server = new Server({ name: "ci", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    state.lists++;
    return { tools: [{ name: "deploy", inputSchema: { type: "object" as const } }] };
  });
  server.setRequestHandler(CallToolRequestSchema, async () => {
    state.calls++;
    const thrown = typeof error === "function" ? error() : error;
    if (thrown) throw thrown;
    return { content: [{ type: "text", text: "deployed" }] };
  });
  return server;
}

describe("an isError text that names another tool as not found", () => {
  it("is the tool's own error: a deploy answering 'Tool docker not found on the build host' runs once", async () => {
    let calls = 0;
    const toolkit = await toolkitFor(() => {
      const server = new McpServer({ name: "ci", version: "1.0.0" });
      server.registerTool("deploy", { description: "Deploys; not idempotent." }, async () => {
        calls++;
        return { content: [{ type: "text", text: "Tool docker not found on the build host" }], isError: true };
      });
      return server;
    });
    const reply = await replyOf(toolkit.getTool("deploy"));
    expect(reply.error).toMatchObject({ reason: "tool_error", outcome: "executed", toolName: "deploy" });
    expect(reply.content).toContain("Tool docker not found on the build host");
    expect(calls).toBe(1);
  });

  it("still reads the called tool's own 'Tool deploy not found' as tool_not_found under a prefixed name", async () => {
    const state = { calls: 0, lists: 0 };
    let refuse = true;
    const toolkit = await toolkitFor(() => throwingServer(state, () => (refuse ? ((refuse = false), new McpError(ErrorCode.InvalidParams, "Tool deploy not found")) : undefined)), true);
    const tool = toolkit.getTool("ci__deploy");
    const reply = await replyOf(tool);
    // Read as a stale list: listed again, and sent once more (the first was refused unrun).
    expect(reply).toEqual({ content: "deployed", error: undefined });
    expect(state).toEqual({ calls: 2, lists: 2 });
  });
});

describe("a JSON-RPC error that names another tool as unknown", () => {
  it.each([
    ["-32602 'Tool docker not found'", new McpError(ErrorCode.InvalidParams, "Tool docker not found"), "invalid_params"],
    ["-32601 'Unknown tool: docker'", new McpError(ErrorCode.MethodNotFound, "Unknown tool: docker"), "method_not_found"],
  ])("%s from the tool deploy is not tool_not_found: not listed again, not sent again", async (_name, error, reason) => {
    const state = { calls: 0, lists: 0 };
    const toolkit = await toolkitFor(() => throwingServer(state, error));
    const reply = await replyOf(toolkit.getTool("deploy"));
    expect(reply.error?.reason).toBe(reason);
    expect(state).toEqual({ calls: 1, lists: 1 });
  });

  it("-32601 'Unknown tool: deploy' (fastmcp's wording) naming the called tool is tool_not_found", async () => {
    const state = { calls: 0, lists: 0 };
    const toolkit = await toolkitFor(() => throwingServer(state, new McpError(ErrorCode.MethodNotFound, "Unknown tool: deploy")));
    const reply = await replyOf(toolkit.getTool("deploy"));
    expect(reply.error?.reason).toBe("tool_not_found");
    expect(state.lists).toBe(2);
  });
});

describe("fromResult on its own", () => {
  const result = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true as const });

  it("reads a quoted or differently-worded name against the called tool", () => {
    expect(fromResult(result("Tool 'deploy' not found"), { mcpName: "deploy" })?.reason).toBe("tool_not_found");
    expect(fromResult(result("Unknown tool: `deploy`."), { mcpName: "deploy" })?.reason).toBe("tool_not_found");
    expect(fromResult(result("Unknown tool: docker"), { mcpName: "deploy" })?.reason).toBe("tool_error");
    expect(fromResult(result("Tool deploy-v2 disabled"), { mcpName: "deploy" })?.reason).toBe("tool_error");
  });

  it("prefers the name on the server over the name the model called", () => {
    expect(fromResult(result("Tool deploy not found"), { toolName: "ci__deploy", mcpName: "deploy" })?.reason).toBe("tool_not_found");
    expect(fromResult(result("Tool ci__deploy not found"), { toolName: "ci__deploy", mcpName: "deploy" })?.reason).toBe("tool_error");
  });

  it("without a called tool known, any tool named will do (as before)", () => {
    expect(fromResult(result("Tool nope not found"))?.reason).toBe("tool_not_found");
  });
});

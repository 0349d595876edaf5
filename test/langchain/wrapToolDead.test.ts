/**
 * `wrapTool` over a tool of `@langchain/mcp-adapters` whose stdio server died: the adapters keep
 * their closed client, and nothing in `wrapTool` can open it again, so a retry within the call
 * meets the same closed client. The failure is permanent, tried once, and the model is not told
 * to try again.
 */
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { wrapTool, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import type { ToolMessage } from "@langchain/core/messages";
import { closeAfterEach } from "../servers/cleanups.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();

describe("wrapTool over an adapters tool whose stdio server died", () => {
  it("is not retried: its client cannot come back, and the model is not told to try later", async () => {
    const client = new Client({ name: "adapters-user", version: "1.0.0" });
    await client.connect(new StdioClientTransport(stdioFixtureCommand()));
    cleanups.push(() => client.close());
    const tools = await loadMcpTools("fixture", client);
    const crash = tools.find((t) => t.name === "crash")!;
    await crash.invoke({ code: 3 }).catch(() => undefined);
    const events: McpEvent[] = [];
    const echo = wrapTool(tools.find((t) => t.name === "echo")!, { serverName: "fixture", idempotent: true, retry: { retries: 2, minTimeout: 10 }, onEvent: (e) => events.push(e) });
    const reply = (await echo.invoke({ type: "tool_call", id: "c1", name: "echo", args: { text: "x" } })) as ToolMessage;
    const error = reply.artifact as McpToolErrorJSON;
    expect(error).toMatchObject({ reason: "not_connected", transient: false, attempts: 1 });
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(String(reply.content)).not.toMatch(/try again/i);
  });
});

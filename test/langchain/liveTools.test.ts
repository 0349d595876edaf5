/**
 * Live tool lists: tools a server adds or removes while the toolkit runs, announced with
 * notifications/tools/list_changed or discovered through a tool_not_found. Real servers over
 * streamable HTTP in both eras: v1 (2025, the announcement rides the session's event stream)
 * and v2 (2026-07-28, on the subscriptions/listen stream the toolkit opens).
 */
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startHttpFixture } from "../servers/http.js";
import { eventually } from "../errors/helpers.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const invoke = (_toolkit: McpToolkit, tool: ReturnType<McpToolkit["getTool"]>, args: Record<string, unknown> = {}) => replyOf(tool, args);

describe("a server that announces tool-list changes", () => {
  it("offers a tool it adds, and a tool it removes answers tool_not_found without a call", async () => {
    let extra: RegisteredTool | undefined;
    const calls: string[] = [];
    const http = later(
      await startHttpFixture({
        build: () => {
          const server = new McpServer({ name: "growing", version: "1.0.0" });
          server.registerTool("grow", { description: "Adds the tool 'extra'." }, async () => {
            calls.push("grow");
            extra = server.registerTool("extra", { description: "Appears later." }, async () => {
              calls.push("extra");
              return { content: [{ type: "text", text: "extra ran" }] };
            });
            return { content: [{ type: "text", text: "grown" }] };
          });
          server.registerTool("shrink", { description: "Removes the tool 'extra'." }, async () => {
            calls.push("shrink");
            extra?.remove();
            return { content: [{ type: "text", text: "shrunk" }] };
          });
          return server;
        },
      }),
    );
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e) }));
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["grow", "shrink"]);

    await invoke(toolkit, toolkit.getTool("grow"));
    await eventually(() => expect(toolkit.getTools().map((t) => t.name)).toContain("extra"));
    const held = toolkit.getTool("extra")!;
    expect((await invoke(toolkit, held)).content).toBe("extra ran");
    expect(events).toContainEqual({ type: "tools_changed", serverName: "s", added: ["extra"], removed: [] });

    await invoke(toolkit, toolkit.getTool("shrink"));
    await eventually(() => expect(toolkit.getTool("extra")).toBeUndefined());
    expect(events).toContainEqual({ type: "tools_changed", serverName: "s", added: [], removed: ["extra"] });
    const gone = await invoke(toolkit, held);
    expect(gone.error).toMatchObject({ reason: "tool_not_found", outcome: "not_sent", toolName: "extra" });
    // Answered without a call: the server ran 'extra' once, before it was removed.
    expect(calls.filter((c) => c === "extra")).toHaveLength(1);
  });
});

/** A server whose list changes without an announcement (it declares no listChanged). */
function silentServer(state: { tools: string[]; refuseOnce: Set<string>; calls: string[]; lists: number }): Server {
  const server = new Server({ name: "silent", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    state.lists++;
    return { tools: state.tools.map((name) => ({ name, description: name, inputSchema: { type: "object" as const } })) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    state.calls.push(name);
    if (!state.tools.includes(name) || state.refuseOnce.delete(name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    return { content: [{ type: "text", text: `${name} ran` }] };
  });
  return server;
}

describe("a tool_not_found from the server", () => {
  it("lists the tools again; a tool still listed is called once more and answers", async () => {
    const state = { tools: ["search"], refuseOnce: new Set(["search"]), calls: [] as string[], lists: 0 };
    const http = later(await startHttpFixture({ build: () => silentServer(state) }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } } }));
    const reply = await invoke(toolkit, toolkit.getTool("search"));
    expect(reply).toEqual({ content: "search ran", error: undefined });
    expect(state.calls).toEqual(["search", "search"]);
    expect(state.lists).toBe(2);
  });

  it("lists the tools again; a tool no longer listed leaves the toolkit and is not called while it stays unlisted", async () => {
    const state = { tools: ["search", "old"], refuseOnce: new Set<string>(), calls: [] as string[], lists: 0 };
    const http = later(await startHttpFixture({ build: () => silentServer(state) }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } } }));
    const held = toolkit.getTool("old")!;
    state.tools = ["search"];
    const first = await invoke(toolkit, held);
    expect(first.error).toMatchObject({ reason: "tool_not_found", transient: false });
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["search"]);
    const second = await invoke(toolkit, held);
    expect(second.error).toMatchObject({ reason: "tool_not_found", outcome: "not_sent" });
    // The held object asks the list once more (the tool may be back), and does not call it.
    expect(state.calls).toEqual(["old"]);
    expect(state.lists).toBe(3);
  });
});

describe("a 2026-07-28 server that never acknowledges the tool-list stream", () => {
  it("costs the connect a bounded wait, not the connect: the toolkit connects and calls work", async () => {
    const { startV2Http } = await import("../servers/v2/http.js");
    const { startFaultProxy } = await import("../servers/proxy/faultProxy.js");
    const http = later(await startV2Http({ mode: "modern" }));
    const proxy = later(await startFaultProxy(http.url));
    proxy.plan({ kind: "stall" }, { rpc: "subscriptions/listen" });
    // The stream's acknowledgement may take a quarter of connectTimeoutMs (1 s here); waiting for
    // it under the connect's own timeout, as the SDK's listChanged option does, fails the connect.
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: proxy.url.href, connectTimeoutMs: 4_000 } } }));
    expect(proxy.seen.some((r) => r.rpc === "subscriptions/listen" && r.fault === "stall")).toBe(true);
    expect((await invoke(toolkit, toolkit.getTool("echo"), { text: "still here" })).content).toBe("still here");
  });
});

describe("a 2026-07-28 server that announces tool-list changes on the subscriptions/listen stream", () => {
  it("offers the tool it adds, and a tool it removes answers tool_not_found without a call", async () => {
    const { createServer } = await import("node:http");
    const { toNodeHandler } = await import("@modelcontextprotocol/node");
    const { createMcpHandler, McpServer: V2McpServer } = await import("@modelcontextprotocol/server");
    const { z } = await import("zod");
    // One tool set shared by the per-request server instances; a change is published to every
    // open listen stream through the handler's notifier.
    const tools = new Set(["grow", "shrink"]);
    const calls: string[] = [];
    let notify = () => {};
    const build = () => {
      const server = new V2McpServer({ name: "growing-2026", version: "1.0.0" });
      const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
      if (tools.has("grow")) server.registerTool("grow", { description: "Adds 'extra'.", inputSchema: z.object({}) }, async () => (tools.add("extra"), notify(), text("grown")));
      if (tools.has("shrink")) server.registerTool("shrink", { description: "Removes 'extra'.", inputSchema: z.object({}) }, async () => (tools.delete("extra"), notify(), text("shrunk")));
      if (tools.has("extra")) server.registerTool("extra", { description: "Appears later.", inputSchema: z.object({}) }, async () => (calls.push("extra"), text("extra ran")));
      return server;
    };
    const handler = createMcpHandler(build, { legacy: "reject" });
    notify = () => handler.notify.toolsChanged();
    const node = toNodeHandler(handler);
    const http = createServer((req, res) => void node(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url } }, onEvent: (e) => events.push(e) }));
    expect(toolkit.protocolEra("s")).toBe("modern");

    await invoke(toolkit, toolkit.getTool("grow"));
    await eventually(() => expect(toolkit.getTools().map((t) => t.name)).toContain("extra"));
    const held = toolkit.getTool("extra")!;
    expect((await invoke(toolkit, held)).content).toBe("extra ran");

    await invoke(toolkit, toolkit.getTool("shrink"));
    await eventually(() => expect(toolkit.getTool("extra")).toBeUndefined());
    expect(events.filter((e) => e.type === "tools_changed")).toEqual([
      { type: "tools_changed", serverName: "s", added: ["extra"], removed: [] },
      { type: "tools_changed", serverName: "s", added: [], removed: ["extra"] },
    ]);
    expect((await invoke(toolkit, held)).error).toMatchObject({ reason: "tool_not_found", outcome: "not_sent" });
    expect(calls).toEqual(["extra"]);
  });
});

/**
 * One send path: every send of a tool call passes the toolkit's hooks (`beforeToolCall` before
 * it, `afterToolCall` on its answer, an `isError` one included), and a call whose own headers the
 * transport cannot carry is refused unsent rather than sent under someone else's identity.
 * Real v1 SDK servers over streamable HTTP and stdio, and a client the user holds.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpTools, McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const userHook = ({ config }: { config?: { configurable?: Record<string, unknown> } }) => {
  const user = config?.configurable?.user;
  return typeof user === "string" ? { headers: { "x-user": user } } : undefined;
};

async function invoke(tool: { invoke: (...args: never[]) => Promise<unknown> } | undefined, args: Record<string, unknown>, user?: string) {
  const reply = (await (tool as { invoke: (call: unknown, config?: unknown) => Promise<ToolMessage> }).invoke({ type: "tool_call", id: "c1", name: "whoami", args }, user ? { configurable: { user } } : {})) as ToolMessage;
  return { status: reply.status, content: String(reply.content), error: reply.status === "error" ? (reply.artifact as McpToolErrorJSON) : undefined };
}

/** A low-level v1 server whose tool list can hide `whoami` and announce it, then list it again in silence. */
function hidingServer(state: { hidden: boolean; runs: string[] }) {
  const server = new Server({ name: "hiding", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  const whoami = { name: "whoami", description: "Says who asked.", inputSchema: { type: "object" as const, properties: { text: { type: "string" } } } };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: state.hidden ? [] : [whoami] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const user = String(extra.requestInfo?.headers["x-user"]);
    state.runs.push(user);
    return { content: [{ type: "text", text: `user=${user}` }] };
  });
  return server;
}

describe("a tool the server dropped and lists again", () => {
  it("is sent through beforeToolCall and afterToolCall like any other send", async () => {
    const state = { hidden: false, runs: [] as string[] };
    let server: Server | undefined;
    const http = later(
      await startHttpFixture({
        build: () => {
          server = hidingServer(state);
          return server;
        },
      }),
    );
    const after: string[] = [];
    const events: McpEvent[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href, era: "legacy" } },
        beforeToolCall: userHook,
        afterToolCall: (_context, result) => {
          after.push(JSON.stringify(result.content));
        },
        onEvent: (e) => events.push(e),
      }),
    );
    const tool = toolkit.getTool("whoami");
    // The server drops the tool and says so; the toolkit marks it removed.
    state.hidden = true;
    await server!.sendToolListChanged();
    while (!events.some((e) => e.type === "tools_changed" && e.removed.includes("whoami"))) await new Promise((resolve) => setTimeout(resolve, 5));
    // It lists it again without a word: the call reads the list once more and sends it.
    state.hidden = false;
    const reply = await invoke(tool, { text: "hi" }, "alice");
    expect(reply).toMatchObject({ status: "success", content: "user=alice" });
    expect(state.runs).toEqual(["alice"]);
    expect(after).toEqual([JSON.stringify([{ type: "text", text: "user=alice" }])]);
  });
});

describe("afterToolCall", () => {
  it("sees an isError answer, and may turn it into the result the model reads", async () => {
    const server = () => {
      const s = new McpServer({ name: "fails", version: "1.0.0" });
      s.registerTool("whoami", { description: "Always fails.", inputSchema: { text: z.string() } }, async () => ({ isError: true, content: [{ type: "text", text: "quota exceeded" }] }));
      return s;
    };
    const http = later(await startHttpFixture({ build: server }));
    const seen: unknown[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href } },
        afterToolCall: (_context, result) => {
          seen.push(result.isError);
          if (_context.args.text === "rewrite") return { content: [{ type: "text", text: "quota exceeded: try tomorrow" }] };
        },
      }),
    );
    const plain = await invoke(toolkit.getTool("whoami"), { text: "plain" });
    expect(plain.error).toMatchObject({ reason: "tool_error", outcome: "executed" });
    const rewritten = await invoke(toolkit.getTool("whoami"), { text: "rewrite" });
    expect(rewritten).toMatchObject({ status: "success", content: "quota exceeded: try tomorrow" });
    expect(seen).toEqual([true, true]);
  });
});

/** A v1 server whose `whoami` answers with the x-user header it got. */
function whoami(runs: string[]) {
  const s = new McpServer({ name: "whoami", version: "1.0.0" });
  s.registerTool("whoami", { description: "Says who asked.", inputSchema: { text: z.string() } }, async (_args, extra) => {
    const user = String(extra.requestInfo?.headers["x-user"]);
    runs.push(user);
    return { content: [{ type: "text", text: `user=${user}` }] };
  });
  return s;
}

describe("per-call headers", () => {
  it("reach the server through a v2 client the user holds over streamable HTTP", async () => {
    const runs: string[] = [];
    const http = later(await startHttpFixture({ build: () => whoami(runs) }));
    const client = new Client({ name: "mine", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    cleanups.push(() => client.close());
    const tools = await createMcpTools(client, { beforeToolCall: userHook });
    cleanups.push(() => tools.close());
    const reply = await invoke(tools.find((t) => t.name === "whoami"), { text: "hi" }, "alice");
    expect(reply).toMatchObject({ status: "success", content: "user=alice" });
    expect(runs).toEqual(["alice"]);
  });

  it("that a v1 client the user holds cannot carry fail the call unsent, and the server never runs it", async () => {
    const runs: string[] = [];
    const http = later(await startHttpFixture({ build: () => whoami(runs) }));
    const client = new V1Client({ name: "mine", version: "1.0.0" });
    await client.connect(new V1Transport(http.url));
    cleanups.push(() => client.close());
    const tools = await createMcpTools(client, { beforeToolCall: userHook });
    cleanups.push(() => tools.close());
    const tool = tools.find((t) => t.name === "whoami");
    const reply = await invoke(tool, { text: "hi" }, "alice");
    expect(reply.error).toMatchObject({ reason: "interceptor_error", outcome: "not_sent", transient: false });
    expect(reply.error?.message).toMatch(/per-request headers/);
    // A call that sets none still goes out as before.
    expect(await invoke(tool, { text: "hi" })).toMatchObject({ status: "success", content: "user=undefined" });
    expect(runs).toEqual(["undefined"]);
  });

  it("over stdio fail the call unsent, naming stdio", async () => {
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand() } }, beforeToolCall: userHook }));
    const tool = toolkit.getTools()[0]!;
    const reply = (await tool.invoke({ type: "tool_call", id: "c1", name: tool.name, args: { text: "hi" } }, { configurable: { user: "alice" } })) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.artifact).toMatchObject({ reason: "interceptor_error", outcome: "not_sent" });
    expect(String(reply.content)).toMatch(/over stdio/);
  });
});

describe("per-call headers over the legacy SSE transport", () => {
  it("reach the server with the call's POST, never another call's", async () => {
    const runs: string[] = [];
    const http = later(await startHttpFixture({ mode: "sse", build: () => whoami(runs) }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "sse", url: http.url.href } }, beforeToolCall: userHook }));
    const tool = toolkit.getTool("whoami");
    const replies = await Promise.all(["alice", undefined, "bob"].map((user) => invoke(tool, { text: "hi" }, user)));
    expect(replies.map((r) => r.content)).toEqual(["user=alice", "user=undefined", "user=bob"]);
  });
});

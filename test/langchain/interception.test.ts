/**
 * Per-call interception: `beforeToolCall` gives one call its own arguments, HTTP headers and
 * `_meta` (a per-user token from the graph's config), `afterToolCall` rewrites a result; both
 * run inside the attempt's timeout, and what they throw is `interceptor_error`, never retried.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit, type McpEvent, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** A v1 server whose `whoami` answers with the x-user header, the `_meta.tenant` and the text it got. */
function whoamiServer(calls: { count: number }) {
  const server = new McpServer({ name: "whoami", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says who asked.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text }, extra) => {
    calls.count++;
    // The requests of parallel calls interleave: a wait makes a leak between them show.
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    const user = extra.requestInfo?.headers["x-user"];
    const tenant = (extra._meta as { tenant?: unknown } | undefined)?.tenant;
    return { content: [{ type: "text", text: `user=${String(user)} tenant=${String(tenant)} text=${text}` }] };
  });
  return server;
}

async function toolkitWith(hooks: Pick<McpToolkitConfig, "beforeToolCall" | "afterToolCall" | "timeoutMs">) {
  const calls = { count: 0 };
  const http = later(await startHttpFixture({ build: () => whoamiServer(calls) }));
  const events: McpEvent[] = [];
  const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e), ...hooks }));
  return { toolkit, calls, events };
}

describe("beforeToolCall", () => {
  it("gives each call its own headers and _meta from the graph's config, never another call's, even in parallel", async () => {
    const { toolkit } = await toolkitWith({
      beforeToolCall: ({ config, args }) => {
        const user = String((config?.configurable as { user?: string } | undefined)?.user);
        return { headers: { "x-user": user }, meta: { tenant: `tenant-of-${user}` }, args: { ...args, text: String(args.text).toUpperCase() } };
      },
    });
    const users = Array.from({ length: 12 }, (_, i) => `u${i}`);
    const tool = toolkit.getTool("whoami")!;
    const replies = await Promise.all(users.map((user) => tool.invoke({ type: "tool_call", id: user, name: "whoami", args: { text: `hi ${user}` } }, { configurable: { user } })));
    expect(replies.map((r) => String(r.content))).toEqual(users.map((u) => `user=${u} tenant=tenant-of-${u} text=HI ${u.toUpperCase()}`));
  });

  it("that throws fails the call as interceptor_error, unsent and not retried; the server is not called", async () => {
    const { toolkit, calls, events } = await toolkitWith({
      beforeToolCall: () => {
        throw new Error("no token for this user");
      },
    });
    const reply = await replyOf(toolkit.getTool("whoami"), { text: "x" });
    expect(reply.error).toMatchObject({ reason: "interceptor_error", outcome: "not_sent", transient: false, attempts: 1 });
    expect(reply.content).toContain("no token for this user");
    expect(calls.count).toBe(0);
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
  });

  it("that never answers is cut off at the call's timeout", async () => {
    const { toolkit, calls } = await toolkitWith({ timeoutMs: 300, beforeToolCall: () => new Promise(() => {}) });
    const reply = await replyOf(toolkit.getTool("whoami"), { text: "x" });
    expect(reply.error).toMatchObject({ reason: "request_timeout", outcome: "not_sent" });
    expect(calls.count).toBe(0);
  });
});

describe("afterToolCall", () => {
  it("rewrites a result, and what it throws is interceptor_error with the tool run", async () => {
    const { toolkit } = await toolkitWith({ afterToolCall: (_ctx, result) => ({ ...result, content: [{ type: "text", text: "rewritten" }] }) });
    expect(await toolkit.getTool("whoami")!.invoke({ text: "x" })).toBe("rewritten");
    const failing = await toolkitWith({
      afterToolCall: () => {
        throw new Error("result filter broke");
      },
    });
    const reply = await replyOf(failing.toolkit.getTool("whoami"), { text: "x" });
    expect(reply.error).toMatchObject({ reason: "interceptor_error", outcome: "executed" });
    expect(failing.calls.count).toBe(1);
  });
});

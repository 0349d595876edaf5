import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpToolError, McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { startHttpFixture } from "../servers/http.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });
const noRetry = { retries: 0 };

async function pair(options: { beforeFallback?: () => "skip" | void } = {}) {
  const events: McpEvent[] = [];
  const primary = await startHttpFixture();
  const backup = await startHttpFixture();
  const toolkit = await McpToolkit.connect({
    servers: {
      primary: { transport: "http", url: primary.url.href, fallback: "backup", breaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 } },
      backup: { transport: "http", url: backup.url.href, exposeTools: false },
    },
    retry: noRetry,
    onEvent: (e) => events.push(e),
    ...(options.beforeFallback ? { beforeFallback: options.beforeFallback } : {}),
  });
  cleanups.push(() => primary.close(), () => backup.close(), () => toolkit.close());
  return { toolkit, primary, backup, events };
}

describe("fallbacks", () => {
  it("answers from the fallback server when the primary fails transiently, and says so", async () => {
    const { toolkit, primary, backup, events } = await pair();
    // The backup is hidden: no name clash, so the model sees the plain name.
    expect(toolkit.getTools().map((t) => t.name)).toContain("echo");
    primary.failNext(503);
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "hello" }))) as ToolMessage;
    expect(reply.status).toBe("success");
    expect(reply.content).toBe("[The primary server failed (service_unavailable); this answer came from the fallback server 'backup'.]\nhello");
    expect(reply.artifact.fallback).toEqual({ from: "server 'backup'", reason: "service_unavailable" });
    expect(backup.state.calls).toEqual(["echo"]);
    expect(events.find((e) => e.type === "fallback")).toMatchObject({ toolName: "echo", serverName: "primary", fallback: "backup" });
  });

  it("goes to the fallback at once while the primary's circuit is open", async () => {
    const { toolkit, primary, backup } = await pair();
    primary.failNext(503, { count: 2 });
    await toolkit.getTool("echo")!.invoke({ text: "1" });
    await toolkit.getTool("echo")!.invoke({ text: "2" });
    const posts = primary.posts;
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "3" }))) as ToolMessage;
    expect(reply.artifact.fallback).toEqual({ from: "server 'backup'", reason: "circuit_open" });
    expect(primary.posts).toBe(posts);
    expect(backup.state.calls).toEqual(["echo", "echo", "echo"]);
  });

  it("goes to the fallback while the circuit is open even when the call has retries, which without a fallback would wait for the breaker's test", async () => {
    const events: McpEvent[] = [];
    const primary = await startHttpFixture();
    const backup = await startHttpFixture();
    // A retrying call may wait out an open period shorter than its longest backoff (5 s), for the
    // server's test; this one (1.5 s) is. A call with a fallback has somewhere else to go.
    const breaker = { failureThreshold: 1, initialHalfOpenAfterMs: 1_500, recoveryPingMs: 0 };
    const toolkit = await McpToolkit.connect({
      servers: { primary: { transport: "http", url: primary.url.href, fallback: "backup", breaker }, backup: { transport: "http", url: backup.url.href, exposeTools: false } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => primary.close(), () => backup.close(), () => toolkit.close());
    primary.failNext(503);
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "1" }))) as ToolMessage;
    // The 503 opened the circuit; the retry met it open and was refused, so the fallback answered.
    expect(reply.artifact.fallback).toEqual({ from: "server 'backup'", reason: "circuit_open" });
    expect(primary.posts).toBeGreaterThan(0);
    const posts = primary.posts;
    // Eight calls at once while it is open: each answered by the fallback.
    const replies = (await Promise.all(Array.from({ length: 8 }, (_, i) => toolkit.getTool("echo")!.invoke(call("echo", { text: `p${i}` }, `p${i}`))))) as ToolMessage[];
    for (const [i, r] of replies.entries()) {
      expect(r.artifact.fallback).toEqual({ from: "server 'backup'", reason: "circuit_open" });
      expect(String(r.content)).toContain(`p${i}`);
    }
    // Nobody waited for the test: it never began, and the primary heard nothing more.
    expect(events.filter((e) => e.type === "half_open")).toEqual([]);
    expect(primary.posts).toBe(posts);
    expect(backup.state.calls).toEqual(Array(9).fill("echo"));
  });

  it("never falls back for a domain or permanent error", async () => {
    const { toolkit, primary, backup } = await pair();
    expect(await toolkit.getTool("fail")!.invoke({})).toContain("(tool_error)");
    primary.failNext(401);
    expect(await toolkit.getTool("echo")!.invoke({ text: "x" })).toContain("(unauthorized)");
    expect(backup.state.calls).toEqual([]);
  });

  it("keeps the original error when beforeFallback returns skip", async () => {
    const { toolkit, primary, backup } = await pair({ beforeFallback: () => "skip" });
    primary.failNext(503);
    expect(await toolkit.getTool("echo")!.invoke({ text: "x" })).toContain("(service_unavailable)");
    expect(backup.state.calls).toEqual([]);
  });

  it("still ends classified when the beforeFallback hook itself throws, for the model and for callbacks", async () => {
    const { toolkit, primary, backup } = await pair({
      beforeFallback: () => {
        throw new TypeError("the hook broke");
      },
    });
    class ErrorSeen extends BaseCallbackHandler {
      name = "error-seen";
      errors: unknown[] = [];
      override handleToolError(error: unknown): void {
        this.errors.push(error);
      }
    }
    const seen = new ErrorSeen();
    primary.failNext(503);
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "x" }), { callbacks: [seen] })) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.content).toContain("the hook broke");
    // The pipeline rejects only with McpToolErrors: LangChain's callbacks see one, not the TypeError.
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]).toBeInstanceOf(McpToolError);
    expect((seen.errors[0] as McpToolError).unredacted().cause).toBeInstanceOf(TypeError);
    expect(backup.state.calls).toEqual([]);
  });

  it("reports both failures when the fallback fails too", async () => {
    const { toolkit, primary, backup } = await pair();
    primary.failNext(503);
    backup.failNext(502);
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "x" }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect((reply.artifact as McpToolErrorJSON).reason).toBe("service_unavailable");
    // A 502 means a proxy lost its upstream, maybe after it ran the tool: server_error (ERRORS.md).
    expect(reply.content).toContain("The fallback server 'backup' also failed (server_error)");
  });

  it("names the real cause when the fallback server is down too", async () => {
    const primary = await startHttpFixture();
    const gone = await startHttpFixture();
    const port = gone.port;
    await gone.close();
    const toolkit = await McpToolkit.connect({
      servers: {
        primary: { transport: "http", url: primary.url.href, fallback: "backup" },
        backup: { transport: "http", url: `http://127.0.0.1:${port}/mcp`, exposeTools: false, reconnect: { minDelayMs: 0 } },
      },
      onConnectionError: "skip",
      retry: noRetry,
    });
    cleanups.push(() => primary.close(), () => toolkit.close());
    primary.failNext(503);
    const text = await toolkit.getTool("echo")!.invoke({ text: "x" });
    expect(text).toContain("(service_unavailable)");
    expect(text).toContain("The fallback server 'backup' also failed (connection_refused)");
  });

  it("uses a per-tool fallback function", async () => {
    const primary = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { primary: { transport: "http", url: primary.url.href } },
      retry: noRetry,
      tools: { echo: { fallback: async (args, error) => `cached ${String(args.text)} (${error.reason})` } },
    });
    cleanups.push(() => primary.close(), () => toolkit.close());
    primary.failNext(503);
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "hi" }))) as ToolMessage;
    expect(reply.content).toBe("[The primary server failed (service_unavailable); this answer came from the fallback function.]\ncached hi (service_unavailable)");
  });
});

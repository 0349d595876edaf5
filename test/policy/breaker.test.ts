import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { startHttpFixture } from "../servers/http.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });

describe("circuit breaker", () => {
  it("opens after consecutive transient failures, fails fast without touching the server, half-opens and closes", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, breaker: { failureThreshold: 3, halfOpenAfterMs: 1_000 } } },
      retry: { retries: 0 },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    const echo = toolkit.getTool("echo")!;

    http.failNext(503, { count: 3 });
    for (let i = 0; i < 3; i++) expect(await echo.invoke({ text: "x" })).toContain("(service_unavailable)");
    expect(events.filter((e) => e.type === "circuit_open")).toHaveLength(1);
    expect(events.find((e) => e.type === "circuit_open")!.error?.reason).toBe("service_unavailable");

    const posts = http.posts;
    const refused = (await echo.invoke(call("echo", { text: "x" }))) as ToolMessage;
    expect(refused.artifact as McpToolErrorJSON).toMatchObject({ reason: "circuit_open", transient: true, outcome: "not_sent", serverName: "remote" });
    expect(refused.content).toContain("(circuit_open)");
    expect(http.posts).toBe(posts);

    // After halfOpenAfterMs one call tests the server; it is healthy again, so the circuit closes.
    await vi.waitFor(async () => expect(await echo.invoke({ text: "back" })).toBe("back"), { timeout: 10_000, interval: 100 });
    expect(events.filter((e) => e.type === "circuit_close")).toHaveLength(1);
    expect(await echo.invoke({ text: "again" })).toBe("again");
  });

  it("does not count a tool's own isError or a permanent error against the server", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, breaker: { failureThreshold: 2 } } },
      retry: { retries: 0 },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    for (let i = 0; i < 4; i++) await toolkit.getTool("fail")!.invoke({});
    http.failNext(400, { count: 3 });
    for (let i = 0; i < 3; i++) await toolkit.getTool("echo")!.invoke({ text: "x" });
    expect(events.some((e) => e.type === "circuit_open")).toBe(false);
    expect(await toolkit.getTool("echo")!.invoke({ text: "fine" })).toBe("fine");
  });

  it("can be turned off", async () => {
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href } },
      breaker: { enabled: false },
      retry: { retries: 0 },
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    http.failNext(503, { count: 8 });
    for (let i = 0; i < 8; i++) expect(await toolkit.getTool("echo")!.invoke({ text: "x" })).toContain("(service_unavailable)");
    expect(await toolkit.getTool("echo")!.invoke({ text: "ok" })).toBe("ok");
  });
});

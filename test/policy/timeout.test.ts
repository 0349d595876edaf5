import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { connectInMemory } from "../servers/memory.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });

async function memoryToolkit(config: Partial<McpToolkitConfig> = {}) {
  const state = newState();
  const events: McpEvent[] = [];
  const { client, close } = await connectInMemory(buildFixtureServer(state));
  const toolkit = await McpToolkit.connect({ servers: { mem: { client } }, onEvent: (e) => events.push(e), ...config });
  cleanups.push(close, () => toolkit.close());
  return { toolkit, state, events };
}

describe("timeouts", () => {
  it("times out with request_timeout and the server's handler sees its signal abort", async () => {
    const { toolkit, state } = await memoryToolkit({ tools: { slow: { timeoutMs: 100, retry: { retries: 0 } } } });
    const reply = (await toolkit.getTool("slow")!.invoke(call("slow", { ms: 20_000 }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "request_timeout", kind: "client", outcome: "unknown" });
    expect(reply.content).toContain("timed out after 100 ms");
    // notifications/cancelled reached the server, which aborted the handler.
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });

  it("keeps a slow call alive while it reports progress when resetTimeoutOnProgress is set", async () => {
    const { toolkit } = await memoryToolkit({ tools: { slow: { timeoutMs: 600, resetTimeoutOnProgress: true } } });
    expect(await toolkit.getTool("slow")!.invoke({ ms: 1_800, progressEveryMs: 50 })).toBe("slept 1800");
  });

  it("enforces maxTotalTimeoutMs despite progress, and cancels the server's work", async () => {
    const { toolkit, state } = await memoryToolkit({
      tools: { slow: { timeoutMs: 600, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 900, retry: { retries: 0 } } },
    });
    const reply = (await toolkit.getTool("slow")!.invoke(call("slow", { ms: 20_000, progressEveryMs: 50 }))) as ToolMessage;
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "request_timeout" });
    expect(reply.content).toContain("maximum total time of 900 ms");
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });
});

describe("cancellation", () => {
  it("gives cancelled, never retried, when the caller's signal aborts mid-call", async () => {
    const { toolkit, state, events } = await memoryToolkit({ retry: { retries: 3 }, tools: { slow: { idempotent: true } } });
    const controller = new AbortController();
    const pending = toolkit.getTool("slow")!.invoke(call("slow", { ms: 20_000 }), { signal: controller.signal });
    await vi.waitFor(() => expect(state.calls).toContain("slow"));
    controller.abort();
    const reply = (await pending) as ToolMessage;
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "cancelled", transient: false, attempts: 1 });
    expect(events.some((e) => e.type === "retry")).toBe(false);
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });

  it("settles at once as cancelled when the caller aborts during a backoff wait", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const controller = new AbortController();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href } },
      // A one-minute backoff: only an interrupted wait lets this test finish.
      retry: { retries: 2, minTimeout: 60_000, maxTimeout: 60_000, randomize: false },
      onEvent: (e) => {
        events.push(e);
        if (e.type === "retry") controller.abort();
      },
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    http.failNext(503, { count: 10 });
    const postsBefore = http.posts;
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "x" }), { signal: controller.signal })) as ToolMessage;
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "cancelled", attempts: 1 });
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(http.posts - postsBefore).toBe(1);
  });
});

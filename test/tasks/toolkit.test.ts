/**
 * The toolkit runs task-required tools as MCP Tasks (2025-11-25): the reference server's
 * long research tool returns its report with progress events, the per-tool timeout bounds the
 * whole task and cancels it, and a call whose connection is lost mid-task asks about the same
 * task after reconnecting: the tool runs once.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";
import { startTaskFixture } from "../servers/tasks/http.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const invoke = (toolkit: McpToolkit, name: string, args: Record<string, unknown>, signal?: AbortSignal) => replyOf(toolkit.getTool(name), args, signal);

describe("tools that run as tasks", () => {
  it("server-everything's simulate-research-query (task required) returns its report over stdio, with progress", async () => {
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, onEvent: (e) => events.push(e) }));
    const reply = await invoke(toolkit, "simulate-research-query", { topic: "tidal energy" });
    expect(reply.error).toBeUndefined();
    expect(reply.content).toContain("# Research Report: tidal energy");
    const statuses = events.filter((e) => e.type === "task");
    expect(statuses[0]).toMatchObject({ type: "task", toolName: "simulate-research-query", serverName: "everything", status: "working", message: "Gathering sources..." });
    expect(statuses.at(-1)).toMatchObject({ status: "completed" });
    expect(new Set(statuses.map((e) => (e as { taskId: string }).taskId)).size).toBe(1);
  }, 30_000);

  it("bounds the whole task by the tool's timeout and cancels it on the server", async () => {
    const fixture = later(await startTaskFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: fixture.url.href } }, tools: { count: { timeoutMs: 1_500, retry: { retries: 0 } } } }));
    const clock = stopwatch();
    const reply = await invoke(toolkit, "count", { key: "slow", ms: 20_000 });
    expect(reply.error).toMatchObject({ reason: "request_timeout", outcome: "unknown" });
    clock.within(15_000, "a 20 s task with a 1.5 s timeout");
    expect(fixture.state.clientCancels).toHaveLength(1);
  });

  it("a caller's abort cancels the task on the server", async () => {
    const fixture = later(await startTaskFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: fixture.url.href } } }));
    const controller = new AbortController();
    toolkit.on("task", (e) => {
      if (e.status === "working") controller.abort();
    });
    const reply = await invoke(toolkit, "count", { key: "abort", ms: 20_000 }, controller.signal);
    expect(reply.error).toMatchObject({ reason: "cancelled" });
    // The call settled at once; tasks/cancel follows in the background.
    await expect.poll(() => fixture.state.clientCancels).toHaveLength(1);
  });

  it("a caller's abort settles the call at once, while a slow server's tasks/cancel goes on in the background", async () => {
    const fixture = later(await startTaskFixture());
    fixture.store.holdCancels();
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: fixture.url.href } } }));
    const controller = new AbortController();
    const clock = stopwatch();
    let abortedAt = 0;
    toolkit.on("task", (e) => {
      if (e.status !== "working" || controller.signal.aborted) return;
      abortedAt = performance.now();
      controller.abort();
    });
    const reply = await invoke(toolkit, "count", { key: "slow-cancel", ms: 20_000 }, controller.signal);
    const settledIn = performance.now() - abortedAt;
    expect(reply.error).toMatchObject({ reason: "cancelled", outcome: "unknown" });
    // Was the cancel's own bound (2 s): the call waited for a tasks/cancel the server does not answer.
    clock.within(1_000, "the call's settling after its abort", settledIn);
    // The server got the cancel all the same; it answers once released, and nothing rejects unhandled.
    await expect.poll(() => fixture.state.clientCancels).toHaveLength(1);
    fixture.store.releaseCancels();
  });

  it("a task call ended by close() reads closed, not cancelled", async () => {
    const fixture = later(await startTaskFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: fixture.url.href } } }));
    const working = new Promise<void>((resolve) => toolkit.on("task", (e) => e.status === "working" && resolve()));
    const reply = invoke(toolkit, "count", { key: "closed", ms: 20_000 });
    await working;
    await toolkit.close();
    const { error } = await reply;
    expect(error).toMatchObject({ reason: "closed", kind: "client", transient: false, outcome: "unknown" });
    expect(error!.message).toMatch(/^The toolkit was closed while the task call was in flight; task \w+ is sent tasks\/cancel in the background\.$/);
  });

  it("outlives a lost connection: after reconnecting, the call asks about the same task, and the tool ran once", async () => {
    const fixture = later(await startTaskFixture());
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: fixture.url.href } }, onEvent: (e) => events.push(e) }));
    let restarted = false;
    toolkit.on("task", (e) => {
      // The server drops every socket and session mid-task, as a redeploy does; its tasks live on.
      if (e.status === "working" && !restarted) {
        restarted = true;
        void fixture.http.restart();
      }
    });
    const reply = await invoke(toolkit, "count", { key: "once", ms: 2_500 });
    expect(reply).toEqual({ content: "count 1", error: undefined });
    expect(fixture.state.executions.get("once")).toBe(1);
    // One task, asked about across the reconnect: `count` is not idempotent, yet it was repeated safely.
    expect(events.some((e) => e.type === "retry")).toBe(true);
    expect(new Set(events.filter((e) => e.type === "task").map((e) => (e as { taskId: string }).taskId)).size).toBe(1);
  }, 30_000);
});

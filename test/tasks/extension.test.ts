/**
 * 2026-07-28 Tasks, the `io.modelcontextprotocol/tasks` extension, against a v2 server that
 * enables it: a task-required tool completes through the toolkit with `task` events, the tool's
 * timeout bounds the whole task and cancels it on the server, and so does the caller's abort.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startExtensionTaskServer } from "../servers/v2/tasksExtension.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const connect = async (url: URL, extra: Partial<Parameters<typeof McpToolkit.connect>[0]> = {}) =>
  later(await McpToolkit.connect({ servers: { ext: { transport: "http", url: url.href } }, ...extra }));

describe("2026-07-28 Tasks through the io.modelcontextprotocol/tasks extension", () => {
  it("runs a tool the server makes a task (its task-required tool) as one: its result, and its statuses as task events", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server.url, { onEvent: (e) => events.push(e) });
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 600, text: "report ready" });
    expect(reply).toEqual({ content: "report ready", error: undefined });
    expect(server.created).toEqual(["task-1"]);
    expect(server.declared).toEqual([true]);
    const statuses = events.filter((e) => e.type === "task");
    expect(statuses[0]).toMatchObject({ type: "task", toolName: "long_job", serverName: "ext", status: "working", message: "Started", taskId: "task-1" });
    expect(statuses.map((e) => (e as { message?: string }).message)).toContain("Halfway");
    expect(statuses.at(-1)).toMatchObject({ status: "completed" });
  });

  it("a tool the server answers at once returns that answer, with no task events", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server.url, { onEvent: (e) => events.push(e) });
    expect(await replyOf(toolkit.getTool("quick"), { text: "at once" })).toEqual({ content: "at once", error: undefined });
    expect(server.created).toEqual([]);
    expect(server.declared).toEqual([true]);
    expect(events.filter((e) => e.type === "task")).toEqual([]);
  });

  it("bounds the whole task by the tool's timeout and cancels it on the server", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server.url, { tools: { long_job: { timeoutMs: 1_000, retry: { retries: 0 } } } });
    const clock = stopwatch();
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 60_000 });
    expect(reply.error).toMatchObject({ reason: "request_timeout", outcome: "unknown" });
    clock.within(15_000, "a 60 s task with a 1 s timeout");
    expect(server.cancels).toEqual(["task-1"]);
  });

  it("a caller's abort cancels the task on the server", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server.url);
    const controller = new AbortController();
    toolkit.on("task", (e) => {
      if (e.status === "working") controller.abort();
    });
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 60_000 }, controller.signal);
    expect(reply.error).toMatchObject({ reason: "cancelled" });
    // The call settled at once; tasks/cancel follows in the background.
    await expect.poll(() => server.cancels).toEqual(["task-1"]);
  });

  it("outlives a lost connection: the next attempt asks about the same task, and the tool ran once", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server.url, { onEvent: (e) => events.push(e) });
    server.dropOnNextGet();
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 1_000, text: "once" });
    expect(reply).toEqual({ content: "once", error: undefined });
    expect(server.created).toEqual(["task-1"]);
    expect(events.some((e) => e.type === "retry")).toBe(true);
    expect(new Set(events.filter((e) => e.type === "task").map((e) => (e as { taskId: string }).taskId))).toEqual(new Set(["task-1"]));
  }, 30_000);

  it("a task the server calls stale (-32026, data.kind task) is dropped, not resumed: for an idempotent tool the one retry starts a fresh task", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server.url, { onEvent: (e) => events.push(e), tools: { long_job: { idempotent: true } } });
    server.staleNextTask();
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 100, text: "fresh" });
    expect(reply).toEqual({ content: "fresh", error: undefined });
    // task-1 was refused as stale; the retry created task-2 instead of asking about task-1 again.
    expect(server.created).toEqual(["task-1", "task-2"]);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect((retries[0] as { error: { reason: string } }).error).toMatchObject({ reason: "stale_state" });
  }, 30_000);

  it("a stale task of a tool that is not idempotent is not run again: task-1 may have done its work (outcome unknown)", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server.url);
    server.staleNextTask();
    const reply = await replyOf(toolkit.getTool("long_job"), { ms: 100, text: "fresh" });
    expect(reply.error).toMatchObject({ reason: "stale_state", outcome: "unknown", attempts: 1 });
    expect(server.created).toEqual(["task-1"]);
  }, 30_000);
});

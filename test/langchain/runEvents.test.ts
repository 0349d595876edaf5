/**
 * Without OpenTelemetry, a LangChain callback handler (LangSmith's tracer among them) sees a
 * call's retries, reconnects and fallbacks inside the tool's own run.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import { BaseTracer, type Run } from "@langchain/core/tracers/base";
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();

interface Seen {
  name: string;
  data: Record<string, unknown>;
  runId: string;
}

/** Records the tool run's id and every custom event, with the run it arrived in. */
class Recorder extends BaseCallbackHandler {
  name = "recorder";
  toolRunIds: string[] = [];
  custom: Seen[] = [];
  override handleToolStart(_tool: unknown, _input: string, runId: string): void {
    this.toolRunIds.push(runId);
  }
  override handleCustomEvent(name: string, data: Record<string, unknown>, runId: string): void {
    this.custom.push({ name, data, runId });
  }
}

/** A tracer as LangSmith's is built: it keeps the finished tool run, events included. */
class KeepingTracer extends BaseTracer {
  name = "keeping_tracer";
  finished: Run[] = [];
  protected persistRun(): Promise<void> {
    return Promise.resolve();
  }
  override onToolEnd(run: Run): void {
    this.finished.push(run);
  }
}

const toolCall = (id: string, key: string) => ({ type: "tool_call" as const, id, name: "echo", args: { text: key } });

describe("LangChain callbacks", () => {
  it("see a retry inside the tool run, as a custom event and on the traced run", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({ servers: { main: { transport: "http", url: http.url.href } }, retry: { minTimeout: 10, randomize: false } });
    cleanups.push(() => toolkit.close());
    http.failNext(503);

    const recorder = new Recorder();
    const tracer = new KeepingTracer();
    const reply = (await toolkit.getTool("echo")!.invoke(toolCall("c1", "hi"), { callbacks: [recorder, tracer] })) as ToolMessage;
    expect(reply.content).toBe("hi");

    expect(recorder.toolRunIds).toHaveLength(1);
    expect(recorder.custom).toEqual([
      { name: "mcp_retry", runId: recorder.toolRunIds[0], data: expect.objectContaining({ toolName: "echo", serverName: "main", attempt: 1, delayMs: 10, reason: "service_unavailable" }) },
    ]);
    const events = tracer.finished[0]?.events ?? [];
    expect(events.map((e) => e.name)).toContain("mcp_retry");
  });

  it("see a reconnect after the server forgot the session", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({ servers: { main: { transport: "http", url: http.url.href } }, retry: { minTimeout: 10 } });
    cleanups.push(() => toolkit.close());
    await http.forgetSessions();

    const recorder = new Recorder();
    const reply = (await toolkit.getTool("echo")!.invoke(toolCall("c2", "again"), { callbacks: [recorder] })) as ToolMessage;
    expect(reply.content).toBe("again");
    const names = recorder.custom.map((e) => e.name);
    expect(names).toEqual(["mcp_retry", "mcp_reconnect"]);
    expect(recorder.custom[0]!.data).toMatchObject({ reason: "session_expired" });
    expect(recorder.custom[1]!.data).toMatchObject({ serverName: "main", attempt: 1 });
    for (const e of recorder.custom) expect(e.runId).toBe(recorder.toolRunIds[0]);
  });

  it("see a fallback server answer, and no event leaks into another call's run", async () => {
    const primary = await startHttpFixture();
    const backup = await startHttpFixture();
    cleanups.push(() => primary.close(), () => backup.close());
    const toolkit = await McpToolkit.connect({
      servers: {
        primary: { transport: "http", url: primary.url.href, fallback: "backup", retry: { retries: 0 } },
        backup: { transport: "http", url: backup.url.href, exposeTools: false },
      },
    });
    cleanups.push(() => toolkit.close());
    primary.failNext(503);

    const failing = new Recorder();
    const quiet = new Recorder();
    const tool = toolkit.getTool("echo")!;
    const [reply] = (await Promise.all([tool.invoke(toolCall("c3", "x"), { callbacks: [failing] }), tool.invoke(toolCall("c4", "y"), { callbacks: [quiet] })])) as ToolMessage[];
    expect(String(reply!.content)).toContain("fallback server 'backup'");
    expect(failing.custom.map((e) => e.name)).toEqual(["mcp_fallback"]);
    expect(failing.custom[0]!.data).toMatchObject({ fallback: "backup", reason: "service_unavailable" });
    expect(quiet.custom).toEqual([]);
  });
});

/**
 * Tool calls run as MCP tasks, against real servers: the reference server's
 * `simulate-research-query` (stdio and streamable HTTP), and the task fixture (v1 SDK server,
 * streamable HTTP, in this process so the test sees what the server saw). No SDK is mocked.
 */
import { getEventListeners } from "node:events";
import { Client, SdkError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolError } from "../../src/errors/McpToolError.js";
import type { AnyClient } from "../../src/mcp/session/clients.js";
import { shouldRunAsTask } from "../../src/mcp/tasks/taskCall.js";
import { runAsTask, type RunAsTaskOptions, type TaskStatus } from "../../src/mcp/tasks/tasks.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { everythingStdioCommand, startEverythingHttp } from "../servers/tasks/everything.js";
import { startTaskFixture, type TaskFixture } from "../servers/tasks/http.js";
import { startV2TaskServer } from "../servers/tasks/v2.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const info = { name: "tasks-test", version: "1.0.0" };

type Line = "v1" | "v2";

async function connectHttp(line: Line, url: URL): Promise<AnyClient> {
  const client = line === "v2" ? new Client(info, { capabilities: {} }) : new V1Client(info, { capabilities: {} });
  if (client instanceof Client) await client.connect(new StreamableHTTPClientTransport(url));
  else await client.connect(new V1StreamableHTTPClientTransport(url));
  cleanups.push(() => client.close());
  return client;
}

async function connectStdio(line: Line): Promise<AnyClient> {
  const { command, args } = everythingStdioCommand();
  const client = line === "v2" ? new Client(info, { capabilities: {} }) : new V1Client(info, { capabilities: {} });
  if (client instanceof Client) await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  else await client.connect(new V1StdioClientTransport({ command, args, stderr: "ignore" }));
  cleanups.push(() => client.close());
  return client;
}

/** What a run reported through its callbacks. */
function recorder() {
  const seen = { created: [] as string[], statuses: [] as { status: TaskStatus; message: string | undefined; taskId: string }[] };
  const callbacks: Pick<RunAsTaskOptions, "onCreated" | "onStatus"> = {
    onCreated: (id) => seen.created.push(id),
    onStatus: (status, message, taskId) => seen.statuses.push({ status, message, taskId }),
  };
  return { seen, callbacks };
}

async function rejection(promise: Promise<unknown>): Promise<McpToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpToolError);
  return error as McpToolError;
}

const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
const abortListeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("simulate-research-query (server-everything) runs as a task, legacy era (2025-11-25)", () => {
  async function research(client: AnyClient) {
    const { seen, callbacks } = recorder();
    const signal = new AbortController().signal;
    const result = await runAsTask(client, { name: "simulate-research-query", arguments: { topic: "tidal energy" } }, { signal, timeoutMs: 30_000, ...callbacks });
    expect(textOf(result)).toContain("# Research Report: tidal energy");
    expect(seen.created).toHaveLength(1);
    expect(new Set(seen.statuses.map((s) => s.taskId))).toEqual(new Set(seen.created));
    const messages = seen.statuses.filter((s) => s.status === "working").map((s) => s.message);
    // The stages are a second apart, polled at the server's one-second interval: most, never all, are seen.
    expect(messages[0]).toBe("Gathering sources...");
    expect(new Set(messages).size).toBeGreaterThanOrEqual(2);
    expect(seen.statuses.at(-1)?.status).toBe("completed");
    expect(abortListeners(signal)).toBe(0);
  }

  it("returns the report over stdio with the v2 client, status messages seen", async () => {
    await research(await connectStdio("v2"));
  });

  it("returns the report over streamable HTTP with the v2 client, status messages seen", async () => {
    const server = await startEverythingHttp();
    cleanups.push(() => server.close());
    await research(await connectHttp("v2", server.url));
  });

  it("returns the report over stdio with the v1 client (the other SDK line)", async () => {
    await research(await connectStdio("v1"));
  });

  it("answers the server's question when the task needs input: tasks/result delivers it (stdio, v2 client)", async () => {
    const { command, args } = everythingStdioCommand();
    const client = new Client(info, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { interpretation: "historical" } };
    });
    await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
    cleanups.push(() => client.close());
    const { seen, callbacks } = recorder();
    const result = await runAsTask(client, { name: "simulate-research-query", arguments: { topic: "python", ambiguous: true } }, { timeoutMs: 30_000, ...callbacks });
    expect(textOf(result)).toContain("**Clarification**: historical");
    expect(asked).toHaveLength(1);
    expect(seen.statuses.map((s) => s.status)).toContain("input_required");
  });

  it("is chosen by the task policy: required runs as a task under auto and always, never under never", async () => {
    const client = await connectStdio("v2");
    const tool = { execution: { taskSupport: "required" } };
    expect([shouldRunAsTask("auto", client, tool), shouldRunAsTask("always", client, tool), shouldRunAsTask("never", client, tool)]).toEqual([true, true, false]);
    const optional = { execution: { taskSupport: "optional" } };
    expect([shouldRunAsTask("auto", client, optional), shouldRunAsTask("always", client, optional)]).toEqual([false, true]);
    // "auto" takes a task for a tool that allows one when the call may run a minute or more.
    expect([shouldRunAsTask("auto", client, optional, 59_999), shouldRunAsTask("auto", client, optional, 60_000)]).toEqual([false, true]);
    expect(shouldRunAsTask("always", client, { execution: { taskSupport: "forbidden" } })).toBe(false);
  });
});

describe.each(["v2", "v1"] as const)("the task fixture with the %s client, legacy era (2025-11-25), streamable HTTP", (line) => {
  let fixture: TaskFixture;
  let client: AnyClient;
  beforeEach(async () => {
    fixture = await startTaskFixture();
    cleanups.push(() => fixture.close());
    client = await connectHttp(line, fixture.url);
  });

  it("reports each step's status message, then returns the result", async () => {
    const { seen, callbacks } = recorder();
    const result = await runAsTask(client, { name: "progress", arguments: { steps: 3, stepMs: 700 } }, { timeoutMs: 20_000, ...callbacks });
    expect(textOf(result)).toBe("done after 3 steps");
    expect(seen.statuses.filter((s) => s.status === "working").map((s) => s.message)).toEqual(["step 1/3", "step 2/3", "step 3/3"]);
    expect(seen.statuses.at(-1)?.status).toBe("completed");
  });

  it("classifies a task that failed with an isError result as that tool error, outcome executed", async () => {
    const signal = new AbortController().signal;
    const error = await rejection(runAsTask(client, { name: "fail_result", arguments: { message: "quota exceeded" } }, { signal, timeoutMs: 20_000, context: { toolName: "fail_result" } }));
    expect([error.reason, error.kind, error.outcome, error.transient, error.toolName]).toEqual(["tool_error", "domain", "executed", false, "fail_result"]);
    expect(error.message).toBe("quota exceeded");
    expect(abortListeners(signal)).toBe(0);
  });

  it("classifies a task that failed with a JSON-RPC error as that error, outcome executed", async () => {
    const error = await rejection(runAsTask(client, { name: "fail_rpc", arguments: { code: -32603, message: "backend exploded" } }, { timeoutMs: 20_000 }));
    expect([error.reason, error.kind, error.outcome, error.transient, error.code]).toEqual(["internal_error", "protocol", "executed", true, -32603]);
    expect(error.message).toContain("backend exploded");
  });

  it("tells a task's own -32602 from a lost task: invalid_params, outcome executed", async () => {
    const error = await rejection(runAsTask(client, { name: "fail_rpc", arguments: { code: -32602, message: "date out of range" } }, { timeoutMs: 20_000 }));
    expect([error.reason, error.outcome, error.code]).toEqual(["invalid_params", "executed", -32602]);
  });

  it("classifies a task the server cancelled as task_cancelled: not transient, outcome unknown, no tasks/cancel sent", async () => {
    const { seen, callbacks } = recorder();
    const error = await rejection(runAsTask(client, { name: "server_cancel", arguments: { afterMs: 300, reason: "maintenance window" } }, { timeoutMs: 20_000, ...callbacks }));
    expect([error.reason, error.transient, error.outcome]).toEqual(["task_cancelled", false, "unknown"]);
    expect(error.message).toContain("maintenance window");
    expect(error.data).toEqual({ taskId: seen.created[0] });
    expect(fixture.state.clientCancels).toEqual([]);
  });

  it("classifies a task the server forgot (a restart) as task_lost: not transient, outcome unknown", async () => {
    const run = runAsTask(client, { name: "count", arguments: { key: `forgot-${line}`, ms: 10_000 } }, { timeoutMs: 20_000, onCreated: () => void delay(300).then(() => fixture.store.forget()) });
    const error = await rejection(run);
    expect([error.reason, error.transient, error.outcome]).toEqual(["task_lost", false, "unknown"]);
  });

  it("classifies a task whose ttl ran out as task_lost", async () => {
    const clock = stopwatch();
    const error = await rejection(runAsTask(client, { name: "count", arguments: { key: `ttl-${line}`, ms: 10_000 } }, { timeoutMs: 20_000, ttlMs: 400 }));
    expect(error.reason).toBe("task_lost");
    clock.within(10_000, "a task whose 400 ms ttl ran out, before the tool's 10 s");
  });

  it("classifies a resumed task id the server never issued as task_lost, and runs nothing", async () => {
    const error = await rejection(runAsTask(client, { name: "count", arguments: { key: "never", ms: 100 } }, { timeoutMs: 20_000, resume: { taskId: "0123456789abcdef" } }));
    expect([error.reason, error.outcome]).toEqual(["task_lost", "unknown"]);
    expect(error.data).toEqual({ taskId: "0123456789abcdef" });
    expect(fixture.state.executions.has("never")).toBe(false);
  });

  it("sends tasks/cancel in the background when the caller aborts: the call is cancelled at once, the server sees the cancel, the work stops", async () => {
    const controller = new AbortController();
    const { seen, callbacks } = recorder();
    const run = runAsTask(client, { name: "count", arguments: { key: `abort-${line}`, ms: 20_000 } }, { signal: controller.signal, timeoutMs: 60_000, ...callbacks, onCreated: (id) => (callbacks.onCreated!(id), void delay(300).then(() => controller.abort())) });
    const error = await rejection(run);
    const id = seen.created[0]!;
    expect([error.reason, error.outcome, error.transient]).toEqual(["cancelled", "unknown", false]);
    // Whether the server took the cancel is not known when the call settles.
    expect(error.data).toEqual({ taskId: id });
    expect(error.message).toContain(`task ${id} is sent tasks/cancel in the background`);
    await expect.poll(() => fixture.state.clientCancels).toEqual([id]);
    await expect.poll(async () => (await fixture.store.getTask(id))?.status).toBe("cancelled");
    expect(abortListeners(controller.signal)).toBe(0);
    // Nothing of the run is left to poll: no request but the cancel reaches the server after it settled.
    const posts = fixture.http.posts;
    await delay(600);
    expect(fixture.http.posts).toBe(posts);
    await expect.poll(() => fixture.state.stopped).toContain(id);
  });

  it("bounds the whole task by timeoutMs: request_timeout, and the task is sent tasks/cancel", async () => {
    const { seen, callbacks } = recorder();
    const clock = stopwatch();
    const error = await rejection(runAsTask(client, { name: "count", arguments: { key: `timeout-${line}`, ms: 20_000 } }, { timeoutMs: 1_500, ...callbacks }));
    const elapsed = clock.elapsed();
    const id = seen.created[0]!;
    expect([error.reason, error.outcome, error.transient]).toEqual(["request_timeout", "unknown", true]);
    expect(error.data).toEqual({ taskId: id, taskCancelled: true });
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    // The bound plus the cancel's own bound (2 s), with room for a loaded machine.
    clock.within(8_000, "timeoutMs 1.5 s and the cancel's 2 s", elapsed);
    expect(fixture.state.clientCancels).toEqual([id]);
    const posts = fixture.http.posts;
    await delay(600);
    expect(fixture.http.posts).toBe(posts);
  });

  it("bounds the server's suggested poll interval: a 60 s suggestion is polled at maxPollIntervalMs", async () => {
    const result = await runAsTask(client, { name: "progress", arguments: { steps: 2, stepMs: 200, pollMs: 60_000 } }, { timeoutMs: 15_000, maxPollIntervalMs: 200 });
    expect(textOf(result)).toBe("done after 2 steps");
  });

  it("refuses a call whose signal is already aborted: cancelled, not_sent, nothing sent", async () => {
    const posts = fixture.http.posts;
    const error = await rejection(runAsTask(client, { name: "count", arguments: { key: "pre-aborted", ms: 100 } }, { signal: AbortSignal.abort(), timeoutMs: 20_000 }));
    expect([error.reason, error.outcome]).toEqual(["cancelled", "not_sent"]);
    expect(fixture.http.posts).toBe(posts);
  });
});

describe("resuming by task id after the connection was killed, legacy era (2025-11-25), streamable HTTP", () => {
  it.each(["v2", "v1"] as const)("returns the result on a new %s client, and the tool ran once", async (line) => {
    const fixture = await startTaskFixture();
    cleanups.push(() => fixture.close());
    const first = await connectHttp(line, fixture.url);
    let taskId: string | undefined;
    const firstRun = runAsTask(first, { name: "count", arguments: { key: "once", ms: 2_500 } }, {
      timeoutMs: 30_000,
      onCreated: (id) => {
        taskId = id;
        // The server drops every socket and session mid-task; its task store lives on.
        void delay(300).then(() => fixture.http.restart());
      },
    });
    const lost = await rejection(firstRun);
    expect(taskId).toBeDefined();
    // The poll met a server that forgot the session: transient after reconnecting, and the
    // outcome is never "not_sent" once the task exists (the poll failed, not the tool).
    // The next poll meets either the forgotten session (404) or, first, the pooled socket the
    // restart closed (the keep-alive race): both transient, and the task lives on.
    expect(["session_expired", "connection_reset"]).toContain(lost.reason);
    expect([lost.transient, lost.outcome]).toEqual([true, "unknown"]);
    expect((lost.data as { taskId?: string } | undefined)?.taskId).toBe(taskId);

    // The restart closed the keep-alive socket the first client used, and fetch's pool is shared:
    // the new client's first request may meet it ("other side closed", a raw SDK error, before
    // anything of ours runs). That race is the SDK's connect, not the resume under test: once more.
    const second = await connectHttp(line, fixture.url).catch((error: unknown) => {
      if ((error as { cause?: { code?: string } })?.cause?.code !== "UND_ERR_SOCKET") throw error;
      return connectHttp(line, fixture.url);
    });
    const { seen, callbacks } = recorder();
    const result = await runAsTask(second, { name: "count", arguments: { key: "once", ms: 2_500 } }, { timeoutMs: 30_000, resume: { taskId: taskId! }, ...callbacks });
    expect(textOf(result)).toBe("count 1");
    expect(fixture.state.executions.get("once")).toBe(1);
    expect(seen.created).toEqual([]);
    expect(seen.statuses.at(-1)).toMatchObject({ status: "completed", taskId });
  });
});

describe("servers and eras without tool tasks", () => {
  it("refuses a server that declares no task support before sending anything: capability_missing, not_sent", async () => {
    const fixture = await startHttpFixture();
    cleanups.push(() => fixture.close());
    const client = await connectHttp("v2", fixture.url);
    const posts = fixture.posts;
    const error = await rejection(runAsTask(client, { name: "echo", arguments: { text: "x" } }, { timeoutMs: 5_000 }));
    expect([error.reason, error.outcome]).toEqual(["capability_missing", "not_sent"]);
    expect(fixture.posts).toBe(posts);
  });

  it("returns the result of a server that declares tool tasks but ran the call at once (v2 server, legacy era)", async () => {
    const server = await startV2TaskServer("legacy");
    cleanups.push(() => server.close());
    const client = await connectHttp("v2", server.url);
    const { seen, callbacks } = recorder();
    const result = await runAsTask(client, { name: "slow_job", arguments: {} }, { timeoutMs: 5_000, ...callbacks });
    expect(textOf(result)).toBe("ran at once");
    expect([server.calls, seen.created.length]).toEqual([1, 0]);
  });

  it("on a modern-era (2026-07-28) connection, runs through the Tasks extension the server declares, past the v2 client's codec", async () => {
    const server = await startV2TaskServer("modern");
    cleanups.push(() => server.close());
    const client = new Client(info, { capabilities: {}, versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe("modern");
    // There a tool declares no task support: the server decides, so any tool goes the task way.
    expect(shouldRunAsTask("auto", client, undefined)).toBe(true);
    expect(shouldRunAsTask("never", client, { execution: { taskSupport: "required" } })).toBe(false);

    const { seen, callbacks } = recorder();
    // This server creates tasks but knows no tasks/get: the task was created, and the failure says which.
    const error = await rejection(runAsTask(client, { name: "slow_job", arguments: {} }, { timeoutMs: 5_000, ...callbacks }));
    expect(seen.created).toEqual(["task-1"]);
    expect(error.data).toMatchObject({ taskId: "task-1" });
    expect(server.calls).toBe(1);

    // Why: the server can send the extension's CreateTaskResult, but the v2 client's wire codec
    // rejects `resultType: "task"` before any schema sees it, and its error keeps no task id.
    const raw = await client.request({ method: "tools/call", params: { name: "slow_job", arguments: {} } }, z.looseObject({})).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(raw).toBeInstanceOf(SdkError);
    expect((raw as SdkError).code).toBe("UNSUPPORTED_RESULT_TYPE");
    expect(JSON.stringify((raw as SdkError).data)).not.toContain("task-2");
    expect(server.calls).toBe(2);
  });
});

/**
 * What a call on a 2026-07-28 server with the Tasks extension sees besides its statuses, against
 * a v2 server running the extension's wire: the server's progress notifications, its input
 * requests (before the task, as an `input_required` answer; during it, as the task's
 * `input_required` status answered by `tasks/update`), each bounded by the call's timeout and the
 * caller's abort (or pausing a LangGraph graph), and the per-call headers a `beforeToolCall` sets,
 * on every request of the call.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { langGraphInputHandler, type McpInputInterrupt } from "../../src/agents.js";
import { McpToolkit, type InputHandler, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startExtensionTaskServer, type ExtensionTaskServer } from "../servers/v2/tasksExtension.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const connect = async (server: ExtensionTaskServer, extra: Partial<Parameters<typeof McpToolkit.connect>[0]> = {}, inputHandler?: InputHandler) =>
  later(await McpToolkit.connect({ servers: { ext: { transport: "http", url: server.url.href, ...(inputHandler ? { inputHandler } : {}) } }, ...extra }));

/** Accepts a confirmation (the `ok` field) and gives "Ada" for a name. */
const named: InputHandler = {
  elicit: async (request) => {
    const fields = "requestedSchema" in request ? Object.keys(request.requestedSchema.properties) : [];
    const content: Record<string, string | boolean> = fields.includes("ok") ? { ok: true } : { name: "Ada" };
    return { action: "accept", content };
  },
  sample: async () => ({ role: "assistant", model: "test-model", content: { type: "text", text: "good day" } }),
};

describe("progress on a server with the Tasks extension", () => {
  it("each notifications/progress of a call becomes a progress event", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server, { onEvent: (e) => events.push(e) });
    const reply = await replyOf(toolkit.getTool("quick"), { text: "counted", progress: 3 });
    expect(reply).toEqual({ content: "counted", error: undefined });
    expect(events.filter((e) => e.type === "progress").map((e) => (e as { progress: number; total?: number }).progress)).toEqual([1, 2, 3]);
    expect(events.find((e) => e.type === "progress")).toMatchObject({ toolName: "quick", serverName: "ext", total: 3 });
  });

  it("keeps a call alive past its timeout while progress comes, when resetTimeoutOnProgress is set", async () => {
    const server = later(await startExtensionTaskServer());
    // 40 steps of 100 ms: 4 s of work under a 1.5 s timeout that each step restarts.
    const toolkit = await connect(server, { tools: { quick: { timeoutMs: 1_500, resetTimeoutOnProgress: true, retry: { retries: 0 } } } });
    const reply = await replyOf(toolkit.getTool("quick"), { text: "kept alive", progress: 40, stepMs: 100 });
    expect(reply).toEqual({ content: "kept alive", error: undefined });
  }, 30_000);
});

describe("input requests on a server with the Tasks extension", () => {
  it("answers a task's input_required through the input handler with tasks/update, once per key, and returns the task's result", async () => {
    const server = later(await startExtensionTaskServer());
    const asked: string[] = [];
    const events: McpEvent[] = [];
    const handler: InputHandler = {
      elicit: async (request, context) => (asked.push(`elicit:${context.toolName}:${request.message}`), { action: "accept", content: { name: "Ada" } }),
      sample: async () => (asked.push("sample"), { role: "assistant", model: "test-model", content: { type: "text", text: "good day" } }),
    };
    const toolkit = await connect(server, { onEvent: (e) => events.push(e) }, handler);
    const reply = await replyOf(toolkit.getTool("ask"), { sample: true });
    expect(reply).toEqual({ content: "hello Ada; good day", error: undefined });
    expect(asked).toEqual(["elicit:ask:Your name?", "sample"]);
    expect(server.updates).toEqual([{ taskId: "task-1", keys: ["name", "draft"] }]);
    expect(events.filter((e) => e.type === "task").map((e) => (e as { status: string }).status)).toContain("input_required");
  });

  it("answers input the server asks for before it creates the task (an input_required answer to tools/call)", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server, {}, named);
    expect(await replyOf(toolkit.getTool("confirm_first"))).toEqual({ content: "confirmed and done", error: undefined });
    expect(server.created).toEqual(["task-1"]);
  });

  it("without an input handler, a task's question is elicitation_required, and the task is cancelled on the server", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server, { retry: { retries: 0 } });
    const reply = await replyOf(toolkit.getTool("ask"));
    expect(reply.error).toMatchObject({ reason: "elicitation_required", serverName: "ext", data: { taskId: "task-1" } });
    expect(reply.error?.outcome).not.toBe("not_sent");
    expect(server.cancels).toEqual(["task-1"]);
  });

  it("a handler that never answers is cut off at the call's timeout, and the task is cancelled", async () => {
    const server = later(await startExtensionTaskServer());
    const deaf: InputHandler = { elicit: () => new Promise(() => {}) };
    const toolkit = await connect(server, { tools: { ask: { timeoutMs: 1_000, retry: { retries: 0 } } } }, deaf);
    const reply = await replyOf(toolkit.getTool("ask"));
    expect(reply.error).toMatchObject({ reason: "request_timeout", data: { taskId: "task-1", taskCancelled: true } });
    expect(server.cancels).toEqual(["task-1"]);
  });

  it("the caller's abort ends a wait on the handler at once, and cancels the task", async () => {
    const server = later(await startExtensionTaskServer());
    let heard: () => void = () => {};
    const asked = new Promise<void>((resolve) => (heard = resolve));
    const deaf: InputHandler = { elicit: () => (heard(), new Promise(() => {})) };
    const toolkit = await connect(server, { timeoutMs: 600_000 }, deaf);
    const controller = new AbortController();
    const reply = replyOf(toolkit.getTool("ask"), {}, controller.signal);
    await asked;
    controller.abort(new Error("the user left"));
    expect((await reply).error).toMatchObject({ reason: "cancelled" });
    // The call settled at once; tasks/cancel follows in the background.
    await expect.poll(() => server.cancels).toEqual(["task-1"]);
  });
});

describe("a task's question asked of a LangGraph graph", () => {
  it("pauses the graph (the task left waiting is cancelled), and the resumed run's new task gets the answer", async () => {
    const server = later(await startExtensionTaskServer());
    const events: McpEvent[] = [];
    const toolkit = await connect(server, { onEvent: (e) => events.push(e) }, langGraphInputHandler());
    const graph = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile({ checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: "ask" } };
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ask", args: {} }] });
    const paused = await graph.invoke({ messages: [new HumanMessage("Greet me."), call] }, thread);
    const interrupts = (paused as { __interrupt__?: { value: McpInputInterrupt }[] }).__interrupt__ ?? [];
    expect(interrupts.map((i) => i.value)).toMatchObject([{ type: "mcp_input", kind: "elicitation", toolName: "ask" }]);
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(server.cancels).toEqual(["task-1"]);
    const done = await graph.invoke(new Command({ resume: { action: "accept", content: { name: "Grace" } } }), thread);
    expect(done.messages.filter((m) => ToolMessage.isInstance(m)).at(-1)).toMatchObject({ status: "success", content: "hello Grace" });
    expect(server.updates).toEqual([{ taskId: "task-2", keys: ["name"] }]);
  });
});

describe("per-call headers on a server with the Tasks extension", () => {
  it("every request of a task call carries its own call's headers (authorization too), never another call's, in parallel", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server, {
      beforeToolCall: ({ config }) => {
        const user = String((config?.configurable as { user?: string } | undefined)?.user);
        return { headers: { "x-user": user, authorization: `Bearer token-of-${user}` } };
      },
    });
    const users = ["u0", "u1", "u2", "u3", "u4", "u5"];
    const tool = toolkit.getTool("long_job")!;
    const replies = await Promise.all(users.map((user) => tool.invoke({ type: "tool_call", id: user, name: "long_job", args: { ms: 400, text: `for ${user}` } }, { configurable: { user } })));
    expect(replies.map((r) => String(r.content))).toEqual(users.map((u) => `for ${u}`));
    // Which user made each task: the one whose tools/call created it, read off the order of creation.
    const calls = server.seen.filter((r) => r.method === "tools/call");
    expect(calls.every((r) => r.user !== undefined && r.authorization === `Bearer token-of-${r.user}`)).toBe(true);
    const owner = new Map(calls.map((r, i) => [`task-${i + 1}`, r.user]));
    const polls = server.seen.filter((r) => r.method === "tasks/get");
    expect(polls.length).toBeGreaterThanOrEqual(users.length);
    for (const poll of polls) expect(poll).toMatchObject({ user: owner.get(poll.taskId!), authorization: `Bearer token-of-${owner.get(poll.taskId!)}` });
  });

  it("a task's tasks/cancel and tasks/update carry the call's headers", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server, { beforeToolCall: () => ({ headers: { "x-user": "ada" } }), tools: { long_job: { timeoutMs: 800, retry: { retries: 0 } } } }, named);
    expect((await replyOf(toolkit.getTool("ask"))).error).toBeUndefined();
    expect((await replyOf(toolkit.getTool("long_job"), { ms: 60_000 })).error).toMatchObject({ reason: "request_timeout" });
    const methods = server.seen.map((r) => `${r.method}:${r.user}`);
    expect(methods).toContain("tasks/update:ada");
    expect(methods).toContain("tasks/cancel:ada");
    expect(server.seen.every((r) => r.user === "ada")).toBe(true);
  });
});

describe("output schemas on a server with the Tasks extension", () => {
  it("a result that breaks the tool's outputSchema is output_schema_mismatch, as on the SDK's own path; a matching one passes", async () => {
    const server = later(await startExtensionTaskServer());
    const toolkit = await connect(server);
    const good = await replyOf(toolkit.getTool("shaped"), { good: true });
    expect(good.error).toBeUndefined();
    const bad = await replyOf(toolkit.getTool("shaped"), { good: false });
    expect(bad.error).toMatchObject({ reason: "output_schema_mismatch", outcome: "executed", transient: false });
    expect(bad.error?.message).toMatch(/count/);
  });
});

/**
 * A 2026-07-28 server on the v2 server package that runs tools as tasks through the
 * `io.modelcontextprotocol/tasks` extension, by the extension's wire (the shapes of
 * `@modelcontextprotocol/ext-tasks/core/v2`): it declares the extension, runs `long_job` as a
 * task (`tools/call` answers `resultType: "task"`) and answers `quick` at once, and `tasks/get` / `tasks/cancel` follow it.
 * `ask` is a task that asks for input (status `input_required`, answered by `tasks/update`);
 * `confirm_first` asks before any task exists (an `input_required` answer to `tools/call`).
 * The v2 server has no task runtime, so this one is a few timers; its tasks outlive its sockets,
 * as a task store would. Everything it saw is counted for the tests.
 */
import { createServer, type Server as HttpServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { CancelTaskResultV2Schema, CreateTaskResultV2Schema, GetTaskResultV2Schema, InputResponsesV2Schema, TASKS_EXTENSION_ID_V2, UpdateTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { createMcpHandler, inputRequired, ProtocolError, Server, type ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";

export const TASKS_EXTENSION = TASKS_EXTENSION_ID_V2;

/** Every answer passes the extension's own schema first: this server speaks its wire, not our reading of it. */
function checked<T>(schema: { parse(value: unknown): unknown }, answer: T): T {
  schema.parse(answer);
  return answer;
}

type InputRequest = { method: string; params?: Record<string, unknown> };

interface Task {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  inputRequests?: Record<string, InputRequest>;
  /** What the client answered, by input key. */
  answers: Record<string, unknown>;
  /** Runs once every input request is answered. */
  onAnswered?: () => void;
  timers: NodeJS.Timeout[];
}

/** One request the server received, with the per-call headers it carried. */
export interface SeenRequest {
  method: string;
  taskId?: string;
  user?: string;
  authorization?: string;
}

export interface ExtensionTaskServer {
  url: URL;
  /** Tasks created (each a run of the tool). */
  readonly created: string[];
  /** Task ids the client sent tasks/cancel for. */
  readonly cancels: string[];
  /** Did a tools/call carry the client's declaration of the extension? */
  readonly declared: boolean[];
  /** tasks/update requests: the task and the input keys answered. */
  readonly updates: { taskId: string; keys: string[] }[];
  /** Every request, in order, with its `x-user` and `authorization` headers. */
  readonly seen: SeenRequest[];
  /** tasks/get requests received. */
  readonly gets: number;
  /** On the next tasks/get, drops every socket instead of answering, as a redeploy does; the tasks live on. */
  dropOnNextGet(): void;
  /** Answers every tasks/get of the next task created with -32026 StaleState (`data.kind: "task"`), as a store that lost it would. */
  staleNextTask(): void;
  close(): Promise<void>;
}

const text = (value: string) => ({ resultType: "complete", content: [{ type: "text", text: value }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startExtensionTaskServer(): Promise<ExtensionTaskServer> {
  const tasks = new Map<string, Task>();
  const created: string[] = [];
  const cancels: string[] = [];
  const declared: boolean[] = [];
  const updates: { taskId: string; keys: string[] }[] = [];
  const seen: SeenRequest[] = [];
  let gets = 0;
  let drop = false;
  let staleNext = false;
  const stale = new Set<string>();
  let http: HttpServer | undefined;
  const touch = (task: Task, change: Partial<Task>) => Object.assign(task, change, { lastUpdatedAt: new Date().toISOString() });
  const view = (task: Task) => ({
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: 60_000,
    pollIntervalMs: 100,
  });
  const see = (method: string, ctx: ServerContext, taskId?: string) => {
    const headers = ctx.http?.req?.headers;
    seen.push({ method, ...(taskId ? { taskId } : {}), user: headers?.get("x-user") ?? undefined, authorization: headers?.get("authorization") ?? undefined });
  };
  const newTask = (statusMessage: string): Task => {
    const now = new Date().toISOString();
    const task: Task = { taskId: `task-${created.length + 1}`, status: "working", statusMessage, createdAt: now, lastUpdatedAt: now, answers: {}, timers: [] };
    tasks.set(task.taskId, task);
    created.push(task.taskId);
    if (staleNext) stale.add(task.taskId);
    staleNext = false;
    return task;
  };
  const later = (task: Task, ms: number, then: () => void) => task.timers.push(setTimeout(then, ms));
  const complete = (task: Task, result: Record<string, unknown>) => touch(task, { status: "completed", statusMessage: "Done", result, inputRequests: undefined });
  // The extension's CreateTaskResult; the SDK's own types know no `resultType: "task"`.
  const asTask = (task: Task) => checked(CreateTaskResultV2Schema, { resultType: "task", ...view(task) }) as never;

  const build = () => {
    const server = new Server({ name: "v2-tasks-extension", version: "1.0.0" }, { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } });
    server.setRequestHandler("tools/list", async () => ({
      tools: [
        ...["long_job", "quick", "ask", "confirm_first"].map((name) => ({ name, description: `${name} (see the fixture)`, inputSchema: { type: "object" as const } })),
        // Answers at once with structured content that matches its output schema only when asked `good`.
        { name: "shaped", description: "Counts.", inputSchema: { type: "object" as const }, outputSchema: { type: "object" as const, properties: { count: { type: "number" } }, required: ["count"] } },
      ],
    }));
    server.setRequestHandler("tools/call", async (request, ctx) => {
      see("tools/call", ctx);
      // The per-request envelope, where a 2026-07-28 client declares the extension.
      const envelope = (ctx.mcpReq as { envelope?: Record<string, { extensions?: Record<string, unknown> }> }).envelope;
      declared.push(envelope?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS_EXTENSION] !== undefined);
      const args = (request.params.arguments ?? {}) as { ms?: number; text?: string; progress?: number; stepMs?: number; sample?: boolean; askAfterMs?: number };
      if (request.params.name === "shaped") {
        const good = (request.params.arguments as { good?: boolean } | undefined)?.good === true;
        return { content: [{ type: "text" as const, text: "counted" }], structuredContent: good ? { count: 3 } : { count: "many" } };
      }
      if (request.params.name === "quick") {
        // Progress while the call runs, on the call's own answer stream, before its result.
        const token = request.params._meta?.progressToken;
        for (let step = 1; step <= (args.progress ?? 0); step++) {
          await sleep(args.stepMs ?? 20);
          if (token !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: step, total: args.progress } });
        }
        return { content: [{ type: "text" as const, text: args.text ?? "quick" }] };
      }
      if (request.params.name === "confirm_first") {
        const answer = (ctx.mcpReq.inputResponses as Record<string, { action?: string; content?: { ok?: boolean } }> | undefined)?.ok;
        if (answer?.action !== "accept" || answer.content?.ok !== true) {
          return inputRequired({ inputRequests: { ok: inputRequired.elicit({ message: "Start the job?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }) } });
        }
        const task = newTask("Confirmed");
        later(task, args.ms ?? 200, () => complete(task, text("confirmed and done")));
        return asTask(task);
      }
      if (request.params.name === "ask") {
        const task = newTask("Started");
        const inputRequests: Record<string, InputRequest> = {
          name: inputRequired.elicit({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }) as InputRequest,
          ...(args.sample ? { draft: inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text: "Write a greeting" } }], maxTokens: 50 }) as InputRequest } : {}),
        };
        later(task, args.askAfterMs ?? 150, () => touch(task, { status: "input_required", statusMessage: "Waiting for input", inputRequests }));
        task.onAnswered = () => {
          const name = task.answers.name as { action: string; content?: { name?: string } };
          const draft = task.answers.draft as { content?: { text?: string } } | undefined;
          touch(task, { status: "working", statusMessage: "Got input", inputRequests: undefined });
          const greeting = name.action === "accept" ? `hello ${String(name.content?.name)}` : `no name (${name.action})`;
          later(task, 50, () => complete(task, text(draft ? `${greeting}; ${String(draft.content?.text)}` : greeting)));
        };
        return asTask(task);
      }
      const ms = args.ms ?? 300;
      const task = newTask("Started");
      later(task, ms / 2, () => touch(task, { statusMessage: "Halfway" }));
      later(task, ms, () => complete(task, text(args.text ?? "done")));
      return asTask(task);
    });
    const lookup = (taskId: string) => {
      const task = tasks.get(taskId);
      // The extension's answer for a task the server does not know.
      if (!task) throw new ProtocolError(-32602, `Unknown task ${taskId}`);
      return task;
    };
    // tasks/* are the extension's, not the 2026-07-28 core's: registered with schemas of our own.
    const byId = { params: z.looseObject({ taskId: z.string() }) };
    server.setRequestHandler("tasks/get", byId, async ({ taskId }, ctx) => {
      see("tasks/get", ctx, taskId);
      gets++;
      if (drop) {
        drop = false;
        http?.closeAllConnections();
        return new Promise<never>(() => {});
      }
      if (stale.has(taskId)) throw new ProtocolError(-32026, "Task state is stale", { kind: "task" });
      const task = lookup(taskId);
      const payload = task.status === "input_required" ? { inputRequests: task.inputRequests } : task.result ? { result: task.result } : {};
      return checked(GetTaskResultV2Schema, { resultType: "complete", ...view(task), ...payload }) as never;
    });
    server.setRequestHandler("tasks/update", byId, async ({ taskId }, ctx) => {
      see("tasks/update", ctx, taskId);
      // The v2 server lifts `params.inputResponses` out of every request it dispatches, into the context.
      const inputResponses = InputResponsesV2Schema.parse(ctx.mcpReq.inputResponses) as Record<string, unknown>;
      const task = lookup(taskId);
      updates.push({ taskId, keys: Object.keys(inputResponses) });
      // Keys not outstanding are ignored, as the extension asks.
      for (const [key, answer] of Object.entries(inputResponses)) if (task.inputRequests?.[key] && !(key in task.answers)) task.answers[key] = answer;
      if (task.status === "input_required" && Object.keys(task.inputRequests ?? {}).every((key) => key in task.answers)) task.onAnswered?.();
      return checked(UpdateTaskResultV2Schema, { resultType: "complete" }) as never;
    });
    server.setRequestHandler("tasks/cancel", byId, async ({ taskId }, ctx) => {
      see("tasks/cancel", ctx, taskId);
      const task = lookup(taskId);
      cancels.push(task.taskId);
      for (const timer of task.timers) clearTimeout(timer);
      touch(task, { status: "cancelled", statusMessage: "Cancelled by the client", inputRequests: undefined });
      return checked(CancelTaskResultV2Schema, { resultType: "complete" }) as never;
    });
    return server;
  };
  const handler = createMcpHandler(build, { legacy: "reject" });
  const node = toNodeHandler(handler);
  const listening = createServer((req, res) => void node(req, res));
  http = listening;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  const { port } = listening.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    created,
    cancels,
    declared,
    updates,
    seen,
    get gets() {
      return gets;
    },
    dropOnNextGet: () => void (drop = true),
    staleNextTask: () => void (staleNext = true),
    async close() {
      for (const task of tasks.values()) for (const timer of task.timers) clearTimeout(timer);
      await handler.close();
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    },
  };
}

/**
 * A 2026-07-28 server on the v2 server package that runs tools as tasks through the
 * `io.modelcontextprotocol/tasks` extension, by the extension's wire (the shapes of
 * `@modelcontextprotocol/ext-tasks/core/v2`): it declares the extension, runs `long_job` as a
 * task (`tools/call` answers `resultType: "task"`) and answers `quick` at once, and `tasks/get` / `tasks/cancel` follow it.
 * The v2 server has no task runtime, so this one is a few timers; its tasks outlive its sockets,
 * as a task store would. Everything it saw is counted for the tests.
 */
import { createServer, type Server as HttpServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { CancelTaskResultV2Schema, CreateTaskResultV2Schema, GetTaskResultV2Schema, TASKS_EXTENSION_ID_V2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { createMcpHandler, ProtocolError, Server } from "@modelcontextprotocol/server";
import { z } from "zod";

export const TASKS_EXTENSION = TASKS_EXTENSION_ID_V2;

/** Every answer passes the extension's own schema first: this server speaks its wire, not our reading of it. */
function checked<T>(schema: { parse(value: unknown): unknown }, answer: T): T {
  schema.parse(answer);
  return answer;
}

interface Task {
  taskId: string;
  status: "working" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  timers: NodeJS.Timeout[];
}

export interface ExtensionTaskServer {
  url: URL;
  /** Tasks created (each a run of the tool). */
  readonly created: string[];
  /** Task ids the client sent tasks/cancel for. */
  readonly cancels: string[];
  /** Did a tools/call carry the client's declaration of the extension? */
  readonly declared: boolean[];
  /** tasks/get requests received. */
  readonly gets: number;
  /** On the next tasks/get, drops every socket instead of answering, as a redeploy does; the tasks live on. */
  dropOnNextGet(): void;
  close(): Promise<void>;
}

export async function startExtensionTaskServer(): Promise<ExtensionTaskServer> {
  const tasks = new Map<string, Task>();
  const created: string[] = [];
  const cancels: string[] = [];
  const declared: boolean[] = [];
  let gets = 0;
  let drop = false;
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
  const build = () => {
    const server = new Server({ name: "v2-tasks-extension", version: "1.0.0" }, { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } });
    server.setRequestHandler("tools/list", async () => ({
      tools: [
        { name: "long_job", description: "Runs as a task: says `text` after `ms`.", inputSchema: { type: "object" as const } },
        { name: "quick", description: "Answers at once, task or not.", inputSchema: { type: "object" as const } },
      ],
    }));
    server.setRequestHandler("tools/call", async (request, ctx) => {
      // The per-request envelope, where a 2026-07-28 client declares the extension.
      const envelope = (ctx.mcpReq as { envelope?: Record<string, { extensions?: Record<string, unknown> }> }).envelope;
      declared.push(envelope?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS_EXTENSION] !== undefined);
      const args = (request.params.arguments ?? {}) as { ms?: number; text?: string };
      if (request.params.name === "quick") return { content: [{ type: "text" as const, text: args.text ?? "quick" }] };
      const ms = args.ms ?? 300;
      const now = new Date().toISOString();
      const task: Task = { taskId: `task-${created.length + 1}`, status: "working", statusMessage: "Started", createdAt: now, lastUpdatedAt: now, timers: [] };
      tasks.set(task.taskId, task);
      created.push(task.taskId);
      task.timers.push(
        setTimeout(() => touch(task, { statusMessage: "Halfway" }), ms / 2),
        setTimeout(() => touch(task, { status: "completed", statusMessage: "Done", result: { resultType: "complete", content: [{ type: "text", text: args.text ?? "done" }] } }), ms),
      );
      // The extension's CreateTaskResult; the SDK's own types know no `resultType: "task"`.
      return checked(CreateTaskResultV2Schema, { resultType: "task", ...view(task) }) as never;
    });
    const lookup = (taskId: string) => {
      const task = tasks.get(taskId);
      // The extension's answer for a task the server does not know.
      if (!task) throw new ProtocolError(-32602, `Unknown task ${taskId}`);
      return task;
    };
    // tasks/get and tasks/cancel are the extension's, not the 2026-07-28 core's: registered with schemas of our own.
    const byId = { params: z.looseObject({ taskId: z.string() }) };
    server.setRequestHandler("tasks/get", byId, async ({ taskId }) => {
      gets++;
      if (drop) {
        drop = false;
        http?.closeAllConnections();
        return new Promise<never>(() => {});
      }
      const task = lookup(taskId);
      return checked(GetTaskResultV2Schema, { resultType: "complete", ...view(task), ...(task.result ? { result: task.result } : {}) }) as never;
    });
    server.setRequestHandler("tasks/cancel", byId, async ({ taskId }) => {
      const task = lookup(taskId);
      cancels.push(task.taskId);
      for (const timer of task.timers) clearTimeout(timer);
      touch(task, { status: "cancelled", statusMessage: "Cancelled by the client" });
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
    get gets() {
      return gets;
    },
    dropOnNextGet: () => void (drop = true),
    async close() {
      for (const task of tasks.values()) for (const timer of task.timers) clearTimeout(timer);
      await handler.close();
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    },
  };
}

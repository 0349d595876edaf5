/**
 * A task server: tools that run as MCP tasks (the 2025-11-25 revision's core Tasks, SEP-1686).
 *
 * Built on the v1 SDK (`@modelcontextprotocol/sdk` 1.32), the line with a server-side task
 * runtime (`registerToolTask`, a task store, the tasks/get, tasks/result, tasks/cancel handlers).
 * The v2 server package (2.4) has the 2025-11-25 task schemas but no runtime, and nothing for the
 * 2026-07-28 tasks extension.
 *
 * One task store serves every session, as a server with a durable store does, so a client on a
 * new connection can ask about a task an earlier connection started. The work runs in the
 * background and writes to the store directly: it outlives the connection that started it, and
 * it sends no `notifications/tasks/status` (clients must poll, as the spec allows).
 */
import { InMemoryTaskMessageQueue, InMemoryTaskStore, type CreateTaskOptions, type TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError, type Request, type RequestId, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** What the fixture saw, for tests to assert on. */
export interface TaskFixtureState {
  /** Executions per `key` of the `count` tool (it is not idempotent). */
  executions: Map<string, number>;
  /** Task ids a client cancelled with tasks/cancel, in order. */
  clientCancels: string[];
  /** Task ids whose background work stopped early because the task was cancelled or forgotten. */
  stopped: string[];
}

/**
 * The shared store. Sessions are ignored: the fixture has no authorization context to bind tasks
 * to (the spec's case for unbound, unguessable task ids). It also records which cancels came from
 * a client, and can fail a task's tasks/result with a JSON-RPC error, as the spec says a task
 * whose request failed that way must.
 */
export class SharedTaskStore implements TaskStore {
  private readonly inner = new InMemoryTaskStore();
  private readonly byServer = new Set<string>();
  private readonly rpcErrors = new Map<string, McpError>();
  /** While set, a client's tasks/cancel is recorded and then left unanswered until it resolves. */
  private held: { until: Promise<void>; release: () => void } | undefined;

  constructor(private readonly state: TaskFixtureState) {}

  createTask(params: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task> {
    return this.inner.createTask(params, requestId, request);
  }

  getTask(taskId: string): Promise<Task | null> {
    return this.inner.getTask(taskId);
  }

  storeTaskResult(taskId: string, status: "completed" | "failed", result: Result): Promise<void> {
    return this.inner.storeTaskResult(taskId, status, result);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const error = this.rpcErrors.get(taskId);
    if (error && (await this.inner.getTask(taskId))) throw error;
    return this.inner.getTaskResult(taskId);
  }

  async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string): Promise<void> {
    if (status === "cancelled" && !this.byServer.has(taskId)) {
      this.state.clientCancels.push(taskId);
      await this.held?.until;
    }
    await this.inner.updateTaskStatus(taskId, status, statusMessage);
  }

  /** A server slow to cancel: each client's tasks/cancel is seen, and answered only once {@link releaseCancels} is called (or the fixture closes). */
  holdCancels(): void {
    let release: () => void = () => {};
    const until = new Promise<void>((resolve) => (release = resolve));
    this.held = { until, release };
  }

  /** Answers the tasks/cancel requests held since {@link holdCancels}, and every later one at once. */
  releaseCancels(): void {
    this.held?.release();
    this.held = undefined;
  }

  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.inner.listTasks(cursor);
  }

  /** The server cancels a task itself (not at a client's request). */
  cancelByServer(taskId: string, reason: string): Promise<void> {
    this.byServer.add(taskId);
    return this.inner.updateTaskStatus(taskId, "cancelled", reason);
  }

  /** Ends a task `failed`, its tasks/result answering with this JSON-RPC error. */
  async failWithError(taskId: string, error: McpError): Promise<void> {
    this.rpcErrors.set(taskId, error);
    await this.inner.storeTaskResult(taskId, "failed", { content: [] });
  }

  /** Forgets every task, as a restarted server with an in-memory store does. */
  forget(): void {
    this.releaseCancels();
    this.inner.cleanup();
  }
}

/** The background work of running tasks, stopped all at once when the fixture closes. */
export class TaskJobs {
  private readonly controllers = new Set<AbortController>();

  run(work: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    this.controllers.add(controller);
    // A job whose task was forgotten or ended elsewhere fails to write to the store: that is its end.
    void work(controller.signal)
      .catch(() => undefined)
      .finally(() => this.controllers.delete(controller));
  }

  stopAll(): void {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }
}

export function newTaskState(): TaskFixtureState {
  return { executions: new Map(), clientCancels: [], stopped: [] };
}

const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** One McpServer per session; the store, the jobs and the state are shared by all of them. */
export function buildTaskServer(store: SharedTaskStore, jobs: TaskJobs, state: TaskFixtureState): McpServer {
  const server = new McpServer({ name: "fixture-tasks", version: "1.0.0" }, { capabilities: { tools: {}, tasks: TASKS_CAPABILITY }, taskStore: store, taskMessageQueue: new InMemoryTaskMessageQueue() });
  const tasks = server.experimental.tasks;
  // The protocol's own handlers answer tasks/get and tasks/result from the store; these two are required but unused.
  const lookups = {
    getTask: async (_args: unknown, extra: { taskId: string }) => (await store.getTask(extra.taskId))!,
    getTaskResult: async (_args: unknown, extra: { taskId: string }) => (await store.getTaskResult(extra.taskId)) as { content: [] },
  };
  const poll = z.number().default(100).describe("The pollInterval the task suggests, ms");

  /** Creates the task, then runs `work` in the background until it ends or the task does. */
  const start = async (extra: { taskStore: { createTask(o: CreateTaskOptions): Promise<Task> }; taskRequestedTtl?: number | null }, pollMs: number, work: (id: string, signal: AbortSignal) => Promise<void>) => {
    const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60_000, pollInterval: pollMs });
    jobs.run((signal) => work(task.taskId, signal));
    return { task };
  };
  /** Waits, unless the fixture closes; then checks that the task is still there to work on. */
  const step = async (id: string, ms: number, signal: AbortSignal): Promise<boolean> => {
    await new Promise<void>((resolve) => {
      const stop = () => (clearTimeout(timer), resolve());
      // Each step's listener goes when the step ends: a long job takes many steps on one signal.
      const timer = setTimeout(() => (signal.removeEventListener("abort", stop), resolve()), ms);
      signal.addEventListener("abort", stop, { once: true });
    });
    const task = await store.getTask(id);
    const alive = !signal.aborted && task !== null && task.status === "working";
    if (!alive) state.stopped.push(id);
    return alive;
  };

  tasks.registerToolTask(
    "progress",
    { description: "Reports `step i/n` as its status message each step, then completes.", inputSchema: { steps: z.number(), stepMs: z.number(), pollMs: poll }, execution: { taskSupport: "required" } },
    {
      createTask: ({ steps, stepMs, pollMs }, extra) =>
        start(extra, pollMs, async (id, signal) => {
          for (let i = 1; i <= steps; i++) {
            await store.updateTaskStatus(id, "working", `step ${i}/${steps}`);
            if (!(await step(id, stepMs, signal))) return;
          }
          await store.storeTaskResult(id, "completed", { content: [{ type: "text", text: `done after ${steps} steps` }] });
        }),
      ...lookups,
    },
  );

  tasks.registerToolTask(
    "fail_result",
    { description: "Ends `failed` with an isError result.", inputSchema: { message: z.string(), pollMs: poll }, execution: { taskSupport: "required" } },
    {
      createTask: ({ message, pollMs }, extra) =>
        start(extra, pollMs, async (id, signal) => {
          if (!(await step(id, 150, signal))) return;
          await store.storeTaskResult(id, "failed", { content: [{ type: "text", text: message }], isError: true });
        }),
      ...lookups,
    },
  );

  tasks.registerToolTask(
    "fail_rpc",
    { description: "Ends `failed`; its tasks/result answers with a JSON-RPC error.", inputSchema: { code: z.number(), message: z.string(), pollMs: poll }, execution: { taskSupport: "required" } },
    {
      createTask: ({ code, message, pollMs }, extra) =>
        start(extra, pollMs, async (id, signal) => {
          if (!(await step(id, 150, signal))) return;
          await store.failWithError(id, new McpError(code, message));
        }),
      ...lookups,
    },
  );

  tasks.registerToolTask(
    "server_cancel",
    { description: "The server cancels its own task after `afterMs`.", inputSchema: { afterMs: z.number(), reason: z.string(), pollMs: poll }, execution: { taskSupport: "required" } },
    {
      createTask: ({ afterMs, reason, pollMs }, extra) =>
        start(extra, pollMs, async (id, signal) => {
          await store.updateTaskStatus(id, "working", "waiting for the scheduler");
          if (!(await step(id, afterMs, signal))) return;
          await store.cancelByServer(id, reason);
        }),
      ...lookups,
    },
  );

  tasks.registerToolTask(
    "count",
    {
      description: "Counts its executions per key (not idempotent), working for `ms` first; stops early when cancelled.",
      inputSchema: { key: z.string(), ms: z.number(), pollMs: poll },
      annotations: { idempotentHint: false, readOnlyHint: false },
      execution: { taskSupport: "required" },
    },
    {
      createTask: ({ key, ms, pollMs }, extra) => {
        const n = (state.executions.get(key) ?? 0) + 1;
        state.executions.set(key, n);
        return start(extra, pollMs, async (id, signal) => {
          for (let left = ms; left > 0; left -= 200) {
            await store.updateTaskStatus(id, "working", `counting (${Math.max(left, 0)} ms left)`);
            if (!(await step(id, Math.min(200, left), signal))) return;
          }
          await store.storeTaskResult(id, "completed", { content: [{ type: "text", text: `count ${n}` }] });
        });
      },
      ...lookups,
    },
  );

  // A plain tool (taskSupport forbidden): the v1 server runs it at once even when asked for a task.
  server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));

  return server;
}

/**
 * One tool call run as an MCP task: the server answers with a task id at once and with the
 * result later. The task id is what makes the outcome knowable after a lost connection: the
 * caller keeps it (`onCreated`) and, on a new connection, asks about the same task (`resume`)
 * instead of running the tool again.
 *
 * Eras. The 2025-11-25 revision's core Tasks (SEP-1686) work with a client of either SDK line,
 * through `client.request` and result schemas of our own: the v2 client has no tasks API, and its
 * `callTool` rejects a CreateTaskResult. The 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * runs through the same TaskRun, over the requester of ./tasksExtension.ts, which speaks the
 * extension's wire past the v2 client's codec (that codec rejects a `resultType: "task"` answer).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { jsonRpcCode } from "../errors/classify/jsonrpc.js";
import { dropUndefined, messageOf, stripMcpPrefix } from "../errors/classify/util.js";
import { fromResult } from "../errors/fromResult.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { normalize, type NormalizeContext } from "../errors/normalize.js";
import type { Reason } from "../errors/reasons.js";
import { follow, sleep } from "../policy/abort.js";
import { type AnyClient, eraOf } from "./clients.js";
import { extensionRequester, supportsExtensionTasks } from "./tasksExtension.js";

/** Where a task stands. `completed`, `failed` and `cancelled` are final. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The defaults of {@link RunAsTaskOptions}, in one place. */
export const TASK_DEFAULTS = {
  /** The poll interval when the server suggests none, ms. */
  pollIntervalMs: 1_000,
  minPollIntervalMs: 100,
  maxPollIntervalMs: 5_000,
  cancelTimeoutMs: 2_000,
} as const;

export interface TaskCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface RunAsTaskOptions {
  /** The caller's signal: an abort sends `tasks/cancel` and rejects with `cancelled`. */
  signal?: AbortSignal;
  /**
   * The bound on the whole task (creation, every poll, the result), ms. On expiry the task is sent
   * `tasks/cancel` (waiting at most `cancelTimeoutMs` more) and the call rejects with `request_timeout`.
   */
  timeoutMs: number;
  /** How long the server should keep the task and its result, ms. @default undefined (the server decides) */
  ttlMs?: number;
  /** Ask about this task instead of creating one: how a call survives a lost connection. */
  resume?: { taskId: string };
  /** Called once with the new task's id, before the first poll. Keep it to resume after a reconnect. */
  onCreated?: (taskId: string) => void;
  /** Called on every change of status or status message, the first and the last included. */
  onStatus?: (status: TaskStatus, message: string | undefined, taskId: string) => void;
  /** The shortest wait between polls, whatever the server suggests, ms. @default 100 */
  minPollIntervalMs?: number;
  /** The longest wait between polls, whatever the server suggests, ms. @default 5000 */
  maxPollIntervalMs?: number;
  /** How long `tasks/cancel` may take after an expiry or an abort, ms. @default 2000 */
  cancelTimeoutMs?: number;
  /** What the classifier should know: the tool's and server's names, custom codes. */
  context?: NormalizeContext;
}

// Our own timer must always fire before the SDK's per-request one, so each request gets this slack.
const SDK_SLACK_MS = 1_000;
const MAX_TIMER_MS = 2_147_483_647;
const INVALID_PARAMS = -32602;

const TaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() });
const ResultSchema = z.looseObject({ content: z.array(z.unknown()).optional(), isError: z.boolean().optional() });
const CreatedSchema = ResultSchema.extend({ task: TaskSchema.optional() });
const CancelSchema = z.looseObject({});
type WireTask = z.infer<typeof TaskSchema>;

/** The one request method both SDK lines' clients share: `request(request, resultSchema, options)`. */
interface RequestingClient {
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: unknown, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}

/** Can this connection run tool calls as tasks? The 2025-11-25 core Tasks, declared by the server. */
export function supportsToolTasks(client: AnyClient): boolean {
  if (eraOf(client) === "modern") return supportsExtensionTasks(client);
  const capabilities = client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
  return capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/**
 * Runs one tool call as a task and resolves with its result. Rejects with an {@link McpToolError}:
 * the task's own error (an `isError` result or a JSON-RPC error, outcome `executed`),
 * `task_cancelled`, `task_lost`, `request_timeout`, `cancelled`, or the transport's failure
 * (classified as any call's is, except that once the task exists its outcome is never `not_sent`;
 * the task lives on, and `resume` asks about it again). Errors made after the task id is known carry
 * `data.taskId` where `data` is free. Errors thrown by the callbacks are ignored.
 */
export async function runAsTask(client: AnyClient, params: TaskCallParams, options: RunAsTaskOptions): Promise<CallToolResult> {
  const context = options.context ?? {};
  if (options.signal?.aborted) {
    throw McpToolError.of("cancelled", "The call was cancelled by the caller before it was sent.", { ...fieldsOf(context), outcome: "not_sent", cause: options.signal.reason });
  }
  if (eraOf(client) === "modern") {
    if (!supportsExtensionTasks(client)) {
      throw McpToolError.of("capability_missing", "The server does not declare the io.modelcontextprotocol/tasks extension, which 2026-07-28 Tasks need. Nothing was sent.", fieldsOf(context));
    }
    return new TaskRun(extensionRequester(client), params, options, context).run();
  }
  if (!supportsToolTasks(client)) {
    throw McpToolError.of("capability_missing", "The server does not support tool calls as tasks (it declares no tasks.requests.tools.call capability). Nothing was sent.", fieldsOf(context));
  }
  return new TaskRun(client as unknown as RequestingClient, params, options, context).run();
}

class TaskRun {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private ended: "timeout" | "aborted" | undefined;
  private taskId: string | undefined;
  private status: TaskStatus | undefined;
  private reported: string | undefined;

  constructor(
    private readonly client: RequestingClient,
    private readonly params: TaskCallParams,
    private readonly options: RunAsTaskOptions,
    private readonly context: NormalizeContext,
  ) {
    this.deadline = Date.now() + options.timeoutMs;
    this.taskId = options.resume?.taskId;
  }

  async run(): Promise<CallToolResult> {
    const end = (why: "timeout" | "aborted") => {
      if (this.ended !== undefined) return;
      this.ended = why;
      this.controller.abort(why);
    };
    const bounded = Number.isFinite(this.options.timeoutMs);
    const timer = bounded ? setTimeout(() => end("timeout"), Math.min(Math.max(this.options.timeoutMs, 0), MAX_TIMER_MS)) : undefined;
    const onAbort = () => end("aborted");
    this.options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.drive();
    } catch (thrown) {
      throw await this.failure(thrown);
    } finally {
      clearTimeout(timer);
      this.options.signal?.removeEventListener("abort", onAbort);
    }
  }

  private async drive(): Promise<CallToolResult> {
    let task: WireTask;
    if (this.taskId === undefined) {
      const ttl = this.options.ttlMs;
      const created = await this.send("tools/call", { ...this.params, task: ttl === undefined ? {} : { ttl } }, CreatedSchema);
      // A server that declares tool tasks may still answer at once (it need not implement what it
      // declares): that answer is the call's.
      if (!created.task) return this.settle({ ...created, content: created.content ?? [] } as CallToolResult, false);
      task = created.task;
      const id = task.taskId;
      this.taskId = id;
      quietly(() => this.options.onCreated?.(id));
    } else {
      task = await this.get();
    }
    this.see(task);
    // input_required: the spec says to call tasks/result, which delivers the server's requests and waits for the end.
    while (this.status !== "input_required" && !isFinal(this.status)) {
      await sleep(this.pollDelay(task), this.controller.signal);
      task = await this.get();
      this.see(task);
    }
    if (this.status === "cancelled") throw this.cancelledByServer(task);
    return this.result(task);
  }

  private async result(task: WireTask): Promise<CallToolResult> {
    let raw: z.infer<typeof ResultSchema>;
    try {
      raw = await this.send("tasks/result", { taskId: this.taskId }, ResultSchema);
    } catch (error) {
      const classified = this.ended === undefined ? normalize(error, this.context) : undefined;
      // The task's own JSON-RPC error comes back from tasks/result; anything else is not the task's news.
      if (classified?.kind !== "protocol") throw error;
      if (jsonRpcCode(error) === INVALID_PARAMS) {
        // The task's own -32602, or a task that vanished since the last poll: ask once more.
        const again = await this.get();
        this.see(again);
        if (this.status === "cancelled") throw this.cancelledByServer(again);
      }
      throw classified.with({ outcome: "executed" });
    }
    return this.settle({ ...raw, content: raw.content ?? [] } as CallToolResult, true, task);
  }

  /** A result: returned, or thrown when it reports failure. Inside a task the tool certainly ran. */
  private settle(result: CallToolResult, asTask: boolean, task?: WireTask): CallToolResult {
    const failure = fromResult(result, this.context);
    if (failure) throw asTask && failure.outcome !== "executed" ? failure.with({ outcome: "executed" }) : failure;
    if (this.status === "failed") {
      throw this.made("tool_error", task?.statusMessage ?? `Task ${this.taskId} failed without a message.`, { outcome: "executed", kind: "domain" });
    }
    return result;
  }

  private async get(): Promise<WireTask> {
    try {
      return await this.send("tasks/get", { taskId: this.taskId }, TaskSchema);
    } catch (error) {
      // The task id is the only parameter of tasks/get: an invalid-params answer means the server does not know it.
      if (this.ended === undefined && jsonRpcCode(error) === INVALID_PARAMS) {
        throw this.made("task_lost", `The server no longer knows task ${this.taskId}: ${stripMcpPrefix(messageOf(error))}`, { cause: error });
      }
      throw error;
    }
  }

  private async failure(thrown: unknown): Promise<McpToolError> {
    // The server's verdict on the task beats our own timer or the caller's abort that came with it.
    if (isMcpToolError(thrown)) return thrown;
    if (this.ended !== undefined) return this.endedByUs(thrown);
    const error = normalize(thrown, this.context);
    if (this.taskId === undefined) return error;
    // A poll that never reached the server says nothing about the tool: its task was already running.
    return error.with({ ...(error.outcome === "not_sent" ? { outcome: "unknown" as const } : {}), ...(error.data === undefined ? { data: { taskId: this.taskId } } : {}) });
  }

  /** Our timeout or the caller's abort: the task is sent tasks/cancel (bounded, best effort) first. */
  private async endedByUs(cause: unknown): Promise<McpToolError> {
    const cancel = await this.cancelOnServer();
    const timedOut = this.ended === "timeout";
    const what = timedOut ? `The task did not finish within ${this.options.timeoutMs} ms` : "The call was cancelled by the caller";
    return this.made(timedOut ? "request_timeout" : "cancelled", `${what}; ${cancel.note}.`, { cause, data: dropUndefined({ taskId: this.taskId, taskCancelled: cancel.acknowledged }) });
  }

  private async cancelOnServer(): Promise<{ acknowledged: boolean; note: string }> {
    const id = this.taskId;
    if (id === undefined) return { acknowledged: false, note: "no task had been created yet" };
    if (isFinal(this.status)) return { acknowledged: false, note: `task ${id} had already ended (${this.status})` };
    try {
      await this.send("tasks/cancel", { taskId: id }, CancelSchema, { timeoutMs: this.options.cancelTimeoutMs ?? TASK_DEFAULTS.cancelTimeoutMs });
      return { acknowledged: true, note: `task ${id} was cancelled on the server` };
    } catch (error) {
      return { acknowledged: false, note: `tasks/cancel for task ${id} failed: ${messageOf(error)}` };
    }
  }

  private cancelledByServer(task: WireTask): McpToolError {
    return this.made("task_cancelled", `The server cancelled task ${this.taskId}${task.statusMessage ? `: ${task.statusMessage}` : "."}`);
  }

  private see(task: WireTask): void {
    const status = statusOf(task.status);
    this.status = status;
    const key = `${status}\n${task.statusMessage ?? ""}`;
    if (key === this.reported) return;
    this.reported = key;
    const id = this.taskId ?? task.taskId;
    quietly(() => this.options.onStatus?.(status, task.statusMessage, id));
  }

  private pollDelay(task: WireTask): number {
    const min = this.options.minPollIntervalMs ?? TASK_DEFAULTS.minPollIntervalMs;
    const max = this.options.maxPollIntervalMs ?? TASK_DEFAULTS.maxPollIntervalMs;
    return Math.min(Math.max(task.pollInterval ?? TASK_DEFAULTS.pollIntervalMs, min), max);
  }

  /**
   * One request. Each gets its own signal, linked to the run's for as long as the request lasts:
   * the v1 SDK never removes the listener it adds to a request's signal.
   */
  private async send<T>(method: string, params: Record<string, unknown>, schema: z.ZodType<T>, alone?: { timeoutMs: number }): Promise<T> {
    const own = new AbortController();
    const unfollow = follow(own, alone ? undefined : this.controller.signal);
    const remaining = this.deadline - Date.now();
    const timeout = alone?.timeoutMs ?? Math.min(Math.max(remaining, 0) + SDK_SLACK_MS, MAX_TIMER_MS);
    try {
      return (await this.client.request({ method, params }, schema, { signal: own.signal, timeout })) as T;
    } finally {
      unfollow();
    }
  }

  private made(reason: Reason, message: string, extra: Partial<Pick<McpToolError, "outcome" | "kind" | "data">> & { cause?: unknown } = {}): McpToolError {
    return McpToolError.of(reason, message, dropUndefined({ ...fieldsOf(this.context), data: this.taskId === undefined ? undefined : { taskId: this.taskId }, ...extra }));
  }
}

function statusOf(status: string): TaskStatus {
  // A status from a later revision is treated as work in progress: keep asking.
  return status === "input_required" || status === "completed" || status === "failed" || status === "cancelled" ? status : "working";
}

function isFinal(status: TaskStatus | undefined): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

function fieldsOf(context: NormalizeContext): { toolName?: string; serverName?: string; attempts?: number } {
  return dropUndefined({ toolName: context.toolName, serverName: context.serverName, attempts: context.attempts });
}

function quietly(callback: () => void): void {
  try {
    callback();
  } catch {
    // A listener's failure is not the call's.
  }
}

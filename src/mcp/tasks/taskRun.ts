/**
 * One run of a task call, from creation (or resumption) to its result: its one timer, its
 * polls, the input a 2026 task asks for, and its classification when it ends. Every failure is
 * classified here, once, as what it is: the server's verdict, our timer (`request_timeout`), the
 * caller's abort (`cancelled`), the toolkit's close (`closed`), or the transport's failure.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isControlFlow } from "../../errors/controlFlow.js";
import { jsonRpcCode } from "../../errors/classify/jsonrpc.js";
import { dropUndefined, messageOf, stripMcpPrefix } from "../../errors/classify/util.js";
import { fromResult } from "../../errors/fromResult.js";
import { isMcpToolError, McpToolError } from "../../errors/McpToolError.js";
import { normalize, type NormalizeContext } from "../../errors/normalize.js";
import type { Reason } from "../../errors/reasons.js";
import { follow, sleep, ToolkitClosedError } from "../../policy/abort.js";
import type { Progress } from "../session/clients.js";
import type { RunAsTaskOptions, TaskCallParams, TaskStatus } from "./taskOptions.js";
import type { TaskRequester } from "./tasksExtension.js";

/** The defaults of {@link RunAsTaskOptions} (./tasks.ts), in one place. */
export const TASK_DEFAULTS = {
  /** The poll interval when the server suggests none, ms. */
  pollIntervalMs: 1_000,
  minPollIntervalMs: 100,
  maxPollIntervalMs: 5_000,
  cancelTimeoutMs: 2_000,
} as const;

// Our own timer must always fire before the SDK's per-request one, so each request gets this slack.
const SDK_SLACK_MS = 1_000;
const MAX_TIMER_MS = 2_147_483_647;
const INVALID_PARAMS = -32602;

const TaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() });
const ResultSchema = z.looseObject({ content: z.array(z.unknown()).optional(), isError: z.boolean().optional() });
const CreatedSchema = ResultSchema.extend({ task: TaskSchema.optional() });
const AckSchema = z.looseObject({});
type WireTask = z.infer<typeof TaskSchema>;

export class TaskRun {
  private readonly controller = new AbortController();
  private deadline: number;
  private timer: NodeJS.Timeout | undefined;
  private ended: "timeout" | "aborted" | undefined;
  private taskId: string | undefined;
  private status: TaskStatus | undefined;
  private reported: string | undefined;

  constructor(
    private readonly client: TaskRequester,
    private readonly params: TaskCallParams,
    private readonly options: RunAsTaskOptions,
    private readonly context: NormalizeContext,
  ) {
    this.deadline = Date.now() + options.timeoutMs;
    this.taskId = options.resume?.taskId;
  }

  async run(): Promise<CallToolResult> {
    this.arm();
    const onAbort = () => this.end("aborted");
    this.options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.drive();
    } catch (thrown) {
      // A LangGraph interrupt from an input handler is no failure: it passes through untouched.
      if (isControlFlow(thrown)) throw thrown;
      throw await this.failure(thrown);
    } finally {
      clearTimeout(this.timer);
      this.options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** One progress notification of the call: it restarts our timer when the caller asked for that. */
  progressed(progress: Progress): void {
    if (this.ended !== undefined) return;
    if (this.options.resetTimeoutOnProgress) this.arm();
    quietly(() => this.options.onProgress?.(progress));
  }

  private arm(): void {
    if (!Number.isFinite(this.options.timeoutMs)) return;
    clearTimeout(this.timer);
    const ms = Math.min(Math.max(this.options.timeoutMs, 0), MAX_TIMER_MS);
    this.deadline = Date.now() + ms;
    this.timer = setTimeout(() => this.end("timeout"), ms);
  }

  private end(why: "timeout" | "aborted"): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    this.controller.abort(why);
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
    while (!isFinal(this.status)) {
      // 2025: tasks/result delivers the server's requests and waits for the end. 2026: we answer by tasks/update and poll on.
      if (this.status === "input_required" && !this.client.inputFor) break;
      if (this.status === "input_required") await this.answerInput(task);
      await sleep(this.pollDelay(task), this.controller.signal);
      task = await this.get();
      this.see(task);
    }
    if (this.status === "cancelled") throw this.cancelledByServer(task);
    return this.result(task);
  }

  /** A 2026 task's questions, answered through the input handler; if they cannot be, the task is cancelled. */
  private async answerInput(task: WireTask): Promise<void> {
    try {
      const inputResponses = await this.client.inputFor!(task, this.controller.signal);
      if (inputResponses) await this.send("tasks/update", { taskId: this.taskId, inputResponses }, AckSchema);
    } catch (thrown) {
      if (this.ended !== undefined) throw thrown;
      // Nobody will answer it: a task left waiting would hold its work until its ttl.
      const cancel = await this.cancelOnServer();
      if (isControlFlow(thrown)) throw thrown;
      const error = isMcpToolError(thrown) ? thrown : normalize(thrown, this.context);
      throw error.with({ outcome: error.outcome === "not_sent" ? "unknown" : error.outcome, data: { taskId: this.taskId, taskCancelled: cancel.acknowledged } });
    }
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

  /**
   * Our timeout, or the caller's (its timer aborted our signal: `expiredAfter` says so): the
   * task is sent tasks/cancel (bounded, best effort) first, so that a retry does not find it
   * still running. The caller's abort and the toolkit's close settle at once (see `stopped`).
   */
  private async endedByUs(cause: unknown): Promise<McpToolError> {
    const expiry = this.ended === "aborted" ? this.options.expiredAfter?.() : undefined;
    if (this.ended === "aborted" && expiry === undefined) return this.stopped(cause);
    const cancel = await this.cancelOnServer();
    const limit = expiry === undefined ? `within ${this.options.timeoutMs} ms` : "timeout" in expiry ? `within ${expiry.timeout} ms` : "deadline" in expiry ? `within the call's deadline of ${expiry.deadline} ms` : `within the maximum total time of ${expiry.maxTotalTimeout} ms`;
    return this.made("request_timeout", `The task did not finish ${limit}; ${cancel.note}.`, { cause, data: dropUndefined({ taskId: this.taskId, taskCancelled: cancel.acknowledged }) });
  }

  /**
   * The caller's abort (`cancelled`) or the toolkit's close (`closed`: the signal's reason says
   * which): the call settles now, and the task, if it runs, is sent tasks/cancel in the
   * background, bounded by `cancelTimeoutMs`; that request never rejects (see `cancelOnServer`).
   */
  private stopped(cause: unknown): McpToolError {
    const id = this.taskId;
    const running = id !== undefined && !isFinal(this.status);
    if (running) void this.cancelOnServer();
    const note = id === undefined ? "no task had been created yet" : running ? `task ${id} is sent tasks/cancel in the background` : `task ${id} had already ended (${this.status})`;
    if (this.options.signal?.reason instanceof ToolkitClosedError) {
      // The tools/call was sent, or the task exists: whether the tool ran is not known.
      return this.made("closed", `The toolkit was closed while the task call was in flight; ${note}.`, { cause, outcome: "unknown" });
    }
    return this.made("cancelled", `The call was cancelled by the caller; ${note}.`, { cause });
  }

  private async cancelOnServer(): Promise<{ acknowledged: boolean; note: string }> {
    const id = this.taskId;
    if (id === undefined) return { acknowledged: false, note: "no task had been created yet" };
    if (isFinal(this.status)) return { acknowledged: false, note: `task ${id} had already ended (${this.status})` };
    try {
      await this.send("tasks/cancel", { taskId: id }, AckSchema, { timeoutMs: this.options.cancelTimeoutMs ?? TASK_DEFAULTS.cancelTimeoutMs });
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

export function fieldsOf(context: NormalizeContext): { toolName?: string; serverName?: string; attempts?: number } {
  return dropUndefined({ toolName: context.toolName, serverName: context.serverName, attempts: context.attempts });
}

function quietly(callback: () => void): void {
  try {
    callback();
  } catch {
    // A listener's failure is not the call's.
  }
}

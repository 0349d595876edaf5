/**
 * A tool call that runs as an MCP Task, across its attempts: the task id it created is kept, so
 * an attempt after a lost connection asks about the same task instead of running the tool again.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isMcpToolError } from "../../errors/McpToolError.js";
import type { NormalizeContext } from "../../errors/normalize.js";
import type { AttemptScope } from "../../policy/TimeoutPolicy.js";
import type { AnyClient, CallParams } from "../session/clients.js";
import { eraOf } from "../session/clients.js";
import type { ClientRequests } from "../call/ClientRequests.js";
import type { Connection } from "../session/Connection.js";
import { LOG_LEVEL_META_KEY } from "../session/serverLogs.js";
import { runAsTask, supportsToolTasks, type TaskStatus } from "./tasks.js";

/** When a tool call runs as a task: `auto` when the tool requires it, `always` when it allows it, `never`. */
export type TaskPolicy = "auto" | "always" | "never";

/** A timeout this long or longer makes `task: "auto"` run a tool that allows tasks as one. */
export const LONG_TIMEOUT_MS = 60_000;

/**
 * Should this call run as a task, by `policy`, the server's capabilities and the tool's
 * `execution.taskSupport`? `"auto"` runs a tool that allows tasks as one when its `timeoutMs`
 * is long ({@link LONG_TIMEOUT_MS}).
 */
export function shouldRunAsTask(policy: TaskPolicy, client: AnyClient, tool: { execution?: { taskSupport?: string } } | undefined, timeoutMs = 0): boolean {
  return tasksPossible(policy, client) && (serverDecides(client) || toolRunsAsTask(policy, tool, timeoutMs));
}

/**
 * 2026-07-28: a tool declares no task support; once the client declares the Tasks extension on a
 * call, the server decides whether it runs as a task. So every call there goes the task way.
 */
function serverDecides(client: AnyClient): boolean {
  return eraOf(client) === "modern";
}

/** Can any call run as a task, by the policy and the server's capabilities? */
function tasksPossible(policy: TaskPolicy, client: AnyClient): boolean {
  return policy !== "never" && supportsToolTasks(client);
}

/** Does this tool run as a task, where tasks are possible at all? */
function toolRunsAsTask(policy: TaskPolicy, tool: { execution?: { taskSupport?: string } } | undefined, timeoutMs: number): boolean {
  const support = tool?.execution?.taskSupport;
  return support === "required" || (support === "optional" && (policy === "always" || timeoutMs >= LONG_TIMEOUT_MS));
}

/** One logical call's task, shared by its attempts. */
export interface TaskCall {
  policy: TaskPolicy;
  /** The call's timeout, which bounds the whole task. */
  timeoutMs: number;
  /** The task this call created and has not seen end. */
  id?: string;
  onStatus?: (status: TaskStatus, message: string | undefined, taskId: string) => void;
}

/** Does this call run as a task on this client? */
export function runsAsTask(task: TaskCall | undefined, client: AnyClient, connection: Connection, mcpName: string): task is TaskCall {
  if (!task) return false;
  // A task this call created is asked about again, whatever the policy says.
  if (task.id !== undefined) return true;
  // Asked on every call: the tool is looked up only where the policy and the server leave it open.
  return tasksPossible(task.policy, client) && (serverDecides(client) || toolRunsAsTask(task.policy, connection.tools.find((t) => t.name === mcpName), task.timeoutMs));
}

const ENDED: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

/** What an attempt hands its task from its connection and its call. */
export interface TaskAttemptHooks {
  connection: Connection;
  /** The requests of the client the attempt goes over: its raw requests' headers are kept there. */
  requests: ClientRequests;
  /** HTTP headers for this attempt's requests alone (a `beforeToolCall`'s). */
  headers?: Record<string, string>;
  /** Hears the call's progress (and restarts the attempt's timer, where the policy says so). */
  onprogress?: (progress: unknown) => void;
  resetTimeoutOnProgress?: boolean;
}

/**
 * One attempt of a task call: creates the task, or resumes the one an earlier attempt created.
 * Our timer (the attempt's signal) bounds it, and the task is cancelled on the server when it
 * fires or the caller aborts; the run classifies that itself (`request_timeout` by
 * `scope.expiredAfter`, `closed` by the signal's reason, otherwise `cancelled`). A failure that leaves the task running (a lost connection) says so
 * in `data.resumeTask`, which makes a repeat safe for any tool.
 */
export async function taskAttempt(client: AnyClient, params: CallParams, task: TaskCall, scope: AttemptScope, context: NormalizeContext, backstopMs: number, hooks: TaskAttemptHooks): Promise<CallToolResult> {
  const { connection, requests, headers, onprogress, resetTimeoutOnProgress } = hooks;
  // 2026-07-28 has no session to set a log level on: each request states it, as on the SDK's path.
  const level = connection.logLevel;
  if (level && eraOf(client) === "modern") params = { ...params, _meta: { ...params._meta, [LOG_LEVEL_META_KEY]: level } };
  try {
    const result = await runAsTask(client, params, {
      signal: scope.signal,
      expiredAfter: () => scope.expiredAfter,
      timeoutMs: backstopMs,
      ...(task.id !== undefined ? { resume: { taskId: task.id } } : {}),
      onCreated: (id) => (task.id = id),
      onStatus: (status, message, id) => {
        if (ENDED.includes(status)) task.id = undefined;
        task.onStatus?.(status, message, id);
      },
      ...(onprogress ? { onProgress: onprogress } : {}),
      ...(resetTimeoutOnProgress ? { resetTimeoutOnProgress } : {}),
      input: { ...connection.input, context: { serverName: connection.name, era: "modern", ...(context.toolName ? { toolName: context.toolName } : {}) } },
      ...(headers ? { headers: { set: headers, byRequest: requests.requestHeaders } } : {}),
      context,
    });
    task.id = undefined;
    return result;
  } catch (thrown) {
    if (!isMcpToolError(thrown)) throw thrown;
    const id = task.id;
    // Our timer or the caller's abort: the task was sent tasks/cancel, and a repeat starts afresh.
    const endedByUs = thrown.reason === "request_timeout" || thrown.reason === "cancelled";
    // -32026 StaleState naming the task: the server holds no usable state for it, so a repeat starts a fresh task.
    const staleTask = thrown.reason === "stale_state" && (thrown.data as { kind?: unknown } | undefined)?.kind === "task";
    if (endedByUs || staleTask || !thrown.transient) task.id = undefined;
    if (id === undefined || endedByUs || staleTask || !thrown.transient) throw thrown;
    const data = thrown.data;
    if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) throw thrown;
    throw thrown.with({ data: { ...(data as Record<string, unknown> | undefined), resumeTask: id } });
  }
}

/**
 * One tool call run as an MCP task: the server answers with a task id at once and with the
 * result later. The task id is what makes the outcome knowable after a lost connection: the
 * caller keeps it (`onCreated`) and, on a new connection, asks about the same task (`resume`)
 * instead of running the tool again.
 *
 * Eras. The 2025-11-25 revision's core Tasks (SEP-1686) work with a client of either SDK line,
 * through `client.request` and result schemas of our own: the v2 client has no tasks API, and its
 * `callTool` rejects a CreateTaskResult. The 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * runs through the same TaskRun (./taskRun.ts), over the requester of ./tasksExtension.ts, which
 * speaks the extension's wire past the v2 client's codec (that codec rejects a `resultType: "task"`
 * answer) and answers the input requests that extension's tasks make.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dropUndefined } from "../../errors/classify/util.js";
import { McpToolError } from "../../errors/McpToolError.js";
import { ToolkitClosedError } from "../../policy/abort.js";
import { type AnyClient, eraOf, type Progress } from "../session/clients.js";
import type { RunAsTaskOptions, TaskCallParams } from "./taskOptions.js";
import { fieldsOf, TaskRun } from "./taskRun.js";

export type { RunAsTaskOptions, TaskCallParams, TaskStatus } from "./taskOptions.js";
/** The defaults of {@link RunAsTaskOptions}: kept beside the run that reads them. */
export { TASK_DEFAULTS } from "./taskRun.js";
import { extensionRequester, supportsExtensionTasks, type TaskRequester } from "./tasksExtension.js";

/** Can this connection run tool calls as tasks? The 2025-11-25 core Tasks, declared by the server. */
export function supportsToolTasks(client: AnyClient): boolean {
  if (eraOf(client) === "modern") return supportsExtensionTasks(client);
  const capabilities = client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
  return capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/**
 * Runs one tool call as a task and resolves with its result. Rejects with an {@link McpToolError}:
 * the task's own error (an `isError` result or a JSON-RPC error, outcome `executed`),
 * `task_cancelled`, `task_lost`, `request_timeout`, `cancelled`, `closed`, or the transport's failure
 * (classified as any call's is, except that once the task exists its outcome is never `not_sent`;
 * the task lives on, and `resume` asks about it again). Errors made after the task id is known carry
 * `data.taskId` where `data` is free. Errors thrown by the callbacks are ignored.
 */
export async function runAsTask(client: AnyClient, params: TaskCallParams, options: RunAsTaskOptions): Promise<CallToolResult> {
  const context = options.context ?? {};
  if (options.signal?.aborted) {
    const reason = options.signal.reason;
    if (reason instanceof ToolkitClosedError) throw McpToolError.of("closed", reason.message, { ...fieldsOf(context), outcome: "not_sent", cause: reason });
    throw McpToolError.of("cancelled", "The call was cancelled by the caller before it was sent.", { ...fieldsOf(context), outcome: "not_sent", cause: reason });
  }
  if (eraOf(client) === "modern") {
    if (!supportsExtensionTasks(client)) {
      throw McpToolError.of("capability_missing", "The server does not declare the io.modelcontextprotocol/tasks extension, which 2026-07-28 Tasks need. Nothing was sent.", fieldsOf(context));
    }
    // The requester hears the call's progress before the run exists to hear it.
    let run: TaskRun | undefined = undefined;
    const { headers, resetTimeoutOnProgress, input } = options;
    const onProgress = options.onProgress || resetTimeoutOnProgress ? (progress: Progress) => run?.progressed(progress) : undefined;
    const asks = input ?? { handler: undefined, maxRounds: 1, context: { serverName: context.serverName ?? "the server", era: "modern" as const, ...(context.toolName ? { toolName: context.toolName } : {}) } };
    run = new TaskRun(extensionRequester(client, dropUndefined({ headers, onProgress, resetTimeoutOnProgress, input: asks })), params, options, context);
    return run.run();
  }
  if (!supportsToolTasks(client)) {
    throw McpToolError.of("capability_missing", "The server does not support tool calls as tasks (it declares no tasks.requests.tools.call capability). Nothing was sent.", fieldsOf(context));
  }
  const requester = client as unknown as TaskRequester;
  // A 2025 task's requests are the client's own: its per-request headers go in their send options.
  const set = options.headers?.set;
  const withHeaders: TaskRequester = set ? { request: (request, schema, o) => requester.request(request, schema, { ...o, headers: set } as never) } : requester;
  return new TaskRun(withHeaders, params, options, context).run();
}

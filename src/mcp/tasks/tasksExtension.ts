/**
 * 2026-07-28 Tasks: the `io.modelcontextprotocol/tasks` extension (`@modelcontextprotocol/ext-tasks`,
 * whose wire shapes this follows; the test server checks its answers with that package's schemas).
 * The package is not imported here: it exports ESM only, under the `import` condition, and this
 * library's CommonJS build would fail to load it. The v2 client (2.4) cannot carry it: its wire codec rejects a
 * `resultType: "task"` answer before any schema sees it and drops the task id, and it refuses
 * `tasks/get` toward a modern peer. So, as the extension's own package asks of its host (a
 * "raw dispatch"), these requests go straight through the connection's transport (./rawChannel.ts).
 *
 * The task machinery itself is the 2025 one (./taskRun.ts): {@link extensionRequester} speaks the
 * 2025 Tasks wire to it and the extension's wire to the server, so timeouts, cancelling, status
 * events and resuming by task id behave the same in both eras. What the extension adds is
 * answered here: the server's input requests, before the task (an `input_required` answer to
 * `tools/call`, sent again with the answers) and during it (a task in `input_required`, answered
 * by `tasks/update`), and the progress of the `tools/call` (the extension defines none after it).
 */
import { ProtocolError } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { McpToolError } from "../../errors/McpToolError.js";
import { raceAbort } from "../../policy/abort.js";
import { type AnyClient, eraOf, type Progress } from "../session/clients.js";
import type { InputContext, InputHandler } from "../../config/input.js";
import { answerInputRequest, withInputRounds, type InputRounds } from "../call/input.js";
import { rawChannel, TASKS_EXTENSION_ID, type RawRequestOptions, type RequestHeaders } from "./rawChannel.js";

export { TASKS_EXTENSION_ID };

/** Did the server of this 2026-07-28 connection declare the Tasks extension? */
export function supportsExtensionTasks(client: AnyClient): boolean {
  if (eraOf(client) !== "modern") return false;
  const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const declared = extensions?.[TASKS_EXTENSION_ID];
  return typeof declared === "object" && declared !== null;
}

/** The request surface TaskRun uses; the same as either SDK client's `request`. */
export interface TaskRequester {
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: unknown, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
  /**
   * Extension tasks only: the answers to the new input requests of a task in `input_required`,
   * by key, for `tasks/update`; undefined when it asks nothing new. (A 2025 task's input comes as
   * the server's own requests while `tasks/result` waits.)
   */
  inputFor?(task: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown> | undefined>;
}

/** How a call's input requests are answered: the connection's handler, its round limit, who asks. */
export interface TaskInput {
  handler: InputHandler | undefined;
  maxRounds: number;
  context: Omit<InputContext, "signal">;
}

/** What an extension call hears and carries besides its requests. */
export interface ExtensionHooks {
  /** HTTP headers for this call's requests alone. */
  headers?: RequestHeaders;
  /** Hears the `tools/call`'s progress notifications. */
  onProgress?: (progress: Progress) => void;
  /** Restart a request's timeout on its progress. @default false */
  resetTimeoutOnProgress?: boolean;
  /** @default undefined: every input request fails the call (elicitation_required or capability_missing). */
  input?: TaskInput;
}

interface WireTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, { method: string; params?: unknown }>;
}

/**
 * A requester that lets TaskRun drive an extension task. It translates: `tools/call` goes out
 * without the 2025 `task` field (in the extension the server decides, by the tool, and answers
 * with the task itself), `tasks/get` comes back in the 2025 shape, and `tasks/result` (which the
 * extension has not: a finished task carries its result or error) answers from the last
 * `tasks/get` of that task.
 */
export function extensionRequester(client: AnyClient, hooks: ExtensionHooks = {}): TaskRequester {
  const channel = rawChannel(client, hooks.headers);
  const finished = new Map<string, WireTask>();
  const answered = new Set<string>();
  let inputRounds = 0;
  const parse = (schema: unknown, value: unknown) => (schema as z.ZodType).parse(value);
  const rounds = (signal: AbortSignal | undefined): InputRounds => ({
    handler: hooks.input?.handler,
    maxRounds: hooks.input?.maxRounds ?? 0,
    context: { serverName: "", era: "modern", ...hooks.input?.context, ...(signal ? { signal } : {}) },
    // Each wait on the handler ends when the call does, whether or not the handler heeds its signal.
    wait: (answer) => raceAbort(answer, signal),
  });
  return {
    async request({ method, params = {} }, schema, options: RawRequestOptions = {}) {
      if (method === "tools/call") {
        const { task: _ignored, ...rest } = params;
        const progress = hooks.onProgress ? { onProgress: hooks.onProgress, resetTimeoutOnProgress: hooks.resetTimeoutOnProgress ?? false } : {};
        const send = (p: Record<string, unknown>) => channel(method, p, { ...options, ...progress }) as unknown as Promise<CallToolResult>;
        // Input asked before any task exists: answered, and the call sent again with the answers.
        const answer = (await withInputRounds(send, rest, rounds(options.signal))) as unknown as Record<string, unknown>;
        if (answer.resultType !== "task") return parse(schema, withoutResultType(answer));
        return parse(schema, { content: [], task: oldShape(answer as unknown as WireTask) });
      }
      if (method === "tasks/get") {
        const task = (await channel(method, params, options)) as unknown as WireTask;
        if (task.status === "completed" || task.status === "failed") finished.set(task.taskId, task);
        return parse(schema, oldShape(task));
      }
      if (method === "tasks/result") {
        const taskId = String(params.taskId);
        const task = finished.get(taskId) ?? ((await channel("tasks/get", { taskId }, options)) as unknown as WireTask);
        finished.delete(taskId);
        if (task.status === "failed" && task.error) throw new ProtocolError(task.error.code, task.error.message, task.error.data);
        if (task.status === "completed" && task.result) return parse(schema, withoutResultType(task.result));
        throw new ProtocolError(-32603, `Task ${taskId} is ${task.status}, not finished, yet its result was asked for.`);
      }
      return parse(schema, await channel(method, params, options));
    },

    async inputFor(task, signal) {
      const asked = Object.entries((task as unknown as WireTask).inputRequests ?? {}).filter(([key]) => !answered.has(key));
      if (asked.length === 0) return undefined;
      const limits = rounds(signal);
      if (++inputRounds > limits.maxRounds) {
        const message = `The server asked for input ${inputRounds} times for one task (the limit is maxInputRounds: ${limits.maxRounds}).`;
        throw McpToolError.of("elicitation_required", message, { serverName: limits.context.serverName });
      }
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of asked) inputResponses[key] = await answerInputRequest(request, limits);
      // Each key is answered once over the task's life (the server never reuses one), though polls repeat it until it sees the answer.
      for (const key of asked.map(([key]) => key)) answered.add(key);
      return inputResponses;
    },
  };
}

function withoutResultType(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _complete, ...rest } = result;
  return rest;
}

function oldShape(task: WireTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    ...(task.pollIntervalMs !== undefined ? { pollInterval: task.pollIntervalMs } : {}),
    ...(task.inputRequests !== undefined ? { inputRequests: task.inputRequests } : {}),
  };
}

/**
 * 2026-07-28 Tasks: the `io.modelcontextprotocol/tasks` extension (`@modelcontextprotocol/ext-tasks`,
 * whose wire shapes this follows; the test server checks its answers with that package's schemas).
 * The package is not imported here: it exports ESM only, under the `import` condition, and this
 * library's CommonJS build would fail to load it. The v2 client (2.4) cannot carry it: its wire codec rejects a
 * `resultType: "task"` answer before any schema sees it and drops the task id, and it refuses
 * `tasks/get` toward a modern peer. So, as the extension's own package asks of its host (a
 * "raw dispatch"), these requests go straight through the connection's transport, framed with the
 * per-request `_meta` envelope, and their answers are taken off the transport before the client
 * sees them.
 *
 * The task machinery itself is the 2025 one ({@link runAsTask}'s TaskRun): {@link extensionRequester}
 * speaks the 2025 Tasks wire to it and the extension's wire to the server, so timeouts, cancelling,
 * status events and resuming by task id behave the same in both eras.
 */
import { ProtocolError, SdkError, SdkErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/client";
import type { z } from "zod";
import { type AnyClient, eraOf, isV2Client, protocolVersionOf, transportOf } from "./clients.js";

export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
const META = "io.modelcontextprotocol/";
const INVALID_PARAMS = -32602;

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
}

interface WireTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * A requester that lets TaskRun drive an extension task. It translates: `tools/call` goes out
 * without the 2025 `task` field (in the extension the server decides, by the tool, and answers
 * with the task itself), `tasks/get` comes back in the 2025 shape, and `tasks/result` (which the
 * extension has not: a finished task carries its result or error) answers from the last
 * `tasks/get` of that task.
 */
export function extensionRequester(client: AnyClient): TaskRequester {
  const channel = rawChannel(client);
  const finished = new Map<string, WireTask>();
  const parse = (schema: unknown, value: unknown) => (schema as z.ZodType).parse(value);
  return {
    async request({ method, params = {} }, schema, options = {}) {
      if (method === "tools/call") {
        const { task: _ignored, ...rest } = params;
        const answer = await channel(method, rest, options);
        if (answer.resultType === "input_required") {
          // The server's input requests before any task exists (2026-07-28 input rounds) are the SDK
          // call path's to answer, not this one's: say so rather than hand back an empty result.
          throw new ProtocolError(INVALID_PARAMS, `Tool ${String(params.name)} asked for input; on a server with the Tasks extension this client answers no input requests (set the server's task policy to "never").`);
        }
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
        // input_required: answering the server's input requests (tasks/update) is not built yet.
        throw new ProtocolError(INVALID_PARAMS, `Task ${taskId} is ${task.status}; this client does not answer a task's input requests.`);
      }
      return parse(schema, await channel(method, params, options));
    },
  };
}

function withoutResultType(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _complete, ...rest } = result;
  return rest;
}

function oldShape(task: WireTask): Record<string, unknown> {
  return { taskId: task.taskId, status: task.status, ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}), ...(task.pollIntervalMs !== undefined ? { pollInterval: task.pollIntervalMs } : {}) };
}

type Channel = (method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeout?: number }) => Promise<Record<string, unknown>>;

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

/** One tap per transport: the answers to our requests, by their (string) ids. */
const taps = new WeakMap<object, Map<string, Pending>>();
let sequence = 0;

/**
 * Requests sent on the client's transport, answered off it. Our ids are strings, so they never
 * meet the client's numbered requests (nor the answer watcher, which follows only those).
 */
function rawChannel(client: AnyClient): Channel {
  const transport = transportOf(client);
  if (!transport || !isV2Client(client)) throw new Error("The Tasks extension needs a connected v2 client.");
  let pending = taps.get(transport);
  if (!pending) {
    const waiting = new Map<string, Pending>();
    pending = waiting;
    taps.set(transport, waiting);
    const heard = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as { id?: unknown }).id;
      const mine = typeof id === "string" ? waiting.get(id) : undefined;
      if (!mine || "method" in message) return heard?.(message, extra);
      waiting.delete(id as string);
      const answer = message as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
      if (answer.error) mine.reject(new ProtocolError(answer.error.code, answer.error.message, answer.error.data));
      else mine.resolve(answer.result ?? {});
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      for (const p of waiting.values()) p.reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
      waiting.clear();
      closed?.();
    };
  }
  const waiting = pending;
  const internals = client as unknown as { _clientInfo?: unknown; _capabilities?: Record<string, unknown> };
  return (method, params, { signal, timeout }) => {
    const id = `tasks-ext-${++sequence}`;
    // The per-request envelope every 2026-07-28 request carries; the client keeps its parts private.
    const capabilities = internals._capabilities ?? {};
    const meta = {
      ...(params._meta as Record<string, unknown> | undefined),
      [`${META}protocolVersion`]: protocolVersionOf(client),
      [`${META}clientInfo`]: internals._clientInfo ?? { name: "langchain-mcp-errors", version: "0" },
      [`${META}clientCapabilities`]: { ...capabilities, extensions: { ...(capabilities.extensions as object | undefined), [TASKS_EXTENSION_ID]: {} } },
    };
    const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } } as unknown as JSONRPCMessage;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const stream = new AbortController();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        waiting.delete(id);
      };
      const onAbort = () => {
        done();
        stream.abort(signal?.reason);
        reject(signal?.reason ?? new SdkError(SdkErrorCode.RequestTimeout, "Request aborted"));
      };
      const timer = timeout === undefined ? undefined : setTimeout(() => {
        done();
        stream.abort();
        reject(new SdkError(SdkErrorCode.RequestTimeout, `Request timed out after ${timeout} ms`, { timeout }));
      }, timeout);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      waiting.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      transport.send(message, { requestSignal: stream.signal } as never).catch((error: unknown) => {
        done();
        reject(error);
      });
    });
  };
}

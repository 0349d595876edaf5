/**
 * What a tool call run as a task is given (tasks.ts `runAsTask`): its params and options, and
 * where a task stands. Apart from tasks.ts, which starts a run, and taskRun.ts, which carries
 * it out, so that both read them and neither imports the other for them.
 */
import type { NormalizeContext } from "../../errors/normalize.js";
import type { Expiry } from "../../policy/TimeoutPolicy.js";
import type { Progress } from "../session/clients.js";
import type { RequestHeaders } from "./rawChannel.js";
import type { TaskInput } from "./tasksExtension.js";

/** Where a task stands. `completed`, `failed` and `cancelled` are final. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export interface TaskCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface RunAsTaskOptions {
  /**
   * The caller's signal: an abort rejects at once with `cancelled` (`closed` when its reason is
   * the toolkit's close) and sends `tasks/cancel` in the background.
   */
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
  /** How long `tasks/cancel` may take after an expiry (which waits for it) or an abort (which does not), ms. @default 2000 */
  cancelTimeoutMs?: number;
  /** What the classifier should know: the tool's and server's names, custom codes. */
  context?: NormalizeContext;
  /**
   * Which of the caller's own timers aborted `signal`, if one did: the call is then
   * `request_timeout`, not `cancelled`. @default undefined (an abort of `signal` is a cancel)
   */
  expiredAfter?: () => Expiry | undefined;
  /**
   * Hears each progress notification of the call: 2026-07-28 only, while its `tools/call` runs
   * (the extension has no progress once the task exists; the 2025 path asks for none).
   * @default undefined (no progress token is sent)
   */
  onProgress?: (progress: Progress) => void;
  /** Restarts `timeoutMs` on each progress notification. @default false */
  resetTimeoutOnProgress?: boolean;
  /**
   * How the server's input requests are answered (2026-07-28; a 2025 server sends its own
   * requests, answered by the client's handlers). @default undefined (each fails the call)
   */
  input?: TaskInput;
  /** HTTP headers for this call's requests alone (2026-07-28). @default undefined */
  headers?: RequestHeaders;
}

/**
 * One call of a toolkit tool, and what the toolkit keeps per tool for it. A call's attempts
 * share one `ToolCall`: its arguments, the task it created, whether it has listed the tools
 * again. One object per call, handed to a pipeline spec that serves every call of the tool,
 * rather than a spec made per call.
 */
import { platform } from "../platform/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { AfterToolCallHook, BeforeToolCall, BeforeToolCallHook, ToolCallContext } from "../config/interception.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { mayResend } from "../errors/safeRepeat.js";
import { callToolOnce, type AttemptRecovery, type ToolTarget } from "../mcp/call/callTool.js";
import type { Progress } from "../mcp/session/clients.js";
import type { TaskCall, TaskPolicy } from "../mcp/tasks/taskCall.js";
import { cancelled, type CallContext } from "../policy/abort.js";
import type { PipelineSpec } from "../policy/pipeline.js";
import type { ResolvedPolicy, ToolIdentity } from "../policy/resolve.js";
import { AttemptScope } from "../policy/TimeoutPolicy.js";
import type { CallContract } from "../mcp/call/CallContract.js";
import { toolRunOf, type ToolRun } from "./runEvents.js";

/** What the toolkit keeps per tool, resolved once when the tool is built. */
export interface ToolRuntime {
  identity: ToolIdentity;
  policy: ResolvedPolicy;
  target: ToolTarget;
  /** The server no longer lists the tool: a call of it fails with `tool_not_found`, unsent. */
  removed?: boolean;
  /** Who the tool's calls are for, as events and errors name it. */
  context: { toolName: string; mcpName: string; serverName: string };
  /** Reports a task's status as a `task` event; one per tool, not per call. */
  onTaskStatus: NonNullable<TaskCall["onStatus"]>;
  /** Is anyone told of this tool's progress (an event listener, a tool run, a span)? Asked per call. */
  hearsProgress: () => boolean;
  /** Reports one progress notification as a `progress` event, and to the call's own run (its graph's writer) where one is given; one per tool, not per call. */
  onProgress: (progress: Progress, run?: ToolRun) => void;
  /** Does a LangGraph run's custom stream hear this tool's progress (the toolkit's `streamProgress`)? */
  streamProgress: boolean;
  /** The toolkit's per-call hooks, when it has any. */
  intercept?: { before?: BeforeToolCallHook; after?: AfterToolCallHook };
  /** The input property that carries the call's idempotency key, removed from the model's schema. */
  keyProperty?: string;
  /** The pipeline spec its plain calls share (no fallback, no tracing), made on first use. */
  spec?: PipelineSpec<CallToolResult, ToolCall>;
}

/** What `beforeToolCall` answered for a call's first send, asked ahead of the call (see `ToolCall.planFirstSend`). */
export interface FirstPlan {
  plan: BeforeToolCall | void;
}

/** The error of a call of a tool its server stopped listing: nothing was sent. */
export function toolGone(identity: ToolIdentity, attempts: number): McpToolError {
  return McpToolError.of("tool_not_found", `Server '${identity.serverName}' no longer offers the tool '${identity.mcpName}'.`, {
    toolName: identity.exposedName,
    serverName: identity.serverName,
    attempts,
  });
}

/**
 * One call of a tool. It is the call's task (a task the call created is asked about again by
 * a later attempt, not re-run) and its recovery from a stale tool list: a server that answers
 * `tool_not_found` may have changed its list since we read it, so the call lists the tools
 * again, once, and if the tool is still there calls it once more (the server refused the first
 * call unsent). If it is gone, the listing has removed it from the toolkit.
 */
export class ToolCall implements TaskCall, AttemptRecovery {
  /** The task this call created and has not seen end (TaskCall). */
  id?: string;
  private refreshed = false;
  /** The attempt under way (a call's attempts run one at a time): a re-send inside it goes out as it did. */
  private current: { n: number; meta: Record<string, string> | undefined } | undefined;
  /**
   * Runs the toolkit's `afterToolCall` on the answer of the send under way (an `isError` one
   * included), before that answer is judged (CallOfAttempt). Set only while a hook is to run.
   */
  afterAnswer?: (result: CallToolResult) => Promise<CallToolResult>;
  /** Did a keyed send of this call fail after it may have run? Then so may the call, whatever a later send says. */
  private mayHaveRun = 0;

  constructor(
    private readonly runtime: ToolRuntime,
    private readonly args: Record<string, unknown>,
    private readonly signal: AbortSignal | undefined,
    private readonly context: CallContext,
    /** What the call promised at its start (its key, its deadline): every send reads it. */
    readonly contract: CallContract,
    /** The LangChain config the tool was invoked with, for the interception hooks. */
    private readonly config?: RunnableConfig,
    /** `beforeToolCall`'s answer for the first send, when it was asked ahead of the call: that send goes with it. */
    private planned?: FirstPlan,
  ) {}

  // TaskCall's fields are read from the tool's runtime, not copied into every call.
  /** The task policy (TaskCall). */
  get policy(): TaskPolicy {
    return this.runtime.policy.task;
  }

  /** The call's timeout, which bounds a whole task (TaskCall). */
  get timeoutMs(): number {
    return this.runtime.policy.timeoutMs;
  }

  get onStatus(): NonNullable<TaskCall["onStatus"]> {
    return this.runtime.onTaskStatus;
  }

  /** The pipeline's attempt for every call of every tool: made once. */
  static readonly attempt = (scope: AttemptScope, n: number, meta: Record<string, string> | undefined, call: ToolCall): Promise<CallToolResult> => call.send(scope, n, meta);

  /** One attempt. A tool its server stopped listing is refused here, unsent. */
  private send(scope: AttemptScope, n: number, meta: Record<string, string> | undefined): Promise<CallToolResult> {
    this.current = { n, meta };
    if (this.runtime.removed) return this.sendIfBack(scope, n, meta);
    return this.sendOnce(scope, n, meta);
  }

  /**
   * Every send of the call passes here: the attempt's first, and a re-send within it (a relisted
   * tool's). Between the toolkit's hooks where it has any: `beforeToolCall` before each send,
   * `afterToolCall` on each answer.
   */
  private sendOnce(scope: AttemptScope, n: number, meta: Record<string, string> | undefined): Promise<CallToolResult> {
    const { runtime, contract } = this;
    // Decided once, on the call's first send (or its first send that has a client, for a server
    // that never connected yet); the send stamps the key into `_meta` as it goes (callTool.ts).
    const key = contract.keyFor(runtime.target.connection);
    const sent = runtime.intercept
      ? this.intercepted(runtime.intercept, scope, n, meta)
      : callToolOnce(runtime.target, this.withKey(this.args), scope, n, this.context, this.signal, meta, this, this.progressHere());
    // A call whose key is decided only once it has a client may turn out keyed too.
    return key !== undefined || contract.keyUndecided ? sent.catch((error: unknown) => this.keyedFailure(error)) : sent;
  }

  /** The arguments as sent: the key in the tool's key property (the model's own value, if it sent one, is replaced). */
  private withKey(args: Record<string, unknown>): Record<string, unknown> {
    const property = this.runtime.keyProperty;
    return property === undefined ? args : { ...args, [property]: this.contract.key };
  }

  /**
   * A keyed send failed: its error carries the key (`data.idempotencyKey`), the fact that makes a
   * repeat safe (safeRepeat.ts), and the key to check with the server. Once a send may have run, so
   * may the call: a later refusal (the key still running, an open circuit) keeps the outcome unknown,
   * so that the model is not told a write that may have happened certainly did not. When more than
   * one send may have run, that is said aloud (`data.keyedSends`, and the text): the key makes the
   * repeats safe only on a server that honours it, and one that ignores it ran the tool that often.
   */
  private keyedFailure(error: unknown): never {
    const key = this.contract.key;
    if (!isMcpToolError(error) || key === undefined) throw error;
    const outcome = error.outcome === "not_sent" && this.mayHaveRun > 0 ? "unknown" : error.outcome;
    if (error.outcome !== "not_sent") this.mayHaveRun++;
    const runs = this.mayHaveRun;
    const facts = runs > 1 ? { idempotencyKey: key, keyedSends: runs } : { idempotencyKey: key };
    const data = error.data;
    const keyed = typeof data === "object" && data !== null && !Array.isArray(data) ? { ...(data as Record<string, unknown>), ...facts } : data === undefined ? facts : { data, ...facts };
    if (runs < 2) throw error.with({ data: keyed, outcome });
    const said = `${error.message}${/[.!?…\]]$/.test(error.message) ? "" : "."} It went out ${runs} times under one idempotency key: a server that honours the key ran it once at most, one that ignores it may have run it ${runs} times.`;
    throw error.with({ data: keyed, outcome, message: said });
  }

  /**
   * An attempt between the toolkit's hooks, both inside the attempt's timeout and signal: the
   * `before` hook may give this attempt other arguments, its own HTTP headers and `_meta`; the
   * `after` hook may give another result. A hook's failure is `interceptor_error`, never retried.
   */
  private async intercepted(hooks: NonNullable<ToolRuntime["intercept"]>, scope: AttemptScope, n: number, meta: Record<string, string> | undefined): Promise<CallToolResult> {
    const { target } = this.runtime;
    const context = this.hookContext(scope, n);
    const planned = this.planned;
    this.planned = undefined;
    let plan: BeforeToolCall | void = planned?.plan;
    if (!planned && hooks.before) plan = await this.hook("beforeToolCall", scope, n, "not_sent", () => hooks.before!(context));
    const args = plan?.args ?? this.args;
    const withMeta = plan?.meta ? { ...plan.meta, ...meta } : meta;
    const after = hooks.after;
    // Heard by the attempt on every answer the server gives, before an `isError` one is judged a failure.
    if (after) this.afterAnswer = async (result) => (await this.hook("afterToolCall", scope, n, "executed", () => after({ ...context, args }, result))) ?? result;
    try {
      return await callToolOnce(target, this.withKey(args), scope, n, this.context, this.signal, withMeta as Record<string, string> | undefined, this, this.progressHere(), plan?.headers);
    } finally {
      this.afterAnswer = undefined;
    }
  }

  /**
   * Asks `beforeToolCall` for the first send ahead of the call, under the caller's own signal and
   * an attempt's timeout, as that send would: a shared read's key holds the headers and `_meta` it
   * gives (sharedCalls.ts). The call that is then sent goes with this answer on its first send,
   * rather than asking again, so the hook still runs once per send.
   */
  async planFirstSend(): Promise<FirstPlan> {
    const before = this.runtime.intercept?.before;
    if (!before) return { plan: undefined };
    const scope = new AttemptScope(this.runtime.policy, this.signal, this.contract.deadline);
    try {
      // Decided as the first send decides it (sendOnce), so the hook is told the key that send carries.
      this.contract.keyFor(this.runtime.target.connection);
      return { plan: await this.hook("beforeToolCall", scope, 1, "not_sent", () => before(this.hookContext(scope, 1))) };
    } finally {
      scope.dispose();
    }
  }

  /** What a hook is told about this send. */
  private hookContext(scope: AttemptScope, n: number): ToolCallContext {
    const { identity } = this.runtime;
    return {
      serverName: identity.serverName,
      toolName: identity.exposedName,
      mcpName: identity.mcpName,
      args: this.args,
      attempt: n,
      ...(this.contract.key !== undefined ? { idempotencyKey: this.contract.key } : {}),
      ...(this.config ? { config: this.config } : {}),
      signal: scope.signal,
    };
  }

  /** Runs a hook under the attempt's signal; what it throws (or its timeout) becomes `interceptor_error`. */
  private async hook<T>(name: string, scope: AttemptScope, n: number, outcome: "not_sent" | "executed", run: () => T | Promise<T>): Promise<T> {
    const here = { toolName: this.context.toolName, ...(this.context.serverName ? { serverName: this.context.serverName } : {}), attempts: n, outcome };
    try {
      return await scope.wait(Promise.resolve().then(run));
    } catch (error) {
      if (isControlFlow(error)) throw error;
      // The attempt ended while the hook ran: its timeout, or the caller's abort.
      if (scope.timedOut) throw McpToolError.of("request_timeout", `The call timed out after ${scope.options.timeoutMs} ms in the toolkit's ${name} hook.`, { ...here, cause: error });
      if (scope.signal.aborted) throw cancelled(this.context, scope.signal.reason, outcome === "executed" ? "unknown" : "not_sent").with({ attempts: n });
      throw McpToolError.of("interceptor_error", `The toolkit's ${name} hook failed: ${error instanceof Error ? error.message : String(error)}`, { ...here, cause: error });
    }
  }

  /**
   * What hears this attempt's progress, bound to the attempt's async context (its tool run, its
   * span): the SDK calls it from wherever the notification was read (a stdio pipe's reader).
   * A LangGraph stream writer in the call's config hears it too, without an async context of
   * its own (see McpTool.run). Undefined when nobody hears it: then no progress token is sent.
   */
  private progressHere(): ((progress: Progress) => void) | undefined {
    const run = toolRunOf(this.config, this.runtime.streamProgress);
    if (!run.writer && !this.runtime.hearsProgress()) return undefined;
    const report = this.runtime.onProgress;
    return platform.bindContext((progress: Progress) => report(progress, run.writer ? run : undefined));
  }

  /**
   * A tool its server stopped listing: the list is read once more (a server without
   * `listChanged` never says the tool is back); if the tool is there again, it is called,
   * otherwise refused, unsent.
   */
  private async sendIfBack(scope: AttemptScope, n: number, meta: Record<string, string> | undefined): Promise<CallToolResult> {
    const { runtime } = this;
    if (!this.refreshed) {
      this.refreshed = true;
      await scope.wait(runtime.target.connection.refreshTools(scope.signal)).catch(() => undefined);
    }
    if (runtime.removed) throw toolGone(runtime.identity, n);
    return this.sendOnce(scope, n, meta);
  }

  handles(error: unknown): boolean {
    return !this.refreshed && isMcpToolError(error) && error.reason === "tool_not_found" && mayResend(error);
  }

  /**
   * The server did not know the tool by the name we called: nothing ran (not_sent). If a fresh
   * list still has it, it is sent once more, through the same hooks as every send.
   */
  async retry(error: unknown, scope: AttemptScope): Promise<CallToolResult> {
    if (!this.handles(error) || !this.current) throw error;
    this.refreshed = true;
    const { connection, mcpName } = this.runtime.target;
    const tools = await connection.refreshTools(scope.signal).catch(() => undefined);
    if (!tools?.some((t) => t.name === mcpName)) throw error;
    return this.sendOnce(scope, this.current.n, this.current.meta);
  }
}

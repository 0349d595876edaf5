import { isBaseMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface, ToolRunnableConfig } from "@langchain/core/tools";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TIMEOUT_MS, type FallbackFunction } from "../config/index.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { Redactor } from "../errors/redactor.js";
import type { ModelTextOptions } from "../errors/text.js";
import { EventHub } from "../eventHub.js";
import type { McpEventListener } from "../events.js";
import { contentText } from "../mcp/call/content.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { breakerEvents, CircuitBreaker, type BreakerOptions } from "../policy/CircuitBreaker.js";
import { fallbackNote, functionFallback } from "../policy/FallbackPolicy.js";
import { runPipeline } from "../policy/pipeline.js";
import { resolveRetry, type RetryOptions } from "../policy/RetryPolicy.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";
import { normalizeForeign } from "./adapterErrors.js";
import { McpTool } from "./McpTool.js";

export interface WrapToolOptions {
  retry?: RetryOptions;
  /** Is repeating this tool harmless? Unknown outcomes are retried only if so. @default false */
  idempotent?: boolean;
  /** Per-attempt timeout, in milliseconds; the inner tool is sent the abort signal. @default 30000 */
  timeoutMs?: number;
  /**
   * The circuit breaker: options for one of its own, or a `CircuitBreaker` shared by several
   * wrapped tools of one server.
   * @default the breaker defaults: { failureThreshold: 5, minimumCalls: 10, window: { calls: 20 }, initialHalfOpenAfterMs: 100, halfOpenAfterMs: 30000, halfOpenJitter: 0.2, enabled: true }
   */
  breaker?: BreakerOptions | CircuitBreaker;
  /** Answers instead when the tool fails transiently after its retries, or its circuit is open. */
  fallback?: FallbackFunction;
  /** `"return"`: failures become error ToolMessages or text; `"throw"`: the McpToolError. @default "return" */
  errorMode?: "return" | "throw";
  /** Redaction and length options for the text the model reads. */
  text?: ModelTextOptions;
  onEvent?: McpEventListener;
  /** A server name for events and errors. */
  serverName?: string;
}

/**
 * Puts any LangChain tool (one from `@langchain/mcp-adapters`, or a hand-written one) under
 * the same pipeline as the toolkit's: error normalization, fallback, circuit breaker, retry
 * and timeout. Its failures become error ToolMessages.
 */
export function wrapTool(tool: StructuredToolInterface, options: WrapToolOptions = {}): McpTool {
  const context = { toolName: tool.name, ...(options.serverName ? { serverName: options.serverName } : {}) };
  const policy = {
    retry: resolveRetry(options.retry),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    resetTimeoutOnProgress: false,
    idempotent: options.idempotent ?? false,
  };
  const redactor = new Redactor(options.text);
  const events = options.onEvent ? new EventHub(options.onEvent, redactor) : undefined;
  const breakerName = options.serverName ?? tool.name;
  const breaker = options.breaker instanceof CircuitBreaker ? options.breaker : new CircuitBreaker(breakerName, options.breaker, events ? breakerEvents(breakerName, (e) => events.emit(e)) : {});

  const attempt = async (args: Record<string, unknown>, config: ToolRunnableConfig | undefined, scope: AttemptScope, n: number): Promise<[unknown, unknown]> => {
    try {
      // Invoked with a tool call so a content_and_artifact tool hands back its artifact too.
      const output = await scope.wait(tool.invoke({ type: "tool_call", id: config?.toolCall?.id ?? `wrapped-${n}`, name: tool.name, args }, { ...config, signal: scope.signal }));
      if (isBaseMessage(output) && ToolMessage.isInstance(output)) {
        if (output.status === "error") throw new Error(typeof output.content === "string" ? output.content : JSON.stringify(output.content));
        return [output.content, output.artifact];
      }
      return [output, undefined];
    } catch (error) {
      // A LangGraph interrupt from the wrapped tool is control flow, not its failure.
      if (isControlFlow(error)) throw error;
      const failure = normalizeForeign(error, { ...context, aborted: config?.signal?.aborted === true, timedOut: scope.timedOut, attempts: n });
      // The wrapped tool's client is closed (a stdio server that died): wrapTool owns no connection
      // to open again, so a repeat would meet the same closed client.
      if (failure.reason === "not_connected" && failure.transient) {
        throw failure.with({ transient: false, message: `${failure.message} The wrapped tool's client is closed, and wrapTool cannot reconnect it.` });
      }
      throw failure;
    }
  };

  const execute = (failed: (thrown: unknown) => never) => (args: Record<string, unknown>, config: ToolRunnableConfig | undefined): Promise<[unknown, unknown]> => {
    const signal = config?.signal;
    return runPipeline<[unknown, unknown]>(
      {
        context,
        policy,
        attempt: (scope, n) => attempt(args, config, scope, n),
        guards: { breaker },
        ...(options.fallback ? { fallback: functionFallback(options.fallback, args, answerWithNote, undefined, policy.timeoutMs) } : {}),
        ...(events ? { events } : {}),
      },
      signal,
    ).then(({ value }) => value, failed);
  };

  return new McpTool({
    name: tool.name,
    description: tool.description,
    schema: tool.schema,
    metadata: { ...((tool as { metadata?: Record<string, unknown> }).metadata ?? {}), ...(options.serverName ? { serverName: options.serverName } : {}), idempotent: policy.idempotent },
    execute,
    errorMode: options.errorMode ?? "return",
    redactor,
    normalize: (error: unknown): McpToolError => normalizeForeign(error, context),
  });
}

/** A fallback function's answer as the wrapped tool's output, saying first that it is one. */
function answerWithNote(answer: string | CallToolResult, error: McpToolError): [unknown, unknown] {
  const text = typeof answer === "string" ? answer : contentText(answer.content ?? []);
  const note = { from: "function", reason: error.reason };
  return [`${fallbackNote(note)}\n${text}`, { fallback: note }];
}

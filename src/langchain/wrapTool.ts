import { isBaseMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface, ToolRunnableConfig } from "@langchain/core/tools";
import type { McpToolError } from "../errors/McpToolError.js";
import type { ModelTextOptions } from "../errors/text.js";
import { safeEmit, type McpEventListener } from "../events.js";
import { resolveRetry, runWithRetry, type RetryOptions } from "../policy/RetryPolicy.js";
import { raceAbort } from "../policy/abort.js";
import { AttemptScope } from "../policy/timeout.js";
import { normalizeForeign } from "./adapterErrors.js";
import { McpTool } from "./McpTool.js";

export interface WrapToolOptions {
  retry?: RetryOptions;
  /** Is repeating this tool harmless? Unknown outcomes are retried only if so. @default false */
  idempotent?: boolean;
  /** Per-attempt timeout, in milliseconds; the inner tool is sent the abort signal. @default 30000 */
  timeoutMs?: number;
  /** `"return"`: failures become error ToolMessages or text; `"throw"`: the McpToolError. @default "return" */
  errorMode?: "return" | "throw";
  /** Redaction and length options for the text the model reads. */
  text?: ModelTextOptions;
  onEvent?: McpEventListener;
  /** A server name for events and errors. */
  serverName?: string;
}

/**
 * Adds our error normalization, retry policy and timeout to any LangChain tool: one from
 * `@langchain/mcp-adapters`, or a hand-written one. Its failures become error ToolMessages.
 */
export function wrapTool(tool: StructuredToolInterface, options: WrapToolOptions = {}): McpTool {
  const retry = resolveRetry(options.retry);
  const context = { toolName: tool.name, ...(options.serverName ? { serverName: options.serverName } : {}) };
  const toError = (error: unknown): McpToolError => normalizeForeign(error, context);

  const execute = async (args: Record<string, unknown>, config: ToolRunnableConfig | undefined): Promise<[unknown, unknown]> => {
    const signal = config?.signal;
    safeEmit(options.onEvent, { type: "call", ...context });
    const attempt = async (n: number) => {
      const scope = new AttemptScope({ timeoutMs: options.timeoutMs ?? 30_000, resetTimeoutOnProgress: false }, signal);
      try {
        // Invoked with a tool call so a content_and_artifact tool hands back its artifact too.
        const output = await raceAbort(
          tool.invoke({ type: "tool_call", id: config?.toolCall?.id ?? `wrapped-${n}`, name: tool.name, args }, { ...config, signal: scope.signal }),
          scope.signal,
        );
        if (isBaseMessage(output) && ToolMessage.isInstance(output)) {
          if (output.status === "error") throw new Error(typeof output.content === "string" ? output.content : JSON.stringify(output.content));
          return [output.content, output.artifact] as [unknown, unknown];
        }
        return [output, undefined] as [unknown, unknown];
      } catch (error) {
        throw normalizeForeign(error, { ...context, aborted: signal?.aborted === true, timedOut: scope.timedOut, attempts: n });
      } finally {
        scope.dispose();
      }
    };
    try {
      return await runWithRetry(attempt, retry, {
        ...(signal ? { signal } : {}),
        idempotent: options.idempotent ?? false,
        normalize: (error) => normalizeForeign(error, { ...context, aborted: signal?.aborted === true }),
        onRetry: (error, n, delayMs) => safeEmit(options.onEvent, { type: "retry", ...context, attempt: n, delayMs, error }),
      });
    } catch (error) {
      const e = toError(error);
      safeEmit(options.onEvent, { type: "error", ...context, attempt: e.attempts, error: e });
      throw e;
    }
  };

  return new McpTool({
    name: tool.name,
    description: tool.description,
    schema: tool.schema,
    metadata: { ...((tool as { metadata?: Record<string, unknown> }).metadata ?? {}), ...(options.serverName ? { serverName: options.serverName } : {}), idempotent: options.idempotent ?? false },
    execute,
    errorMode: options.errorMode ?? "return",
    text: () => options.text ?? {},
    normalize: toError,
  });
}

import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { isControlFlow as isGraphBubbleUp } from "../errors/controlFlow.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { isSafeToRetry } from "../errors/safeRepeat.js";
import { toModelReply, type ModelTextOptions } from "../errors/text.js";
import { normalizeForeign } from "./adapterErrors.js";


export interface McpErrorMiddlewareOptions extends ModelTextOptions {
  /** Only these tools (by name); all tools when omitted. */
  tools?: string[];
}

/**
 * An agent middleware for `createAgent` that turns any tool's thrown error into an error
 * ToolMessage through the ErrorHandler, so one failing tool never ends the run. LangGraph
 * control-flow signals (interrupts, commands) still propagate.
 */
export function mcpErrorMiddleware(options: McpErrorMiddlewareOptions = {}) {
  const { tools, ...text } = options;
  return createMiddleware({
    name: "mcpErrorMiddleware",
    wrapToolCall: async (request, handler) => {
      const toolName = String(request.tool?.name ?? request.toolCall.name);
      if (tools && !tools.includes(toolName)) return handler(request);
      try {
        return await handler(request);
      } catch (thrown) {
        if (isGraphBubbleUp(thrown)) throw thrown;
        const classified = normalizeForeign(thrown, { toolName });
        const error = classified.toolName === undefined ? classified.with({ toolName }) : classified;
        const reply = toModelReply(error, { ...text, toolName });
        return new ToolMessage({
          status: "error",
          content: reply.text,
          artifact: reply.artifact,
          tool_call_id: request.toolCall.id ?? "",
          name: toolName,
        });
      }
    },
  });
}

export interface McpRetryOnOptions {
  /** Also retry failures whose outcome is unknown (the tool may have run). @default false */
  retryUnknownOutcome?: boolean;
}

/**
 * A `retryOn` predicate for LangChain's `toolRetryMiddleware`, with our classification:
 * transient failures that never reached the server are retried; unknown outcomes only
 * when you say every tool it covers is safe to repeat.
 */
export function createMcpRetryOn(options: McpRetryOnOptions = {}): (error: Error) => boolean {
  return (error: Error) => {
    const e = isMcpToolError(error) ? error : normalizeForeign(error);
    // toolRetryMiddleware knows nothing of a tool's idempotency, so only the option can allow unknown outcomes.
    return isSafeToRetry(e, false, options.retryUnknownOutcome === true);
  };
}

/** `createMcpRetryOn()` with the safe default: `toolRetryMiddleware({ retryOn: mcpRetryOn })`. */
export const mcpRetryOn: (error: Error) => boolean = createMcpRetryOn();

import { interrupt } from "@langchain/langgraph";
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import { isControlFlow } from "../errors/controlFlow.js";
import type { InputContext, InputHandler } from "../config/input.js";

/** What a graph's interrupt carries when an MCP server asks for input; resume with the answer. */
export type McpInputInterrupt =
  | { type: "mcp_input"; kind: "elicitation"; serverName: string; toolName?: string; request: ElicitRequest["params"] }
  | { type: "mcp_input"; kind: "sampling"; serverName: string; toolName?: string; request: CreateMessageRequest["params"] };

/**
 * An input handler that pauses the LangGraph run instead of answering: the server's request
 * becomes an `interrupt()` whose value is an {@link McpInputInterrupt}; resuming the graph with
 * `new Command({ resume: answer })` (an `ElicitResult`, or a `CreateMessageResult` for sampling)
 * runs the tool node again, the server asks again, and this time gets the answer.
 *
 * In 2026-07-28 the server asks before it runs anything, so the tool runs once, after the
 * answer. A 2025-era request arrives on its own while the call is in flight, outside the graph's
 * context, where nothing can pause: it is answered `cancel` (the server reports that to the
 * model) unless `outsideGraph` answers it.
 */
export function langGraphInputHandler(options: { outsideGraph?: InputHandler } = {}): InputHandler {
  const pause = <T>(value: McpInputInterrupt, otherwise: () => Promise<T>): Promise<T> => {
    try {
      return Promise.resolve(interrupt<McpInputInterrupt, T>(value));
    } catch (error) {
      // The interrupt itself (or a resume value's absence) is LangGraph's to handle.
      if (isControlFlow(error)) throw error;
      return otherwise();
    }
  };
  const where = (context: InputContext) => ({ serverName: context.serverName, ...(context.toolName ? { toolName: context.toolName } : {}) });
  return {
    elicit: (request, context) =>
      pause<ElicitResult>({ type: "mcp_input", kind: "elicitation", ...where(context), request }, async () => options.outsideGraph?.elicit?.(request, context) ?? { action: "cancel" }),
    sample: (request, context) =>
      pause<CreateMessageResult>({ type: "mcp_input", kind: "sampling", ...where(context), request }, async () => {
        const answer = await options.outsideGraph?.sample?.(request, context);
        if (!answer) throw new Error("A model completion was asked for outside a LangGraph run, and no outsideGraph handler answers it.");
        return answer;
      }),
  };
}

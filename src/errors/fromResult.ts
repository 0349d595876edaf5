import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { NormalizeContext } from "./classify/context.js";
import { namesMissingTool } from "./classify/toolMissing.js";
import { stripMcpPrefix } from "./classify/util.js";
import { contentText } from "./contentText.js";
import { IDEMPOTENCY_RESULT_META } from "./idempotency.js";
import { McpToolError } from "./McpToolError.js";

const INPUT_VALIDATION = /^Input validation error\b|^Invalid arguments for tool\b/;
// A server that needed input (elicitation) from a client that declared no such capability: a
// person must act (v1 servers word it "Client does not support…", v2 "Cannot request input…").
const INPUT_UNAVAILABLE = /^Cannot request input\b|\bdid not declare the required capability\b|^Client does not support (?:form |url )?elicitation\b/i;

/**
 * Classifies a result that answered `isError: true`; `undefined` for any other result.
 *
 * SDK servers turn a thrown McpError into an error result whose text keeps the
 * "MCP error -32602:" prefix, so the text tells invalid arguments and a stale tool list apart.
 */
export function fromResult(result: unknown, context: NormalizeContext = {}): McpToolError | undefined {
  if (!isErrorResult(result)) return undefined;
  const base = {
    toolName: context.toolName,
    serverName: context.serverName,
    attempts: context.attempts,
    data: result.structuredContent ?? undefined,
  };
  const fields = Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined));
  if (!Array.isArray(result.content)) {
    return McpToolError.of("invalid_result", "The server sent a malformed error result: its content is not a list of blocks.", { ...fields, cause: result });
  }
  const text = stripMcpPrefix(contentText(result.content).trim());
  const refused = idempotencyRefusal(result, text, fields);
  if (refused) return refused;
  if (INPUT_VALIDATION.test(text)) return McpToolError.of("invalid_params", text, { ...fields, kind: "domain" });
  if (INPUT_UNAVAILABLE.test(text)) return McpToolError.of("elicitation_required", text, { ...fields, kind: "domain" });
  if (namesMissingTool(text, context)) return McpToolError.of("tool_not_found", text, fields);
  return McpToolError.of("tool_error", text || "The tool reported an error without a message.", fields);
}

/**
 * A refusal of the idempotency helper (`langchain-mcp-errors/server`): it ran nothing for this send.
 * A key whose first call is still running is transient (the retry later reads the first result);
 * a key reused with other arguments is permanent.
 */
function idempotencyRefusal(result: CallToolResult, text: string, fields: Record<string, unknown>): McpToolError | undefined {
  const mark = (result._meta as Record<string, unknown> | undefined)?.[IDEMPOTENCY_RESULT_META] as { status?: unknown; retryAfterMs?: unknown } | undefined;
  if (typeof mark !== "object" || mark === null) return undefined;
  const here = { ...fields, kind: "domain" as const, outcome: "not_sent" as const };
  if (mark.status === "in_progress") {
    const wait = typeof mark.retryAfterMs === "number" && mark.retryAfterMs >= 0 ? { retryAfterMs: mark.retryAfterMs } : {};
    return McpToolError.of("service_unavailable", text || "An earlier send of this call is still running on the server.", { ...here, ...wait });
  }
  if (mark.status === "conflict") return McpToolError.of("invalid_request", text || "The idempotency key was already used with other arguments.", here);
  return undefined;
}

function isErrorResult(result: unknown): result is CallToolResult & { isError: true } {
  return typeof result === "object" && result !== null && (result as { isError?: unknown }).isError === true;
}

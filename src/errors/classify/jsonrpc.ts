import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolErrorFields } from "../McpToolError.js";
import type { Reason } from "../reasons.js";
import type { Classification, NormalizeContext } from "./context.js";
import { connectionClosed, isLocalTimeout, SDK_CONNECTION_CLOSED, SDK_REQUEST_TIMEOUT, timeoutMessage } from "./local.js";
import { retryAfterFromData } from "./retryAfter.js";
import { dropUndefined, isRecord, stripMcpPrefix } from "./util.js";

const ERR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 };
const URL_ELICITATION_REQUIRED = -32042;

const RELAYED_PREFIX = /^MCP error -?\d+:\s*MCP error -?\d+:/;

/** The JSON-RPC code of an SDK McpError, or `undefined` for anything else. */
export function jsonRpcCode(error: unknown): number | undefined {
  if (error instanceof McpError) return error.code;
  // A second copy of the SDK in node_modules fails instanceof; its errors keep the name.
  if (isRecord(error) && error.name === "McpError" && typeof error.code === "number") return error.code;
  return undefined;
}

/**
 * Classifies an error carrying a JSON-RPC code: the SDK's own local timeout, abort and
 * connection close first, then the server's per-server custom codes, rate limits and the
 * standard codes. Any other code is the server's own error.
 */
export function fromJsonRpc(error: unknown, code: number, message: string, ctx: NormalizeContext): Classification {
  const data = (error as { data?: unknown }).data;
  const text = stripMcpPrefix(message);
  const base: Partial<McpToolErrorFields> = dropUndefined({ code, data });
  // The SDK's own errors carry one "MCP error <code>:" prefix. A server built on the SDK sends its
  // McpError's message with the prefix in it, so what it sends arrives with two: never local.
  const local = !RELAYED_PREFIX.test(message);

  if (code === SDK_REQUEST_TIMEOUT && local && isLocalTimeout(data)) {
    return { reason: "request_timeout", message: timeoutMessage(error, text), overrides: base };
  }
  // Without context, the SDK's abort wraps the signal's reason as -32001 with no data.
  if (code === SDK_REQUEST_TIMEOUT && local && data === undefined && /^(AbortError|TimeoutError)\b/.test(text)) {
    const reason: Reason = text.startsWith("TimeoutError") ? "request_timeout" : "cancelled";
    return { reason, message: text, overrides: base };
  }
  if (code === SDK_CONNECTION_CLOSED && local && data === undefined && text === "Connection closed") {
    return connectionClosed(ctx, code);
  }
  const custom = ctx.customCodes?.[code];
  if (custom) {
    return {
      reason: custom.reason,
      message: text,
      overrides: dropUndefined({ ...base, kind: "protocol" as const, transient: custom.transient, retryAfterMs: retryAfterFromData(data) }),
    };
  }
  const retryAfterMs = retryAfterFromData(data);
  if (code === 429 || retryAfterMs !== undefined) {
    return { reason: "rate_limited", message: text, overrides: dropUndefined({ ...base, retryAfterMs }) };
  }
  // The SDK client's own output-schema checks reuse -32600 and -32602 for a result the server did send.
  if (/has an output schema but did not return structured content|Structured content does not match the tool's output schema|Failed to validate structured content/.test(text)) {
    return { reason: "output_schema_mismatch", message: text, overrides: base };
  }
  switch (code) {
    case ERR.parse:
      return { reason: "parse_error", message: text, overrides: base };
    case ERR.invalidRequest:
      return { reason: "invalid_request", message: text, overrides: base };
    case ERR.methodNotFound:
      return { reason: "method_not_found", message: text, overrides: base };
    case ERR.invalidParams:
      return { reason: "invalid_params", message: text, overrides: base };
    case ERR.internal:
      return { reason: "internal_error", message: text, overrides: base };
    case URL_ELICITATION_REQUIRED:
      return { reason: "elicitation_required", message: text, overrides: base };
    default:
      return { reason: "server_error", message: text, overrides: { ...base, kind: "protocol" } };
  }
}

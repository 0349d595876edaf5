import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolErrorFields } from "../McpToolError.js";
import type { Reason } from "../reasons.js";
import type { Classification, NormalizeContext } from "./context.js";
import { connectionClosed, isLocalTimeout, SDK_CONNECTION_CLOSED, SDK_REQUEST_TIMEOUT, timeoutMessage } from "./local.js";
import { fromRegistry, fromUnregistered } from "./registry.js";
import { retryAfterFromData } from "./retryAfter.js";
import { namesMissingTool } from "./toolMissing.js";
import { fromPromptRequest } from "./prompts.js";
import { fromResourceRequest } from "./resources.js";
import { isRecord, stripMcpPrefix } from "./util.js";

const ERR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 };
const URL_ELICITATION_REQUIRED = -32042;
// New in the 2026-07-28 revision.
const HEADER_MISMATCH = -32020;
const MISSING_CLIENT_CAPABILITY = -32021;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const RELAYED_PREFIX = /^MCP error -?\d+:\s*MCP error -?\d+:/;

/**
 * The JSON-RPC code of an error from either SDK line: v1's McpError, v2's ProtocolError (and
 * its subclasses, which keep that name). `undefined` for anything else.
 */
export function jsonRpcCode(error: unknown): number | undefined {
  if (error instanceof McpError) return error.code;
  // A second copy of an SDK in node_modules fails instanceof; its errors keep the name.
  if (isRecord(error) && (error.name === "McpError" || error.name === "ProtocolError") && typeof error.code === "number") return error.code;
  return undefined;
}

/**
 * v1 gives its own local failures (timeout, abort, closed connection) JSON-RPC codes too;
 * v2 raises those as SdkError with string codes, so a v2 ProtocolError always came from the
 * server.
 */
function isV1(error: unknown): boolean {
  return error instanceof McpError || (isRecord(error) && error.name === "McpError");
}

/**
 * Classifies an error carrying a JSON-RPC code: the SDK's own local timeout, abort and
 * connection close first, then the server's per-server custom codes, rate limits and the
 * standard codes. Any other code is the server's own error.
 */
export function fromJsonRpc(error: unknown, code: number, message: string, ctx: NormalizeContext): Classification {
  const data = (error as { data?: unknown }).data;
  const text = stripMcpPrefix(message);
  // An undefined field is no override: errorFor (McpToolError.ts) falls back past it.
  const base: Partial<McpToolErrorFields> = { code, data };
  // v1's own errors carry one "MCP error <code>:" prefix. A server built on v1 sends its
  // McpError's message with the prefix in it, so what it sends arrives with two: never local.
  const local = isV1(error) && !RELAYED_PREFIX.test(message);

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
      overrides: { ...base, kind: "protocol" as const, transient: custom.transient, retryAfterMs: retryAfterFromData(data) },
    };
  }
  // The registered codes (SEP-3304, the Error Registry), read by code and data alone.
  const registered = fromRegistry(code, text, data);
  if (registered) return { ...registered, message: registered.reason === "rate_limited" ? rateLimitText(registered.message, data) : registered.message, overrides: { ...base, ...registered.overrides } };
  const retryAfterMs = retryAfterFromData(data);
  if (code === 429 || retryAfterMs !== undefined) {
    return { reason: "rate_limited", message: rateLimitText(text, data), overrides: { ...base, retryAfterMs } };
  }
  // The SDK client's own output-schema checks reuse -32600 and -32602 for a result the server did send.
  if (/has an output schema but did not return structured content|Structured content does not match the tool's output schema|Failed to validate structured content/.test(text)) {
    return { reason: "output_schema_mismatch", message: text, overrides: base };
  }
  // v1's client refuses a task-required tool locally: we lack the capability the tool needs.
  if (code === ERR.invalidRequest && local && /requires task-based execution/.test(text)) {
    return { reason: "capability_missing", message: text, overrides: base };
  }
  // What a code means on prompts/*: a server without prompts, a prompt it does not have.
  const prompt = fromPromptRequest(code, text, ctx);
  if (prompt) return { ...prompt, overrides: { ...base, kind: "protocol" } };
  // And on resources/*: a server without resources, a URI it does not have (-32602 with data.uri, -32002).
  const resource = fromResourceRequest(code, text, data, ctx);
  if (resource) return { ...resource, overrides: { ...base, kind: "protocol" } };
  const era = fromNewCodes(code, text, data, ctx);
  if (era) return { ...era, overrides: { ...base, kind: "protocol" } };
  switch (code) {
    case ERR.parse:
      return { reason: "parse_error", message: text, overrides: base };
    case ERR.invalidRequest:
      return { reason: "invalid_request", message: text, overrides: base };
    case ERR.methodNotFound:
      // fastmcp answers a tools/call for a tool it does not have with -32601 "Unknown tool: x".
      return { reason: namesMissingTool(text, ctx) ? "tool_not_found" : "method_not_found", message: text, overrides: base };
    case ERR.invalidParams:
      return { reason: "invalid_params", message: text, overrides: base };
    case ERR.internal:
      return { reason: "internal_error", message: text, overrides: base };
    case URL_ELICITATION_REQUIRED:
      return { reason: "elicitation_required", message: text, overrides: base };
    default: {
      // 2026-07-28: an unknown code in -32020..-32099 is not retried; -32000..-32019 mean only
      // what the server's `errorCodes` (read above) say, so they stay a plain server error.
      const unknown = fromUnregistered(code, text, ctx);
      if (unknown) return { ...unknown, overrides: { ...base, ...unknown.overrides } };
      return { reason: "server_error", message: text, overrides: { ...base, kind: "protocol" } };
    }
  }
}

/** The codes 2026-era servers send, and the meaning -32602 took on for an unknown tool. */
function fromNewCodes(code: number, text: string, data: unknown, ctx: NormalizeContext): Omit<Classification, "overrides"> | undefined {
  switch (code) {
    case ERR.invalidParams:
      // A -32602 that names the called tool as unknown or disabled: the tool list is stale (2026-era servers).
      return namesMissingTool(text, ctx) ? { reason: "tool_not_found", message: text } : undefined;
    case HEADER_MISMATCH:
      return { reason: "header_mismatch", message: text };
    case MISSING_CLIENT_CAPABILITY: {
      // Input a person must give (elicitation) is its own reason: the hint differs.
      const required = isRecord(data) && isRecord(data.requiredCapabilities) ? Object.keys(data.requiredCapabilities) : [];
      const elicitation = required.includes("elicitation") || (required.length === 0 && /elicitation/i.test(text));
      return { reason: elicitation ? "elicitation_required" : "capability_missing", message: required.length > 0 ? `${text} (required: ${required.join(", ")})` : text };
    }
    case UNSUPPORTED_PROTOCOL_VERSION:
      return { reason: "protocol_version_unsupported", message: versionMessage(text, data) };
    default:
      return undefined;
  }
}

/** "… (limit 100, 0 remaining)": the quota SEP-3304's `data` may state. */
export function rateLimitText(text: string, data: unknown): string {
  if (!isRecord(data)) return text;
  const parts = [typeof data.limit === "number" ? `limit ${data.limit}` : undefined, typeof data.remaining === "number" ? `${data.remaining} remaining` : undefined].filter(Boolean);
  return parts.length > 0 ? `${text} (${parts.join(", ")})` : text;
}

/** "… (the server supports 2026-07-28; we asked for 2025-11-25)". */
export function versionMessage(text: string, data: unknown): string {
  if (!isRecord(data)) return text;
  const supported = Array.isArray(data.supported) ? data.supported.map(String).join(", ") : undefined;
  const requested = typeof data.requested === "string" ? data.requested : undefined;
  const parts = [supported ? `the server supports ${supported}` : undefined, requested ? `we asked for ${requested}` : undefined].filter(Boolean);
  return parts.length > 0 ? `${text} (${parts.join("; ")})` : text;
}

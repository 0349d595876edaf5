import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import type { McpToolErrorFields } from "../McpToolError.js";
import type { Classification, NormalizeContext } from "./context.js";
import { dropUndefined, isRecord, messageOf } from "./util.js";

const SESSION_BODY = /session not found|unknown session|invalid session|session (is )?(expired|invalid|unknown)|server not initialized|mcp-session-id header is required|no valid session/i;

/** The HTTP status an SDK transport error carries, in its `code` or, for the SSE POST, its text. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return typeof error.code === "number" && error.code > 0 ? error.code : undefined;
  }
  const message = messageOf(error);
  if (/^(Streamable HTTP|SSE) error: /.test(message) && isRecord(error) && typeof error.code === "number" && error.code >= 100) {
    return error.code;
  }
  // The SSE transport's POST failure is a plain Error carrying the status in its text.
  const sse = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(message);
  if (sse) return Number(sse[1]);
  return undefined;
}

/** "Streamable HTTP error: Error POSTing to endpoint: <body>" → "HTTP 503: <body>". */
function httpMessage(status: number, message: string): string {
  const body = message
    .replace(/^(?:Streamable HTTP error|SSE error): /, "")
    .replace(/^(?:Error POSTing to endpoint|Failed to open SSE stream)(?: \(HTTP \d+\))?:\s*/, "")
    .trim();
  return body ? `HTTP ${status}: ${body}` : `HTTP ${status}`;
}

/** Classifies an HTTP status; a 404 (or a 400 whose body says so) is a session the server forgot. */
export function fromHttpStatus(status: number, raw: string, ctx: NormalizeContext): Classification {
  const message = httpMessage(status, raw);
  const overrides: Partial<McpToolErrorFields> = { status, kind: "transport" };
  if (status === 404 && (ctx.hadSession || SESSION_BODY.test(message))) {
    return { reason: "session_expired", message, overrides };
  }
  if (status === 400 && SESSION_BODY.test(message)) return { reason: "session_expired", message, overrides };
  if (status === 401) return { reason: "unauthorized", message, overrides };
  if (status === 403) return { reason: "forbidden", message, overrides };
  if (status === 408) return { reason: "request_timeout", message, overrides: { ...overrides, outcome: "not_sent" } };
  if (status === 429) {
    return { reason: "rate_limited", message, overrides: dropUndefined({ ...overrides, retryAfterMs: ctx.retryAfterMs }) };
  }
  if (status === 502 || status === 503) {
    return { reason: "service_unavailable", message, overrides: dropUndefined({ ...overrides, retryAfterMs: ctx.retryAfterMs }) };
  }
  if (status >= 500) return { reason: "server_error", message, overrides: { ...overrides, outcome: "unknown" } };
  return { reason: "http_error", message, overrides };
}

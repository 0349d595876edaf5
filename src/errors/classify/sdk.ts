import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Classification, NormalizeContext } from "./context.js";
import { fromHttpStatus } from "./http.js";
import { fromSystemError, type SystemErrorInfo } from "./system.js";
import { isRecord, messageOf } from "./util.js";

// Shapes of the SDK's and other libraries' errors that carry neither a JSON-RPC code nor an HTTP
// status: recognised by class, by name or, as a last resort, by a message each test pins.

/** An SSE transport failure without an HTTP status (one with a status is an HTTP error). */
export function isSseError(error: unknown): boolean {
  return error instanceof SseError || /^SSE error: /.test(messageOf(error));
}

// Node writes "<syscall> <code>" ("connect ETIMEDOUT 10.0.0.1:443"): the syscall says whether the request was written.
const SYSTEM_CODE_IN_TEXT = /\b(?:(connect|read|write|getaddrinfo) )?(ECONNREFUSED|ECONNRESET|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|UND_ERR_[A-Z_]+)\b/;
// Socket errors whose code the `eventsource` package's flattened text drops: undici's SocketError
// ("other side closed") and Node's TLS socket closed during its handshake (ECONNRESET).
const SOCKET_CLOSED_IN_TEXT = /\bfetch failed: (other side closed|Client network socket disconnected before secure TLS connection was established)/;

/**
 * An SseError without an HTTP status: the `eventsource` package flattens the fetch failure into
 * its message ("SSE error: TypeError: fetch failed: connect ECONNREFUSED …") and keeps no cause,
 * and reports a dropped stream it is about to reconnect as "SSE error: undefined".
 */
export function fromSseFailure(message: string, ctx: NormalizeContext): Classification {
  const found = SYSTEM_CODE_IN_TEXT.exec(message);
  const host = /getaddrinfo \w+ (\S+)/.exec(message)?.[1];
  const closed = SOCKET_CLOSED_IN_TEXT.exec(message)?.[1];
  const sys: SystemErrorInfo | undefined = found
    ? { code: found[2]!, ...(found[1] ? { syscall: found[1] } : {}), ...(host ? { hostname: host } : {}) }
    : closed
      ? { code: closed === "other side closed" ? "UND_ERR_SOCKET" : "ECONNRESET", detail: closed }
      : undefined;
  // The same words the streamable HTTP transport's error gets, for the same failure.
  const fromSys = sys ? fromSystemError(sys, closed ? "fetch failed" : message, ctx) : undefined;
  return fromSys ?? { reason: "stream_error", message };
}

/**
 * The SDK's UnauthorizedError (v1 by class, v2 by its brand), v2's InsufficientScopeError, and
 * OAuth errors by their `errorCode`; `undefined` for anything else. Where the HTTP layer saw the
 * 401 or 403 behind it, its status and WWW-Authenticate tell more than the error's text.
 */
export function fromOAuth(error: unknown, message: string, ctx: NormalizeContext = {}): Classification | undefined {
  const brand = mcpBrand(error);
  const status = ctx.response?.status;
  if (error instanceof UnauthorizedError || brand === "mcp.UnauthorizedError" || brand === "mcp.InsufficientScopeError") {
    if (status === 401 || status === 403) return fromHttpStatus(status, message, ctx);
    return { reason: brand === "mcp.InsufficientScopeError" ? "forbidden" : "unauthorized", message };
  }
  const oauth = oauthErrorCode(error);
  if (oauth === "invalid_token") return { reason: "unauthorized", message };
  if (oauth === "insufficient_scope") return { reason: "forbidden", message };
  return undefined;
}

/** The v2 SDK marks its error classes with a static `mcpBrand` (its `instanceof` reads it too). */
function mcpBrand(error: unknown): string | undefined {
  const brand = isRecord(error) ? (error as { constructor?: { mcpBrand?: unknown } }).constructor?.mcpBrand : undefined;
  return typeof brand === "string" ? brand : undefined;
}

function oauthErrorCode(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  const ctor = (error as { constructor?: { errorCode?: unknown } }).constructor;
  const code = (error as { errorCode?: unknown }).errorCode ?? ctor?.errorCode;
  return typeof code === "string" ? code : undefined;
}

/**
 * The rest the SDK and its peers throw: named AbortError and TimeoutError, "Not connected",
 * "Server does not support …", a ZodError from result validation and the streamable HTTP
 * transport's given-up reconnects. `undefined` when none of them fits.
 */
export function fromSdkShape(error: unknown, message: string): Classification | undefined {
  if (isNamed(error, "AbortError")) return { reason: "cancelled", message: "The call was cancelled." };
  if (isNamed(error, "TimeoutError")) return { reason: "request_timeout", message };
  if (message === "Not connected") return { reason: "not_connected", message: "Not connected to the server." };
  if (/^Server does not support /.test(message)) return { reason: "capability_missing", message };
  if (isZodError(error)) return { reason: "invalid_result", message: zodMessage(error) };
  if (/Maximum reconnection attempts|SSE stream disconnected|Failed to reconnect SSE stream/.test(message)) {
    return { reason: "stream_error", message };
  }
  return undefined;
}

function isNamed(error: unknown, name: string): boolean {
  return isRecord(error) && error.name === name;
}

type ZodLikeError = { issues: Array<{ path?: unknown[]; message?: string }> };

function isZodError(error: unknown): error is ZodLikeError {
  return isRecord(error) && Array.isArray(error.issues) && (error.name === "ZodError" || error.name === "$ZodError");
}

function zodMessage(error: ZodLikeError): string {
  const issues = error.issues
    .slice(0, 5)
    .map((i) => `${(i.path ?? []).join(".") || "(root)"}: ${i.message ?? "invalid"}`)
    .join("; ");
  return `The server's result does not match the MCP result schema: ${issues}`;
}

import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { McpToolError, type McpToolErrorFields } from "./McpToolError.js";
import type { Reason } from "./reasons.js";

/** How a server-defined JSON-RPC code is to be read. */
export interface CustomCodeRule {
  reason: Reason;
  /** Overrides the reason's default verdict. */
  transient?: boolean;
}

/** A per-server table of custom JSON-RPC codes, for example `{ -32003: { reason: "rate_limited" } }`. */
export type CustomCodeTable = Readonly<Record<number, CustomCodeRule>>;

/** What the caller knows better than the error: context beats message matching. */
export interface NormalizeContext {
  toolName?: string;
  serverName?: string;
  /** Our own per-call timer fired. */
  timedOut?: boolean;
  /** The caller's AbortSignal aborted. */
  aborted?: boolean;
  /** The transport closed while the call was in flight. */
  transportClosed?: boolean;
  /** The connection held a session id when the request was sent (a 404 then means expiry). */
  hadSession?: boolean;
  /** The request never left this process (it failed before being written). */
  notSent?: boolean;
  /** A Retry-After read from the HTTP response, in milliseconds. */
  retryAfterMs?: number;
  /** Detail about the transport's end: exit code, signal, stderr tail. */
  exit?: ExitInfo;
  /** Server-defined codes and how to read them. */
  customCodes?: CustomCodeTable;
  attempts?: number;
}

/** How a stdio server process ended. */
export interface ExitInfo {
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
  /** The transport's own error just before it closed (e.g. an oversized stdio line). */
  transportError?: string;
}

const ERR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 };
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
const URL_ELICITATION_REQUIRED = -32042;

/**
 * Turns any failure of an MCP tool call into one classified {@link McpToolError}.
 * An `McpToolError` passes through unchanged.
 */
export function normalize(error: unknown, context: NormalizeContext = {}): McpToolError {
  if (error instanceof McpToolError) return error;
  const fields = classify(error, context);
  const base = {
    toolName: context.toolName,
    serverName: context.serverName,
    attempts: context.attempts,
    cause: error,
  };
  return McpToolError.of(fields.reason, fields.message, dropUndefined({ ...base, ...fields.overrides }));
}

interface Classification {
  reason: Reason;
  message: string;
  overrides?: Partial<McpToolErrorFields>;
}

function classify(error: unknown, ctx: NormalizeContext): Classification {
  const message = messageOf(error);
  const code = jsonRpcCode(error);
  // Context first: the SDK reports an abort, our timeout and a server's -32001 with one code.
  if (ctx.aborted) return { reason: "cancelled", message: "The call was cancelled by the caller." };
  if (ctx.timedOut) return { reason: "request_timeout", message: timeoutMessage(error, message) };
  if (ctx.transportClosed) return closed(ctx, code, message);

  if (code !== undefined) return fromJsonRpc(error, code, message, ctx);

  const http = httpStatus(error);
  if (http !== undefined) return fromHttpStatus(http, message, ctx);
  if (isSseError(error)) return fromSseFailure(message, ctx);

  if (error instanceof UnauthorizedError) return { reason: "unauthorized", message };
  const oauth = oauthErrorCode(error);
  if (oauth === "invalid_token") return { reason: "unauthorized", message };
  if (oauth === "insufficient_scope") return { reason: "forbidden", message };

  const sys = systemError(error);
  if (sys) {
    const fromSys = fromSystemError(sys, message, ctx);
    if (fromSys) return fromSys;
  }

  if (isNamed(error, "AbortError")) return { reason: "cancelled", message: "The call was cancelled." };
  if (isNamed(error, "TimeoutError")) return { reason: "request_timeout", message };
  if (message === "Not connected") return { reason: "not_connected", message: "Not connected to the server." };
  if (/^Server does not support /.test(message)) return { reason: "capability_missing", message };
  if (isZodError(error)) return { reason: "invalid_result", message: zodMessage(error) };
  if (/Maximum reconnection attempts|SSE stream disconnected|Failed to reconnect SSE stream/.test(message)) {
    return { reason: "stream_error", message };
  }
  return { reason: "unknown", message: message || "An unknown error occurred." };
}

function closed(ctx: NormalizeContext, code: number | undefined, message: string): Classification {
  const parts = ["The connection to the server closed during the call."];
  const exit = ctx.exit;
  if (exit?.transportError) parts.push(`The transport failed first: ${exit.transportError}.`);
  if (exit?.exitCode !== undefined && exit.exitCode !== null) parts.push(`The server process exited with code ${exit.exitCode}.`);
  else if (exit?.signal) parts.push(`The server process was killed by ${exit.signal}.`);
  if (exit?.stderrTail) parts.push(`Last stderr: ${exit.stderrTail}`);
  const data = exit ? dropUndefined({ exitCode: exit.exitCode, signal: exit.signal, stderr: exit.stderrTail, transportError: exit.transportError }) : undefined;
  return {
    reason: "connection_closed",
    message: parts.join(" "),
    overrides: dropUndefined({ code: code ?? CONNECTION_CLOSED, data, outcome: ctx.notSent ? ("not_sent" as const) : undefined }),
  };
}

function fromJsonRpc(error: unknown, code: number, message: string, ctx: NormalizeContext): Classification {
  const data = (error as { data?: unknown }).data;
  const text = stripMcpPrefix(message);
  const base: Partial<McpToolErrorFields> = dropUndefined({ code, data });
  // The SDK's own errors carry one "MCP error <code>:" prefix. A server built on the SDK sends its
  // McpError's message with the prefix in it, so what it sends arrives with two: never local.
  const local = !RELAYED_PREFIX.test(message);

  if (code === REQUEST_TIMEOUT && local && isLocalTimeout(data)) {
    return { reason: "request_timeout", message: timeoutMessage(error, text), overrides: base };
  }
  // Without context, the SDK's abort wraps the signal's reason as -32001 with no data.
  if (code === REQUEST_TIMEOUT && local && data === undefined && /^(AbortError|TimeoutError)\b/.test(text)) {
    const reason: Reason = text.startsWith("TimeoutError") ? "request_timeout" : "cancelled";
    return { reason, message: text, overrides: base };
  }
  if (code === CONNECTION_CLOSED && local && data === undefined && text === "Connection closed") {
    return closed(ctx, code, message);
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
      return { reason: "server_error", message: text, overrides: { ...base, kind: "protocol", outcome: "executed" } };
  }
}

function isLocalTimeout(data: unknown): boolean {
  return isRecord(data) && (typeof data.timeout === "number" || typeof data.maxTotalTimeout === "number");
}

function timeoutMessage(error: unknown, fallback: string): string {
  const data = (error as { data?: unknown } | undefined)?.data;
  if (isRecord(data) && typeof data.maxTotalTimeout === "number") {
    return `The call exceeded its maximum total time of ${data.maxTotalTimeout} ms.`;
  }
  if (isRecord(data) && typeof data.timeout === "number") return `The call timed out after ${data.timeout} ms.`;
  return fallback ? stripMcpPrefix(fallback) : "The call timed out.";
}

const RELAYED_PREFIX = /^MCP error -?\d+:\s*MCP error -?\d+:/;

const SESSION_BODY = /session not found|unknown session|invalid session|session (is )?(expired|invalid|unknown)|server not initialized|mcp-session-id header is required|no valid session/i;

/** "Streamable HTTP error: Error POSTing to endpoint: <body>" → "HTTP 503: <body>". */
function httpMessage(status: number, message: string): string {
  const body = message
    .replace(/^(?:Streamable HTTP error|SSE error): /, "")
    .replace(/^(?:Error POSTing to endpoint|Failed to open SSE stream)(?: \(HTTP \d+\))?:\s*/, "")
    .trim();
  return body ? `HTTP ${status}: ${body}` : `HTTP ${status}`;
}

function fromHttpStatus(status: number, raw: string, ctx: NormalizeContext): Classification {
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

interface SystemErrorInfo {
  code: string;
  syscall?: string;
  path?: string;
  /** The system error's own message, e.g. undici's "other side closed". */
  detail?: string;
}

function fromSystemError(sys: SystemErrorInfo, message: string, ctx: NormalizeContext): Classification | undefined {
  switch (sys.code) {
    case "ENOENT":
    case "EACCES":
      if (!sys.syscall?.startsWith("spawn")) return undefined;
      return {
        reason: "spawn_failed",
        message: `Could not start the server command '${sys.path ?? sys.syscall.slice(6)}': ${sys.code === "ENOENT" ? "command not found" : "permission denied"}.`,
        overrides: { data: { errno: sys.code, command: sys.path } },
      };
    case "ECONNREFUSED":
      return { reason: "connection_refused", message: `Connection refused${where(message) || (sys.path ? ` by ${sys.path}` : "")}.` };
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return {
        reason: "connection_reset",
        // "fetch failed" says nothing; the socket error underneath says what happened.
        message: /^fetch failed$/i.test(message) ? `The connection was lost before the server answered (${sys.code}${sys.detail ? `: ${sys.detail}` : ""}).` : message,
        overrides: ctx.notSent ? { outcome: "not_sent" } : {},
      };
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return { reason: "network_timeout", message };
    case "EAI_AGAIN":
      return { reason: "dns_failure", message };
    case "ENOTFOUND":
      return { reason: "dns_failure", message, overrides: { transient: false } };
    default:
      return undefined;
  }
}

function where(message: string): string {
  const m = /(\d{1,3}(?:\.\d{1,3}){3}:\d+|\[[0-9a-f:]+\]:\d+|localhost:\d+)/i.exec(message);
  return m ? ` by ${m[1]}` : "";
}

function isSseError(error: unknown): boolean {
  return error instanceof SseError || /^SSE error: /.test(messageOf(error));
}

const SYSTEM_CODE_IN_TEXT = /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|UND_ERR_[A-Z_]+)\b/;

/**
 * An SseError without an HTTP status: the `eventsource` package flattens the fetch failure into
 * its message ("SSE error: TypeError: fetch failed: connect ECONNREFUSED …") and keeps no cause,
 * and reports a dropped stream it is about to reconnect as "SSE error: undefined".
 */
function fromSseFailure(message: string, ctx: NormalizeContext): Classification {
  const code = SYSTEM_CODE_IN_TEXT.exec(message)?.[1];
  const fromSys = code ? fromSystemError({ code }, message, ctx) : undefined;
  return fromSys ?? { reason: "stream_error", message };
}

/** Walks `cause` chains and AggregateErrors for the first Node system error code. */
function systemError(error: unknown): SystemErrorInfo | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!isRecord(e) || seen.has(e)) continue;
    seen.add(e);
    // getaddrinfo's codes (EAI_AGAIN, EAI_FAIL) carry an underscore; Node's own ERR_* codes are not system errors.
    if (typeof e.code === "string" && /^(E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+)$/.test(e.code)) {
      const info: SystemErrorInfo = { code: e.code };
      if (typeof e.syscall === "string") info.syscall = e.syscall;
      if (typeof e.path === "string") info.path = e.path;
      if (typeof e.message === "string" && e.message) info.detail = e.message;
      if (info.code === "ECONNREFUSED" && typeof e.address === "string") info.path = `${e.address}:${String(e.port)}`;
      return info;
    }
    if (e.cause !== undefined) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return undefined;
}

function jsonRpcCode(error: unknown): number | undefined {
  if (error instanceof McpError) return error.code;
  // A second copy of the SDK in node_modules fails instanceof; its errors keep the name.
  if (isRecord(error) && error.name === "McpError" && typeof error.code === "number") return error.code;
  return undefined;
}

function httpStatus(error: unknown): number | undefined {
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

function oauthErrorCode(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  const ctor = (error as { constructor?: { errorCode?: unknown } }).constructor;
  const code = (error as { errorCode?: unknown }).errorCode ?? ctor?.errorCode;
  return typeof code === "string" ? code : undefined;
}

/** `data.retryAfterMs` is milliseconds; `data.retryAfter` is seconds, as in HTTP's Retry-After. */
export function retryAfterFromData(data: unknown): number | undefined {
  if (!isRecord(data)) return undefined;
  if (typeof data.retryAfterMs === "number" && data.retryAfterMs >= 0) return data.retryAfterMs;
  if (typeof data.retryAfter === "number" && data.retryAfter >= 0) return data.retryAfter * 1000;
  if (typeof data.retryAfter === "string") return parseRetryAfter(data.retryAfter);
  return undefined;
}

/** Reads an HTTP Retry-After value (delta-seconds or an HTTP date) as milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isZodError(error: unknown): error is { issues: Array<{ path?: unknown[]; message?: string }> } {
  return isRecord(error) && Array.isArray(error.issues) && (error.name === "ZodError" || error.name === "$ZodError");
}

function zodMessage(error: { issues: Array<{ path?: unknown[]; message?: string }> }): string {
  const issues = error.issues
    .slice(0, 5)
    .map((i) => `${(i.path ?? []).join(".") || "(root)"}: ${i.message ?? "invalid"}`)
    .join("; ");
  return `The server's result does not match the MCP result schema: ${issues}`;
}

const MCP_PREFIX = /^(?:MCP error -?\d+:\s*)+/;

/** Removes the SDK's "MCP error -32602:" prefixes, which servers built on the SDK repeat. */
export function stripMcpPrefix(message: string): string {
  return message.replace(MCP_PREFIX, "");
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function isNamed(error: unknown, name: string): boolean {
  return isRecord(error) && error.name === name;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function dropUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

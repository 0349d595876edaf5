import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import type { McpToolErrorFields } from "../McpToolError.js";
import type { Reason } from "../reasons.js";
import type { Classification, HttpResponseFacts, NormalizeContext } from "./context.js";
import { looksLikeHtml, pageSummary } from "./html.js";
import { fromJsonRpc, rateLimitText } from "./jsonrpc.js";
import { retryAfterFromData } from "./retryAfter.js";
import { dropUndefined, isRecord, messageOf } from "./util.js";

const SESSION_BODY = /session not found|unknown session|invalid session|session (is )?(expired|invalid|unknown)|server not initialized|mcp-session-id header is required|no valid session/i;

/**
 * Envoy's 503 when its upstream failed. "connection failure", "connection timeout" and "overflow"
 * happen before the request is forwarded; any other reset reason ("connection termination",
 * "remote reset") may come after the upstream received it, so it counts as a 502 does.
 */
const ENVOY_RESET = /upstream connect error or disconnect\/reset before headers/i;
const ENVOY_NOT_FORWARDED = /reset reason: (?:connection failure|connection timeout|overflow)\b/i;

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

/** "Streamable HTTP error: Error POSTing to endpoint: <body>" → "<body>", an HTML page reduced to its text. */
function bodyOf(message: string): string {
  const body = message
    .replace(/^(?:Streamable HTTP error|SSE error): /, "")
    .replace(/^(?:Error POSTing to endpoint|Failed to open SSE stream)(?: \(HTTP \d+\))?:\s*/, "")
    .trim();
  if (looksLikeHtml(body)) return pageSummary(body);
  // A page after a sentence of the SDK's own ("Version negotiation failed: the server answered
  // the probe with HTTP 500: <!DOCTYPE html>…", the v2 client's connect): the sentence stays.
  const page = body.search(/<(?:!doctype html|html)\b/i);
  return page > 0 ? `${body.slice(0, page).trimEnd()} ${pageSummary(body.slice(page))}` : body;
}

/** Reads `error="…"`, `error_description="…"` and `scope="…"` from a WWW-Authenticate header. */
export function authParams(header: string | undefined): { error?: string; description?: string; scope?: string } {
  if (!header) return {};
  const param = (name: string) => new RegExp(`\\b${name}="([^"]*)"|\\b${name}=([^\\s,]+)`, "i").exec(header)?.slice(1).find((v) => v !== undefined);
  return dropUndefined({ error: param("error"), description: param("error_description"), scope: param("scope") });
}

/** What the server's WWW-Authenticate said, as a sentence; the scope is named for insufficient_scope. */
function authDetail(status: number, facts: HttpResponseFacts | undefined): string {
  const { error, description, scope } = authParams(facts?.wwwAuthenticate);
  // A first request without a token: the challenge names only what to ask for.
  if (!error && !description) return scope && status === 401 ? ` The server asks for authorization with scope '${scope}'.` : "";
  // The description first: "invalid_token: <text>" would read to the redactor as a token's value.
  const parts = [description ? `The server says: ${description}${error ? ` (${error})` : ""}.` : `The server says ${error}.`];
  if (scope && (error === "insufficient_scope" || status === 403)) parts.push(`The token needs scope '${scope}'.`);
  return ` ${parts.join(" ")}`;
}

/** Classifies an HTTP status; a 404 (or a 400 whose body says so) is a session the server forgot. */
export function fromHttpStatus(status: number, raw: string, ctx: NormalizeContext): Classification {
  const body = bodyOf(raw);
  const facts = ctx.response;
  const retryAfterMs = facts?.retryAfterMs ?? ctx.retryAfterMs;
  const message = body ? `HTTP ${status}: ${body}` : `HTTP ${status}`;
  const overrides: Partial<McpToolErrorFields> = { status, kind: "transport" };
  const as = (reason: Reason, extra: Partial<McpToolErrorFields> = {}, text = message): Classification => ({
    reason,
    message: text,
    overrides: dropUndefined({ ...overrides, ...extra }),
  });
  if (status >= 200 && status < 300) return unexpectedResponse(ctx, raw);
  if (status === 404 && (ctx.hadSession || SESSION_BODY.test(body))) return as("session_expired");
  if (status === 400 && SESSION_BODY.test(body)) return as("session_expired");
  // A JSON-RPC error body governs over the status it came with (a modern-only endpoint refusing a
  // 2025 initialize with 400 and -32022; a 503 whose body is -32024 with `notProcessed`): the
  // server spoke MCP, and its error is the real cause. Outside a 400, a body we cannot read
  // (a plain server error) says less than the status, which then decides. 401 and 403 start an
  // authorization flow whatever the body says, and a 429 reads its body below.
  const rpc = jsonRpcErrorIn(body);
  if (rpc && status !== 401 && status !== 403 && status !== 429) {
    const inner = fromJsonRpc(rpc, rpc.code, rpc.message, ctx);
    const retryAfter = inner.overrides?.retryAfterMs ?? (inner.reason === "rate_limited" || inner.reason === "service_unavailable" ? retryAfterMs : undefined);
    if (status === 400 || inner.reason !== "server_error") return { ...inner, overrides: dropUndefined({ ...inner.overrides, status, retryAfterMs: retryAfter }) };
  }
  if (status === 401) return as("unauthorized", {}, message + authDetail(status, facts));
  if (status === 403) return as("forbidden", {}, message + authDetail(status, facts));
  if (status === 408) return as("request_timeout", { outcome: "not_sent" });
  // A server that ended the request before answering: the v2 SDK's createMcpHandler answers 499,
  // empty, for every request in flight when it closes (a graceful stop). The tool had started.
  if (status === 499) return as("connection_closed", {}, body ? message : "HTTP 499: the server ended the request before answering (it was stopping); the tool may have run.");
  if (status === 429) {
    // SEP-3304: a JSON-RPC -32023 in the body states the wait in ms, and it wins over Retry-After
    // (RL-9); one the body read above did not settle (no `retryAfterMs`) leaves the 429 to decide.
    const stated = rpc ? retryAfterFromData(rpc.data) : undefined;
    const text = rpc ? `HTTP 429: ${rateLimitText(rpc.message, rpc.data)}` : message;
    return as("rate_limited", { retryAfterMs: stated ?? retryAfterMs, code: rpc?.code, data: rpc?.data }, text);
  }
  if (status === 503 && ENVOY_RESET.test(body) && !ENVOY_NOT_FORWARDED.test(body)) return as("server_error", { outcome: "unknown" });
  // The proxy could not reach the server: 503, and Cloudflare's 521 (refused), 522 (timed out), 523 (unreachable).
  if (status === 503 || status === 521 || status === 522 || status === 523) return as("service_unavailable", { retryAfterMs });
  // Permanent server answers: not implemented, HTTP version not supported, network authentication (a captive portal).
  if (status === 501 || status === 505 || status === 511) return as("http_error");
  // 500, 502 and 504 (and Cloudflare's 520 and 524): a proxy may have lost its upstream after it ran the tool.
  if (status >= 500) return as("server_error", { outcome: "unknown", retryAfterMs });
  // The answers of a wrong endpoint: the URL and what to check in it, as doctor says.
  const hint = ENDPOINT_HINTS[status];
  if (hint) return as("http_error", {}, `HTTP ${status}${ctx.url ? ` from ${ctx.url}` : ""}${body ? `: ${body}` : ""}. ${hint}`);
  return as("http_error");
}

/** What a 404, 405 or 400 (one that is no session's) says about the endpoint. */
export const ENDPOINT_HINTS: Readonly<Record<number, string>> = {
  404: "Check the URL's path (often /mcp, or /sse for the sse transport).",
  405: "The endpoint does not take this method: check the transport (`http` or `sse`) and the URL's path.",
  400: "Check the URL's path and the transport (`http` or `sse`).",
};

const UNEXPECTED: Record<NonNullable<HttpResponseFacts["unexpected"]>, string> = {
  html: "an HTML page",
  not_json_rpc: "JSON that is not JSON-RPC",
  empty: "an empty body",
  content_type: "a body that is neither JSON nor an event stream",
};

/**
 * The endpoint answered, but not as an MCP server: a login page, a proxy's page, some other API.
 * The request may have reached a server, so the outcome is unknown; a retry will not help.
 */
export function unexpectedResponse(ctx: NormalizeContext, raw: string): Classification {
  const facts = ctx.response ?? {};
  const contentType = facts.contentType ?? /Unexpected content type: (.*)$/.exec(raw)?.[1];
  const what = facts.unexpected ? UNEXPECTED[facts.unexpected] : contentType ? `content type ${contentType}` : "something else";
  const url = facts.url ?? ctx.url;
  const status = facts.status;
  const head = `The endpoint${url ? ` ${url}` : ""} answered${status ? ` HTTP ${status}` : ""}${contentType ? ` (${contentType})` : ""} with ${what}, not an MCP response`;
  const excerpt = facts.body ? pageSummary(facts.body, 200) : "";
  return {
    reason: "unexpected_response",
    message: `${head}${excerpt ? `: "${excerpt}"` : ""}. Check the server URL, or the proxy in front of it.`,
    overrides: dropUndefined({ kind: "transport" as const, status }),
  };
}

/** The SDK's own "Unexpected content type" (a StreamableHTTPError with code -1), with or without our facts. */
export function isUnexpectedContentType(error: unknown): boolean {
  return error instanceof StreamableHTTPError ? error.code === -1 : /^Streamable HTTP error: Unexpected content type/.test(messageOf(error));
}

/** `{ jsonrpc, error: { code, message, data } }` in a response body, as an error-shaped value. */
export function jsonRpcErrorIn(text: string): { name: string; code: number; message: string; data?: unknown } | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const body = JSON.parse(text) as unknown;
    const e = isRecord(body) && isRecord(body.error) ? body.error : undefined;
    if (!e || typeof e.code !== "number" || typeof e.message !== "string") return undefined;
    return { name: "ProtocolError", code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) };
  } catch {
    return undefined;
  }
}

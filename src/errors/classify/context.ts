import type { McpToolErrorFields } from "../McpToolError.js";
import type { Reason } from "../reasons.js";

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
  /** The tool's name on the server, where it differs from `toolName` (a prefixed name): an error text naming it as unknown means the tool list is stale. */
  mcpName?: string;
  serverName?: string;
  /** Our own per-call timer fired. */
  timedOut?: boolean;
  /** Which of our timers fired (`timeout`, `maxTotalTimeout` or the call's `deadline`, ms), when `timedOut`. */
  timedOutAfter?: { timeout: number } | { maxTotalTimeout: number } | { deadline: number };
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
  /** The server's URL (HTTP transports), named in messages about the endpoint. */
  url?: string;
  /** What the HTTP layer saw of this request's own response; the SDK's errors carry none of it. */
  response?: HttpResponseFacts;
  /** Detail about the transport's end: exit code, signal, stderr tail. */
  exit?: ExitInfo;
  /**
   * The protocol era the call went over: on `modern` (2026-07-28) an unknown code in
   * -32020..-32099 is not retried. Unset, the 2025 reading applies.
   */
  era?: "modern" | "legacy";
  /** Server-defined codes and how to read them. */
  customCodes?: CustomCodeTable;
  /**
   * The MCP method the request was, where it was not `tools/call` (`prompts/get`, `resources/read`):
   * the same code means another thing there (-32601 on `prompts/*` is a server without prompts).
   */
  method?: string;
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

/**
 * What the HTTP layer saw of the response to one request. Recorded per request (by its JSON-RPC
 * id), so one response's Retry-After or WWW-Authenticate never explains another request's failure.
 */
export interface HttpResponseFacts {
  url?: string;
  status?: number;
  contentType?: string;
  /** The Retry-After header, in milliseconds from when the response arrived. */
  retryAfterMs?: number;
  /** The WWW-Authenticate header of a 401 or 403. */
  wwwAuthenticate?: string;
  /** The start of a body that was not an MCP answer (a few KB at most). */
  body?: string;
  /** Set when the endpoint answered, but not as an MCP server does. */
  unexpected?: "html" | "not_json_rpc" | "empty" | "content_type";
}

/** What a classifier decides: the reason, the message, and any field that differs from the reason's defaults. */
export interface Classification {
  reason: Reason;
  message: string;
  /** Fields that differ from the reason's defaults; one left undefined overrides nothing. */
  overrides?: Partial<McpToolErrorFields>;
}

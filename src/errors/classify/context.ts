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

/** What a classifier decides: the reason, the message, and any field that differs from the reason's defaults. */
export interface Classification {
  reason: Reason;
  message: string;
  overrides?: Partial<McpToolErrorFields>;
}

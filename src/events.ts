import type { McpToolError } from "./errors/McpToolError.js";
import type { Reason } from "./errors/reasons.js";

/** What every event of a tool call carries. */
interface CallFields {
  /** The name the model called. */
  toolName: string;
  serverName?: string;
}

/** A tool call started. */
export interface CallEvent extends CallFields {
  type: "call";
  /**
   * Set when the call joined an identical one in flight (a tool's `coalesce`) instead of sending
   * its own: the shared request reports its own `call`, `retry`, `success` or `error`, unmarked.
   */
  coalesced?: true;
}

/** An attempt failed and the call will try again after `delayMs`. */
export interface RetryEvent extends CallFields {
  type: "retry";
  /** The attempt that failed, counting from 1. */
  attempt: number;
  /** The wait before the next attempt, in milliseconds (a server's Retry-After included). */
  delayMs: number;
  error: McpToolError;
}

/**
 * A hedged call (a tool's `hedge`): an attempt was sent beside one still unanswered (`sent`,
 * with what sent it), answered first (`won`), or was cancelled because another did (`lost`).
 */
export interface HedgeEvent extends CallFields {
  type: "hedge";
  /** The attempt, counting from 1 (the first is never `sent`: it is the call itself). */
  attempt: number;
  outcome: "sent" | "won" | "lost";
  /** What sent it: `delay`, no answer within `delayMs`; `failure`, an attempt failed in a way worth repeating. */
  trigger?: "delay" | "failure";
}

/** A tool call succeeded (possibly through a fallback). */
export interface SuccessEvent extends CallFields {
  type: "success";
  /** Attempts made on the primary server. */
  attempts: number;
  /** From the call's start to its result, in milliseconds. */
  durationMs: number;
  /** Set when the call shared another's request (a tool's `coalesce`): its `attempts` is then 0, none of its own. */
  coalesced?: true;
}

/** A fallback answered instead of the failed tool. */
export interface FallbackEvent extends CallFields {
  type: "fallback";
  /** The primary's failure. */
  error: McpToolError;
  /** The server that answered, or `"function"`. */
  fallback: string;
}

/**
 * A call failed for good (`toolName` set), or a server failed to connect (`toolName` absent).
 * This is the error the caller receives.
 */
export interface ErrorEvent {
  type: "error";
  toolName?: string;
  serverName?: string;
  /** How many attempts were made. */
  attempt?: number;
  error: McpToolError;
  /** Set when the call shared another's request (a tool's `coalesce`): the error is that request's, or the caller's own leaving. */
  coalesced?: true;
}

/** A server's connection was established again after it closed. */
export interface ReconnectEvent {
  type: "reconnect";
  serverName: string;
  /** How many times this connection has been re-established. */
  attempt: number;
}

/**
 * A server's tool list changed (it sent `notifications/tools/list_changed`, or a `tool_not_found`
 * made the toolkit list its tools again): `getTools()` now offers the added tools, and a removed
 * tool answers `tool_not_found` without a call.
 */
export interface ToolsChangedEvent {
  type: "tools_changed";
  serverName: string;
  /** The exposed names of the tools that appeared. */
  added: string[];
  /** The exposed names of the tools that went away. */
  removed: string[];
  /**
   * Tools of this server whose exposed name a clash changed: the server prefix without
   * `prefixToolNames`, or the `_<hash>` suffix that keeps names unique. Present only when some
   * were; a connect that renamed tools reports them in an event of its own (with every tool it
   * added).
   */
  renamed?: { name: string; mcpName: string }[];
}

/** A tool call running as an MCP Task changed status (or status message): progress a UI can show. */
export interface TaskEvent {
  type: "task";
  toolName: string;
  serverName: string;
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  /** The server's status message, when it gave one. */
  message?: string;
}

/** A call's server reported progress (`notifications/progress`). */
export interface ProgressEvent {
  type: "progress";
  toolName: string;
  serverName: string;
  /** The progress so far; it only grows. */
  progress: number;
  /** The total, when the server knows it. */
  total?: number;
  /** The server's words about this step, when it gave some. */
  message?: string;
  /** The model's tool call id, when the tool was invoked with one. */
  toolCallId?: string;
}

/**
 * Something in the configuration that works but is probably not what was meant: a name that
 * names nothing there is (a `toolFilter` pattern, a `tools` key, a fallback server, an
 * `idempotencyKey`), or a catalog entry that is not used. Under `strict: true` a name is an error
 * at `connect()` instead. One that no listener hears is printed (the toolkit's `warnings`).
 */
export interface WarningEvent {
  type: "warning";
  /** Where it stands in the configuration, e.g. `tools.serach`. */
  field: string;
  /** What is wrong, with the name it probably meant. */
  message: string;
}

/** A log message from a server (`notifications/message`), at or above the server's `logLevel`. */
export interface LogEvent {
  type: "log";
  serverName: string;
  level: LogLevel;
  /** Who logged it on the server, when it said. */
  logger?: string;
  /** The message's data: text, or any JSON value. Redacted like an error's data (its `serverLogs`). */
  data: unknown;
}

/** The syslog levels MCP servers log at, lowest first. */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** A server's circuit opened: calls fail at once with `circuit_open`. */
export interface CircuitOpenEvent {
  type: "circuit_open";
  serverName: string;
  /** The failure that opened it. */
  error?: McpToolError;
  /** Set when a rate over the breaker's window opened it (`failureRate`, `slowCallRate`), not consecutive failures. */
  rate?: RateReached;
}

/** A rate over a breaker's window that reached its threshold. */
export interface RateReached {
  /** The breaker option whose threshold was reached. */
  rule: "failureRate" | "slowCallRate";
  /** The share of the window's calls that failed, or were slow. */
  value: number;
  /** How many calls the window held. */
  calls: number;
}

/** A server's circuit lets one test call through. */
export interface HalfOpenEvent {
  type: "half_open";
  serverName: string;
}

/** A server's circuit closed after a successful test call. */
export interface CircuitCloseEvent {
  type: "circuit_close";
  serverName: string;
}

/**
 * The shared state's store (Redis, with `sharedState`) stopped answering, or answers again.
 * Meanwhile each process decides with its own breaker; no call fails or waits because of it.
 */
export interface SharedStateEvent {
  type: "shared_state";
  status: "unavailable" | "available";
  /** Why it counts as unavailable: the client's error name and message, or `timeout`. */
  detail?: string;
}

/**
 * Where a server stands: `"connecting"` until its first connect ends; while its tools are
 * offered, `"connected"`, or what its finished calls say: `"unauthorized"` when its last counted
 * call was refused a 401, `"degraded"` when at least half of its last 20 counted calls (5 at
 * the fewest) failed on the server's side (transport, protocol or timeout, never a tool's
 * `isError` or a call the caller ended); `"failed"` when its last connect failed (an optional
 * server is tried again in the background); `"closed"` once the toolkit closed.
 */
export type ServerState = "connected" | "degraded" | "unauthorized" | "connecting" | "failed" | "closed";

/** One server's part of `McpToolkit.status()`. */
export interface ServerStatus {
  state: ServerState;
  /** Did this server have to connect for `connect()` to succeed (its `required`, else the toolkit's `onConnectionError`)? */
  required: boolean;
  /** The protocol version its connection negotiated, once connected. */
  protocolVersion?: string;
  /** The exposed names of the tools it offers the model now (a filtered or hidden tool is not counted). */
  tools: string[];
  /** Its last failure to connect, redacted as every error handed out is; kept after a later success. */
  lastError?: { reason: Reason; message: string };
  /** How long its last successful connect attempt took, in milliseconds. */
  connectMs?: number;
  /**
   * While a failed optional server waits to be tried again in the background: when (epoch ms).
   * The waits double from `reconnect.minDelayMs` up to `reconnect.maxDelayMs`, or up to 5 minutes
   * for a server whose process cannot start (`server_start_failed`, `spawn_failed`).
   */
  nextAttemptAt?: number;
  /**
   * Set once the background stopped trying a failed optional server whose process cannot start:
   * how many connect attempts in a row failed (5, the first connect included). Only `refresh()`
   * tries it again; a server that comes up loses it.
   */
  gaveUpAfter?: number;
}

/**
 * A server's state changed (or, while it stays `"failed"`, the reason it fails did, or the
 * background stopped trying it: `gaveUpAfter`): its status as `McpToolkit.status()` now reports it.
 */
export interface ServerStatusEvent extends ServerStatus {
  type: "server_status";
  serverName: string;
  /** The state before this change. */
  previous: ServerState;
}

/** One observable step of a tool call or of a server connection; `switch (event.type)` narrows it. */
export type McpEvent =
  | CallEvent
  | RetryEvent
  | HedgeEvent
  | SuccessEvent
  | FallbackEvent
  | ErrorEvent
  | ReconnectEvent
  | ToolsChangedEvent
  | TaskEvent
  | ProgressEvent
  | LogEvent
  | CircuitOpenEvent
  | HalfOpenEvent
  | CircuitCloseEvent
  | SharedStateEvent
  | ServerStatusEvent
  | WarningEvent;

/** What happened; see {@link McpEvent}. */
export type McpEventType = McpEvent["type"];

/** The event of one type. */
export type McpEventOf<T extends McpEventType> = Extract<McpEvent, { type: T }>;

/** Receives every {@link McpEvent}. A listener that throws is ignored, never breaking a call. */
export type McpEventListener = (event: McpEvent) => void;

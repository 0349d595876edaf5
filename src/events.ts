import type { McpToolError } from "./errors/McpToolError.js";

/** What happened; see {@link McpEvent}. */
export type McpEventType = "call" | "retry" | "fallback" | "reconnect" | "circuit_open" | "circuit_close" | "error";

/** One observable step of a tool call or of a server connection. */
export interface McpEvent {
  type: McpEventType;
  /** The name the model called. */
  toolName?: string;
  serverName?: string;
  /** The attempt this event belongs to, counting from 1. */
  attempt?: number;
  /** For `retry`: the wait before the next attempt, in milliseconds. */
  delayMs?: number;
  /** For `retry`, `fallback`, `circuit_open` and `error`: the failure. */
  error?: McpToolError;
  /** For `fallback`: the server or `"function"` that answered instead. */
  fallback?: string;
}

/** Receives every {@link McpEvent}. A listener that throws is ignored, never breaking a call. */
export type McpEventListener = (event: McpEvent) => void;

export function safeEmit(listener: McpEventListener | undefined, event: McpEvent): void {
  if (!listener) return;
  try {
    listener(event);
  } catch {
    // A broken listener must not turn a tool call into a crash.
  }
}

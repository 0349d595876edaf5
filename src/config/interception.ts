/**
 * Per-call interception: what a toolkit's `beforeToolCall` and `afterToolCall` hooks see and may
 * return. They run inside each attempt, under its timeout and signal.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** What a hook is told about the call. */
export interface ToolCallContext {
  /** The server's name in the configuration. */
  serverName: string;
  /** The tool's name as the model calls it. */
  toolName: string;
  /** The tool's name on its server. */
  mcpName: string;
  /** The arguments, as the model sent them (null optionals already left out). */
  args: Record<string, unknown>;
  /** This attempt's number, from 1. */
  attempt: number;
  /**
   * The call's idempotency key, when it carries one (see the `idempotencyKey` tool policy): the
   * same on every attempt. The toolkit sets it on the arguments it sends after this hook returns.
   */
  idempotencyKey?: string;
  /**
   * The LangChain config the tool was invoked with: `configurable` (a LangGraph thread's, a
   * user id), `context` (LangGraph's runtime context), `metadata`, `signal`.
   */
  config?: RunnableConfig;
  /** Aborts when the attempt ends (its timeout, the caller's abort). */
  signal: AbortSignal;
}

/** What `beforeToolCall` may change for this call alone. */
export interface BeforeToolCall {
  /** The arguments to send instead. */
  args?: Record<string, unknown>;
  /**
   * HTTP headers for this call's requests only, set over the server's `headers` (a user's
   * `Authorization` over the server's own): every name, `Authorization` and `DPoP` included, reaches
   * the server on every send of the call (retries, re-sends, a relisted tool's) over http and sse
   * servers. Where one cannot be sent as given, the call fails `interceptor_error`, not_sent, the
   * message naming the header: stdio (no headers), a v1 client you hold (none), a v2 client you
   * hold (its transport drops `Authorization` and `DPoP`), and the names the protocol sets itself
   * (`Content-Type`, `Mcp-Session-Id`, `Mcp-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). A call
   * is never sent without them, nor under other credentials.
   */
  headers?: Record<string, string>;
  /** Entries for the request's `_meta`. */
  meta?: Record<string, unknown>;
}

/** Runs before every send of a call (each attempt, and a re-send within one); may return new arguments, per-call headers and `_meta`. */
export type BeforeToolCallHook = (context: ToolCallContext) => BeforeToolCall | void | Promise<BeforeToolCall | void>;

/**
 * Runs on every answer the server gave (an `isError` answer included), before it is judged; may
 * return the result to use instead (an `isError` result it replaces with a plain one is a success).
 */
export type AfterToolCallHook = (context: ToolCallContext, result: CallToolResult) => CallToolResult | void | Promise<CallToolResult | void>;

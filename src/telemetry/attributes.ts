/**
 * The names our spans, span events and metrics use, in one place, so docs/observability.md and the tests
 * read them from here.
 *
 * Semantic-convention names come from the OpenTelemetry GenAI conventions
 * (open-telemetry/semantic-conventions-genai: docs/gen-ai/gen-ai-spans.md "Execute tool span",
 * docs/gen-ai/mcp.md "Client" span and the `mcp.client.operation.duration` metric), and the
 * general registry (`error.type`, `network.*`, `server.*`, `rpc.response.status_code`,
 * `http.response.status_code`). Both GenAI documents are at "Development" stability: the names
 * may still change upstream, which is why they are constants here and nowhere else.
 */

/** Semantic-convention attribute names, used exactly as the conventions spell them. */
export const SEMCONV = {
  GEN_AI_OPERATION_NAME: "gen_ai.operation.name",
  GEN_AI_TOOL_NAME: "gen_ai.tool.name",
  GEN_AI_TOOL_CALL_ID: "gen_ai.tool.call.id",
  GEN_AI_TOOL_DESCRIPTION: "gen_ai.tool.description",
  MCP_METHOD_NAME: "mcp.method.name",
  MCP_SESSION_ID: "mcp.session.id",
  MCP_PROTOCOL_VERSION: "mcp.protocol.version",
  NETWORK_TRANSPORT: "network.transport",
  NETWORK_PROTOCOL_NAME: "network.protocol.name",
  SERVER_ADDRESS: "server.address",
  SERVER_PORT: "server.port",
  ERROR_TYPE: "error.type",
  RPC_RESPONSE_STATUS_CODE: "rpc.response.status_code",
  HTTP_RESPONSE_STATUS_CODE: "http.response.status_code",
} as const;

/** Our own attributes, under the `langchain_mcp.` namespace the conventions leave to us. */
export const OURS = {
  /** The server's name in the toolkit's configuration. */
  SERVER_NAME: "langchain_mcp.server.name",
  /** Attempts made on the primary server (call span); this attempt's number (attempt span). */
  ATTEMPTS: "langchain_mcp.attempts",
  ATTEMPT: "langchain_mcp.attempt",
  /** `not_sent`, `unknown` or `executed`: did the server run the tool? (failed calls) */
  OUTCOME: "langchain_mcp.outcome",
  /** Could the same call succeed later? (failed calls) */
  TRANSIENT: "langchain_mcp.transient",
  /** A progress notification's progress so far, and its total when the server knows it (progress span events). */
  PROGRESS: "langchain_mcp.progress",
  PROGRESS_TOTAL: "langchain_mcp.progress.total",
  /** The server (or `function`) that answered after the primary failed. */
  FALLBACK_SERVER: "langchain_mcp.fallback.server",
  /** The server's circuit when the call ended: `closed`, `open` or `half-open`. */
  CIRCUIT_STATE: "langchain_mcp.circuit.state",
  /** How a call ended: `ok`, `fallback` or `error` (metrics). */
  RESULT: "langchain_mcp.result",
  /** A retry's wait before the next attempt, in milliseconds (retry event). */
  RETRY_DELAY_MS: "langchain_mcp.retry.delay_ms",
  /** A hedged attempt's part: `sent`, `won` or `lost`; and what sent it: `delay` or `failure` (hedge event). */
  HEDGE_OUTCOME: "langchain_mcp.hedge.outcome",
  HEDGE_TRIGGER: "langchain_mcp.hedge.trigger",
  /** How many times the connection has been re-established (reconnect event). */
  RECONNECT_COUNT: "langchain_mcp.reconnect.count",
} as const;

/** Span event names. */
export const EVENTS = {
  RETRY: "langchain_mcp.retry",
  RECONNECT: "langchain_mcp.reconnect",
  FALLBACK: "langchain_mcp.fallback",
  HEDGE: "langchain_mcp.hedge",
  CIRCUIT: "langchain_mcp.circuit",
  PROGRESS: "langchain_mcp.progress",
} as const;

/** Metric names. `mcp.client.operation.duration` is the conventions'; the rest are ours. */
export const METRICS = {
  /** Each `tools/call` request (one attempt), in seconds, as the MCP conventions define it. */
  OPERATION_DURATION: "mcp.client.operation.duration",
  /** A whole tool call (its retries, waits and fallback included), in seconds. */
  CALL_DURATION: "langchain_mcp.tool.call.duration",
  /** Retries, by server, tool and the reason of the failure retried. */
  RETRIES: "langchain_mcp.retries",
  /** Each server's circuit: 0 closed, 1 half-open, 2 open. */
  CIRCUIT_STATE: "langchain_mcp.circuit.state",
} as const;

/** The bucket boundaries the MCP conventions advise for `mcp.client.operation.duration`, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The instrumentation scope our tracer and meter are named after. */
export const SCOPE = "langchain-mcp-errors";

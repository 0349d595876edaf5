export { ErrorHandler, fromResult, handleError, handleResponseError, isSafeToRetry, normalize, shouldRetry, toModelText, wrapToolError } from "./ErrorHandler.js";
export { McpToolError, isMcpToolError, isServerFailure } from "./errors/McpToolError.js";
export type { McpToolErrorFields, McpToolErrorJSON, McpToolErrorOptions } from "./errors/McpToolError.js";
export { REASONS, REASON_NAMES, HINTS } from "./errors/reasons.js";
export type { ConnectionEffect, ErrorKind, Outcome, Reason, ReasonInfo } from "./errors/reasons.js";
export type { CustomCodeRule, CustomCodeTable, ExitInfo, NormalizeContext } from "./errors/normalize.js";
export { parseRetryAfter } from "./errors/normalize.js";
export { cleanMessage, hintFor, safeMessage, toModelReply, toSafeJSON, truncate, DEFAULT_MAX_LENGTH } from "./errors/text.js";
export type { ModelTextOptions } from "./errors/text.js";
export { redact, redactValue, REDACTED } from "./errors/redact.js";
export type { RedactOptions } from "./errors/redact.js";
export { McpToolkit, createMcpTools, DEFAULT_CLIENT_INFO } from "./langchain/McpToolkit.js";
export type { CreateMcpToolsOptions } from "./langchain/McpToolkit.js";
export { McpTool } from "./langchain/McpTool.js";
export type { McpToolMetadata } from "./langchain/McpTool.js";
export { McpConfigError, DEFAULT_TIMEOUT_MS } from "./config.js";
export type {
  ClientServerConfig,
  ErrorOptions,
  FallbackFunction,
  HttpServerConfig,
  McpToolkitConfig,
  ReconnectOptions,
  ServerConfig,
  ServerOptions,
  SseServerConfig,
  StdioServerConfig,
  ToolPolicy,
} from "./config.js";
export { EventHub } from "./events.js";
export type {
  McpEvent,
  McpEventListener,
  McpEventOf,
  McpEventType,
  CallEvent,
  RetryEvent,
  SuccessEvent,
  FallbackEvent,
  ErrorEvent,
  ReconnectEvent,
  CircuitOpenEvent,
  HalfOpenEvent,
  CircuitCloseEvent,
} from "./events.js";
export { DEFAULT_RETRY, backoffDelay, retryVerdict } from "./policy/RetryPolicy.js";
export type { RetryOptions, RetryUnknownOutcome } from "./policy/RetryPolicy.js";
export { CircuitBreaker, DEFAULT_BREAKER } from "./policy/CircuitBreaker.js";
export type { BreakerOptions, BreakerState } from "./policy/CircuitBreaker.js";
export { DEFAULT_RECONNECT } from "./mcp/Connection.js";
export { resolvePolicy } from "./policy/resolve.js";
export type { ResolvedPolicy } from "./policy/resolve.js";
export { convertResult, describeBlock } from "./mcp/content.js";
export { wrapTool } from "./langchain/wrapTool.js";
export type { WrapToolOptions } from "./langchain/wrapTool.js";
export { normalizeForeign } from "./langchain/adapterErrors.js";

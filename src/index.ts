export { ErrorHandler, fromResult, handleError, handleResponseError, isSafeToRetry, normalize, shouldRetry, toModelText, wrapToolError } from "./ErrorHandler.js";
export { McpToolError, isMcpToolError, isServerFailure } from "./errors/McpToolError.js";
export type { McpToolErrorFields, McpToolErrorJSON, McpToolErrorOptions } from "./errors/McpToolError.js";
export { REASONS } from "./errors/reasons.js";
export type { ConnectionEffect, ErrorKind, Outcome, Reason, ReasonInfo } from "./errors/reasons.js";
export type { CustomCodeRule, CustomCodeTable, ExitInfo, NormalizeContext } from "./errors/normalize.js";
export { redactError } from "./errors/text.js";
export type { ModelTextOptions } from "./errors/text.js";
export { redact, REDACTED } from "./errors/redact.js";
export type { RedactOptions } from "./errors/redact.js";
export { McpToolkit } from "./langchain/McpToolkit.js";
export { createMcpTools } from "./langchain/createMcpTools.js";
export type { CreateMcpToolsOptions, McpTools } from "./langchain/createMcpTools.js";
export { McpTool } from "./langchain/McpTool.js";
export type { McpToolMetadata } from "./langchain/McpTool.js";
export type { McpResources, ResourceCallOptions, ResourceInfo, ResourceListFailure, ResourceListing, ResourceTemplateInfo } from "./resources/McpResources.js";
export type { ResourceDocumentMetadata } from "./resources/documents.js";
export type { ReadArtifact } from "./resources/modelText.js";
export { McpResourceRetriever, DEFAULT_NAME_MATCHES } from "./resources/retriever.js";
export type { McpResourceRetrieverInput, ResourceSelection } from "./resources/retriever.js";
export { ResourcePins, DEFAULT_PIN_OPTIONS } from "./resources/ResourcePins.js";
export type { PinnedResource, PinStatus, ResourcePinsOptions } from "./resources/ResourcePins.js";
export type { WatchState } from "./resources/resourceWatch.js";
export type { TemplateVariables } from "./resources/uriTemplates.js";
export { McpPromptTemplate } from "./prompts/McpPromptTemplate.js";
export type { McpPrompts, McpPromptArgument, McpPromptInfo, McpPromptList, McpPromptListFailure, PromptRequestOptions } from "./langchain/McpPrompts.js";
export {
  McpConfigError,
  validateConfig,
  loadMcpConfig,
  DEFAULT_BREAKER,
  DEFAULT_CLIENT_INFO,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_KEEPALIVE_CHECK_AFTER_MS,
  DEFAULT_MAX_LENGTH,
  DEFAULT_MAX_RESULT_LENGTH,
  DEFAULT_RECONNECT,
  DEFAULT_RETRY,
  DEFAULT_RETRY_BUDGET,
  DEFAULT_THROTTLE,
  DEFAULT_STDERR_LINES,
  DEFAULT_TIMEOUT_MS,
} from "./config/index.js";
export type {
  LoadMcpConfigOptions,
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
  RetryBudgetOptions,
  ThrottleOptions,
  SharedStateOptions,
  PromptOptions,
  ResourceOptions,
  ServerResourceOptions,
  RedisClientLike,
  EraSetting,
  ToolFilter,
  AfterToolCallHook,
  BeforeToolCall,
  BeforeToolCallHook,
  ToolCallContext,
} from "./config/index.js";
export type { AnyClient, ProtocolEra } from "./config/clients.js";
export type { ServerCatalog, ToolkitCatalog } from "./config/catalog.js";
export type { InputContext, InputHandler } from "./config/input.js";
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
  RateReached,
  HalfOpenEvent,
  CircuitCloseEvent,
  SharedStateEvent,
  ProgressEvent,
  LogEvent,
  LogLevel,
  ToolsChangedEvent,
  TaskEvent,
  ServerState,
  ServerStatus,
  ServerStatusEvent,
  WarningEvent,
} from "./events.js";
export type { RetryOptions, RetryUnknownOutcome } from "./policy/RetryPolicy.js";
export { CircuitBreaker } from "./policy/CircuitBreaker.js";
export type { BreakerOptions, BreakerState } from "./policy/CircuitBreaker.js";
export { wrapTool } from "./langchain/wrapTool.js";
export type { WrapToolOptions } from "./langchain/wrapTool.js";


/**
 * The configuration: types, validation and defaults, all from the one schema in `schema.ts`.
 * The DEFAULT_* constants below are read from that schema, never written a second time.
 */
import type { z } from "zod";
import {
  BreakerOptionsSchema,
  ErrorOptionsSchema,
  HttpServerConfigSchema,
  McpToolkitConfigSchema,
  ReconnectOptionsSchema,
  RetryBudgetOptionsSchema,
  RetryOptionsSchema,
  ServerOptionsSchema,
  StdioServerConfigSchema,
  ThrottleOptionsSchema,
  ToolPolicySchema,
} from "./schema.js";

export {
  RetryBudgetOptionsSchema,
  BreakerOptionsSchema,
  ClientServerConfigSchema,
  ErrorOptionsSchema,
  HttpServerConfigSchema,
  McpToolkitConfigSchema,
  ReconnectOptionsSchema,
  RetryOptionsSchema,
  ServerConfigSchema,
  ServerOptionsSchema,
  SseServerConfigSchema,
  StdioServerConfigSchema,
  ThrottleOptionsSchema,
  ToolPolicySchema,
} from "./schema.js";
export type {
  BeforeFallback,
  EraSetting,
  BreakerOptions,
  ClientServerConfig,
  ErrorOptions,
  FallbackFunction,
  HttpServerConfig,
  McpToolkitConfig,
  ReconnectOptions,
  ResolvedRetry,
  RetryBudgetOptions,
  RedisClientLike,
  SharedStateOptions,
  RetryOptions,
  RetryUnknownOutcome,
  ServerConfig,
  ServerOptions,
  SseServerConfig,
  StdioServerConfig,
  ThrottleOptions,
  ToolPolicy,
  ToolFilter,
} from "./schema.js";
export type { AfterToolCallHook, BeforeToolCall, BeforeToolCallHook, ToolCallContext } from "./interception.js";
export type { PromptOptions } from "./prompts.js";
export type { ResourceOptions, ServerResourceOptions } from "./resources.js";
export { McpConfigError, validateConfig } from "./validate.js";
export { derivedDeadlineMs } from "./policies.js";
export { loadMcpConfig, type LoadMcpConfigOptions } from "./load.js";

type Shape = Readonly<Record<string, z.ZodType>>;

/** The keys of a shape whose fields have a default. */
type DefaultedKeys<S extends Shape> = { [K in keyof S]: S[K] extends z.ZodDefault ? K : never }[keyof S];

/**
 * The fields of an options object that have a default, with that default: what leaving them
 * out means. Fields without one (inherited from another layer, or simply off) are absent.
 */
export function defaultsOf<S extends Shape>(schema: { shape: S }): Readonly<{ [K in DefaultedKeys<S>]: z.output<S[K]> }> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const parsed = field.safeParse(undefined);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return Object.freeze(out) as { [K in DefaultedKeys<S>]: z.output<S[K]> };
}

/** What an empty retry policy means. */
export const DEFAULT_RETRY = defaultsOf(RetryOptionsSchema.out);
/** What an empty breaker configuration means. */
export const DEFAULT_BREAKER = defaultsOf(BreakerOptionsSchema);
/** What an empty retry budget configuration means. */
export const DEFAULT_RETRY_BUDGET = defaultsOf(RetryBudgetOptionsSchema);
/** What an empty throttle configuration (or `throttle: true`) means. */
export const DEFAULT_THROTTLE = defaultsOf(ThrottleOptionsSchema);
/** What an empty reconnect configuration means. */
export const DEFAULT_RECONNECT = defaultsOf(ReconnectOptionsSchema);
/** A server's defaults: `trustAnnotations`, `connectTimeoutMs`, `exposeTools`, `required`, `maxInputRounds`, `catalogTtlMs`. */
export const DEFAULT_SERVER_OPTIONS = defaultsOf(ServerOptionsSchema);
/** A tool policy's defaults (`resetTimeoutOnProgress`); its other fields are inherited. */
export const DEFAULT_TOOL_POLICY = defaultsOf(ToolPolicySchema);
/** `errors.mode` and `errors.maxLength`. */
export const DEFAULT_ERROR_OPTIONS = defaultsOf(ErrorOptionsSchema);
/** The toolkit's own defaults: `prefixToolNames`, `onConnectionError`, `timeoutMs`, `clientInfo`. */
export const DEFAULT_TOOLKIT_OPTIONS = defaultsOf(McpToolkitConfigSchema);

export const DEFAULT_CONNECT_TIMEOUT_MS = DEFAULT_SERVER_OPTIONS.connectTimeoutMs;
export const DEFAULT_MAX_INPUT_ROUNDS = DEFAULT_SERVER_OPTIONS.maxInputRounds;
export const DEFAULT_STDERR_LINES = defaultsOf(StdioServerConfigSchema).stderrLines;
/** The protocol era a stdio server is spoken to in, unless its `era` says otherwise; and an HTTP server's. */
export const DEFAULT_STDIO_ERA = defaultsOf(StdioServerConfigSchema).era;
export const DEFAULT_HTTP_ERA = defaultsOf(HttpServerConfigSchema).era;
/** How long an HTTP server's connections may idle before a call checks them first (`keepAliveCheckAfterMs`). */
export const DEFAULT_KEEPALIVE_CHECK_AFTER_MS = defaultsOf(HttpServerConfigSchema).keepAliveCheckAfterMs;
/** The per-attempt timeout of a tool whose policy, server and toolkit set none. */
export const DEFAULT_TIMEOUT_MS = DEFAULT_TOOLKIT_OPTIONS.timeoutMs;
/** The longest message the model reads (`errors.maxLength`). */
export const DEFAULT_MAX_LENGTH = DEFAULT_ERROR_OPTIONS.maxLength;
/** The longest successful result text the model reads (`maxResultLength`). */
export const DEFAULT_MAX_RESULT_LENGTH = DEFAULT_TOOLKIT_OPTIONS.maxResultLength;
export const DEFAULT_CLIENT_INFO = Object.freeze(DEFAULT_TOOLKIT_OPTIONS.clientInfo);

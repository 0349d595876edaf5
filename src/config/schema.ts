/**
 * The one configuration schema. The public types are derived from it, `validateConfig` runs
 * it, and every default is stated here once (with `.default(...)` and its `@default` tag);
 * the DEFAULT_* constants and the README's tables are checked against it.
 *
 * Validation never fills defaults into the user's objects: a tool's policy is resolved from
 * layers (defaults < toolkit < server < tool keys), each overriding only what it sets.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpToolError } from "../errors/McpToolError.js";
import { isReason, type Reason } from "../errors/reasons.js";
import { DEFAULT_MAX_LENGTH } from "../errors/text.js";
import type { McpEventListener } from "../events.js";
import { custom, describe, expected, flag, fn, httpUrl, isObject, nonEmptyText, number, oneOf, options, stringArray, stringRecord, text } from "./fields.js";

export type { RetryUnknownOutcome } from "../errors/safeRepeat.js";

const retryFields = options({
  /** Retries after the first attempt. @default 2 */
  retries: number({ integer: true, infinite: true }).default(2),
  /** The first backoff delay, in milliseconds. @default 200 */
  minTimeout: number().default(200),
  /** The longest backoff delay, and the longest Retry-After honoured, in milliseconds. @default 5000 */
  maxTimeout: number({ infinite: true }).default(5000),
  /** The backoff's growth per attempt. @default 2 */
  factor: number().default(2),
  /** Multiply each delay by a random factor between 1 and 2. @default true */
  randomize: flag().default(true),
  /** The total time budget for all attempts and waits, in milliseconds. @default Infinity */
  maxRetryTime: number({ infinite: true }).default(Number.POSITIVE_INFINITY),
  /**
   * May a failure whose outcome is `unknown` (the tool may have run) be repeated?
   * `"idempotent"`: only for tools known to be idempotent or read-only.
   * @default "idempotent"
   */
  retryUnknownOutcome: oneOf(["idempotent", true, false]).default("idempotent"),
  /**
   * Overrides the verdict. The default is the error's `transient` flag combined with the
   * safe-repeat rule; `attempt` counts from 1.
   */
  shouldRetry: fn<(error: McpToolError, attempt: number) => boolean>().optional(),
  /** Domain (`isError`) failures to retry, by message pattern or predicate. Off by default. */
  retryOnToolError: custom<RegExp | ((error: McpToolError) => boolean)>("a RegExp or a function", (v) => v instanceof RegExp || typeof v === "function").optional(),
});

/**
 * Retry options for one layer. `minTimeout ≤ maxTimeout` is checked only where one layer sets
 * both: the other may come from a layer below, so the defaults must not take part.
 */
export const RetryOptionsSchema = z.preprocess<unknown, typeof retryFields, z.input<typeof retryFields>>((layer: unknown, ctx) => {
  if (isObject(layer) && typeof layer.minTimeout === "number" && typeof layer.maxTimeout === "number" && layer.minTimeout > layer.maxTimeout) {
    // Reported only for an otherwise valid object, so the first problem named is the first field's.
    if (retryFields.safeParse(layer).success) ctx.addIssue({ code: "custom", path: ["minTimeout"], input: layer.minTimeout, message: `must not exceed maxTimeout (${layer.maxTimeout})` });
  }
  return layer;
}, retryFields);

/** Retry options for one layer; a field left out comes from the layer below. */
export interface RetryOptions extends z.input<typeof RetryOptionsSchema> {}

/** Circuit breaker options, per server or for the whole toolkit. */
export const BreakerOptionsSchema = options({
  /** Consecutive transient failures that open the circuit. @default 5 */
  failureThreshold: number({ min: 1, integer: true }).default(5),
  /** How long the circuit stays open before one call may test the server, in milliseconds. @default 30000 */
  halfOpenAfterMs: number().default(30_000),
  /**
   * Spread of the open period: each opening lasts `halfOpenAfterMs` times a random factor
   * between 1 and 1 + this, so many processes that opened together do not all test at once.
   * @default 0.2
   */
  halfOpenJitter: number({ max: 1 }).default(0.2),
  /** Set to false to turn the breaker off. @default true */
  enabled: flag().default(true),
});
export interface BreakerOptions extends z.input<typeof BreakerOptionsSchema> {}

/**
 * A server's retry budget: retries may be at most `ratio` of the attempts sent to it in the
 * last `windowMs`, plus `minRetries`, so that an outage does not multiply the load on it.
 */
export const RetryBudgetOptionsSchema = options({
  /** Retries allowed per attempt sent, over the window. @default 0.2 */
  ratio: number({ max: 1 }).default(0.2),
  /** Retries always allowed in a window, whatever the ratio. @default 10 */
  minRetries: number({ integer: true }).default(10),
  /** How far back attempts and retries are counted, in milliseconds. @default 10000 */
  windowMs: number({ min: 100 }).default(10_000),
  /** Set to false to turn the budget off. @default true */
  enabled: flag().default(true),
});
export interface RetryBudgetOptions extends z.input<typeof RetryBudgetOptionsSchema> {}

/** Reconnection after a closed connection, an exited process or an expired session. */
export const ReconnectOptionsSchema = options({
  /** Reconnect automatically before the next call. @default true */
  enabled: flag().default(true),
  /** The first wait after a failed reconnect, in milliseconds. @default 100 */
  minDelayMs: number().default(100),
  /** The longest wait between reconnect attempts, in milliseconds. @default 5000 */
  maxDelayMs: number().default(5000),
});
export interface ReconnectOptions extends z.input<typeof ReconnectOptionsSchema> {}

const codeRule = options({
  reason: custom<Reason>("a known reason", isReason),
  /** Overrides the reason's default verdict. */
  transient: flag().optional(),
});

const serverOptions = {
  /**
   * Per-call timeout for this server's tools, in milliseconds; a tool policy may override it.
   * Unset, the toolkit's `timeoutMs` applies.
   */
  timeoutMs: number({ min: 1 }).optional(),
  /** Count MCP tool annotations (`readOnlyHint`, `idempotentHint`) as true. @default false */
  trustAnnotations: flag().default(false),
  /** How this server's own JSON-RPC codes are read, for example `{ [-32003]: { reason: "rate_limited" } }`. */
  errorCodes: z
    .record(z.int({ error: "the key must be an integer JSON-RPC code" }), codeRule, { error: expected("an object mapping codes to { reason, transient? }") })
    .optional(),
  /** Another server to call the same tool on when this one fails transiently. */
  fallback: z.string({ error: expected("the name of another server") }).optional(),
  /** This server's retry policy, over the toolkit's. */
  retry: RetryOptionsSchema.optional(),
  /** This server's circuit breaker, over the toolkit's. */
  breaker: BreakerOptionsSchema.optional(),
  /** This server's retry budget, over the toolkit's. */
  retryBudget: RetryBudgetOptionsSchema.optional(),
  /** Reconnection after the connection is lost; a `client` you connected is never reconnected. */
  reconnect: ReconnectOptionsSchema.optional(),
  /** How long connecting (and re-connecting) may take, in milliseconds. @default 30000 */
  connectTimeoutMs: number({ min: 1 }).default(30_000),
  /** Offer this server's tools to the model; false keeps it as a fallback only. @default true */
  exposeTools: flag().default(true),
};

/** What every kind of server takes. */
export const ServerOptionsSchema = options(serverOptions);
export interface ServerOptions extends z.input<typeof ServerOptionsSchema> {}

/**
 * A kind of server's own fields. Each kind's interface inherits the rest from `ServerOptions`,
 * so that a field every kind shares has one declaration, and its documentation shows in a union.
 */
type Own<S extends z.ZodType> = Omit<z.input<S>, keyof ServerOptions>;

export const StdioServerConfigSchema = options({
  transport: z.literal("stdio"),
  /** The program to start; it speaks MCP on its stdin and stdout. */
  command: nonEmptyText(),
  args: stringArray().optional(),
  /** Added to a safe default environment; every value is redacted from model text. */
  env: stringRecord().optional(),
  cwd: text().optional(),
  /** How many of the last stderr lines to keep for error messages. @default 20 */
  stderrLines: number({ integer: true }).default(20),
  ...serverOptions,
});
export interface StdioServerConfig extends ServerOptions, Own<typeof StdioServerConfigSchema> {}

const authProvider = custom<OAuthClientProvider>("an OAuthClientProvider", isObject);

/** What both HTTP transports take. */
const httpOptions = {
  url: httpUrl(),
  /** Sent with every request; values that a secret name or a credential shape marks are redacted from model text. */
  headers: stringRecord().optional(),
  authProvider: authProvider.optional(),
  /**
   * The fetch every request to this server goes through: set an undici dispatcher for
   * keep-alive, a proxy or a CA. Unset, the global fetch.
   */
  fetch: fn<FetchLike>().optional(),
  /**
   * How long the server's connections may sit idle before a tool call first checks them (one
   * OPTIONS request), in milliseconds, so a pooled socket the server or a proxy already closed
   * does not fail a call. Below every proxy idle timeout we know of (Node 5 s, nginx 60-75 s,
   * cloud load balancers 60 s or more) and above the gaps of a busy caller, so a steady stream
   * of calls pays nothing. `Infinity` turns the check off.
   * @default 500
   */
  keepAliveCheckAfterMs: number({ infinite: true }).default(500),
};

export const HttpServerConfigSchema = options({
  /** Streamable HTTP, falling back to SSE when the server only speaks SSE. */
  transport: z.literal("http"),
  ...httpOptions,
  ...serverOptions,
});
export interface HttpServerConfig extends ServerOptions, Own<typeof HttpServerConfigSchema> {}

export const SseServerConfigSchema = options({
  transport: z.literal("sse"),
  ...httpOptions,
  ...serverOptions,
});
export interface SseServerConfig extends ServerOptions, Own<typeof SseServerConfigSchema> {}

export const ClientServerConfigSchema = options({
  /** An already connected SDK client. The toolkit does not close or reconnect it. */
  client: custom<Client>("a connected @modelcontextprotocol/sdk Client", (v) => isObject(v) && typeof v.callTool === "function"),
  ...serverOptions,
});
export interface ClientServerConfig extends ServerOptions, Own<typeof ClientServerConfigSchema> {}

const TransportServerConfigSchema = z.discriminatedUnion("transport", [StdioServerConfigSchema, HttpServerConfigSchema, SseServerConfigSchema], {
  error: (issue) =>
    issue.code === "invalid_union" && isObject(issue.input)
      ? expected(`"stdio", "http" or "sse" (or a "client")`)({ ...issue, input: issue.input.transport })
      : expected("an object")(issue),
});

export type ServerConfig = StdioServerConfig | HttpServerConfig | SseServerConfig | ClientServerConfig;

const serverConfigUnion = z.union([ClientServerConfigSchema, TransportServerConfigSchema]);

/**
 * A server: a `client` you connected, or a `transport` for the toolkit to open. Typed with the
 * named interfaces, so that an editor shows their documentation inside `servers: { … }`.
 */
export const ServerConfigSchema: z.ZodType<z.output<typeof serverConfigUnion>, ServerConfig> = serverConfigUnion;

/** A fallback function for one tool; its answer is what the model reads. */
export type FallbackFunction = (args: Record<string, unknown>, error: McpToolError) => Promise<string | CallToolResult>;

/** Policy for the tools a `tools` key matches. */
export const ToolPolicySchema = options({
  /** The retry policy for these tools, over the server's and the toolkit's. */
  retry: RetryOptionsSchema.optional(),
  /** Per-attempt timeout, in milliseconds. Unset, the server's `timeoutMs` applies, else the toolkit's. */
  timeoutMs: number({ min: 1 }).optional(),
  /** Restart the attempt's timeout whenever the server reports progress. @default false */
  resetTimeoutOnProgress: flag().default(false),
  /** A hard cap on one attempt even with progress; the server is sent a cancellation. */
  maxTotalTimeoutMs: number({ min: 1 }).optional(),
  /** A server name, or a function that answers instead. Unset, the server's `fallback` applies. */
  fallback: custom<string | FallbackFunction>("a server name or a function", (v) => typeof v === "string" || typeof v === "function").optional(),
  /** Overrides the tool's annotations: is repeating this tool harmless? */
  idempotent: flag().optional(),
});
export interface ToolPolicy extends z.input<typeof ToolPolicySchema> {}

/** How failures reach the caller. */
export const ErrorOptionsSchema = options({
  /** `"return"`: an error ToolMessage (or text); `"throw"`: the McpToolError itself. @default "return" */
  mode: oneOf(["return", "throw"]).default("return"),
  /** The longest message the model reads. @default 1000 */
  maxLength: number({ min: 20, integer: true }).default(DEFAULT_MAX_LENGTH),
  /** More secrets to remove from model text: exact strings or patterns. */
  redact: z
    .array(custom<string | RegExp>("a string or a RegExp", (v) => typeof v === "string" || v instanceof RegExp), { error: expected("an array of strings or RegExps") })
    .optional(),
});
export interface ErrorOptions extends z.input<typeof ErrorOptionsSchema> {}

/** Called before a fallback runs; returning `"skip"` keeps the original error. */
export type BeforeFallback = (toolName: string, args: Record<string, unknown>, error: McpToolError) => "skip" | void | Promise<"skip" | void>;

const serverName = z.string().regex(/^[A-Za-z0-9_.-]+$/, { error: "a server name may only hold letters, digits, '_', '-' and '.'" });

export const McpToolkitConfigSchema = options({
  /** The servers by name; a name holds letters, digits, `_`, `-` and `.`. */
  servers: z
    .record(serverName, ServerConfigSchema, { error: expected("an object of server configurations") })
    .refine((servers) => Object.keys(servers).length > 0, { error: "expected at least one server" }),
  /** Name every tool `<server>__<tool>`; clashing names get the prefix regardless. @default false */
  prefixToolNames: flag().default(false),
  /** `"skip"` leaves a server that fails to connect out, and tries it again later. @default "throw" */
  onConnectionError: oneOf(["throw", "skip"]).default("throw"),
  /** How failures reach the caller. */
  errors: ErrorOptionsSchema.optional(),
  /** The retry policy for every tool, under server and tool policies. */
  retry: RetryOptionsSchema.optional(),
  /** The circuit breaker for every server, under a server's own. */
  breaker: BreakerOptionsSchema.optional(),
  /** The retry budget for every server, under a server's own. */
  retryBudget: RetryBudgetOptionsSchema.optional(),
  /** Per-attempt timeout for every tool, in milliseconds, under server and tool policies. @default 30000 */
  timeoutMs: number({ min: 1 }).default(30_000),
  /**
   * The longest text of a successful result the model reads, in characters; the rest is cut
   * with a note, and the whole text stays in the tool message's artifact. @default 100000
   */
  maxResultLength: number({ min: 100, integer: true, infinite: true }).default(100_000),
  /**
   * Per-tool policies. A key is the exposed tool name, `<server>/<tool>`, or a glob with `*`
   * over either form. Every matching key applies, the more specific over the less.
   */
  tools: z.record(z.string(), ToolPolicySchema, { error: expected("an object of tool policies") }).optional(),
  /** Called before a fallback runs; returning `"skip"` keeps the original error. */
  beforeFallback: fn<BeforeFallback>().optional(),
  /** Receives every event; a listener that throws is ignored, never breaking a call. */
  onEvent: fn<McpEventListener>().optional(),
  /** How this client introduces itself to servers. @default { name: "langchain-mcp-errors", version: "0.1.0" } */
  clientInfo: options({ name: nonEmptyText(), version: nonEmptyText() }).default({ name: "langchain-mcp-errors", version: "0.1.0" }),
}).superRefine(({ servers, tools }, ctx) => {
  // Names of other servers can only be checked once every server is known.
  const isServer = (name: string) => Object.hasOwn(servers, name);
  for (const [name, server] of Object.entries(servers)) {
    const path = ["servers", name, "fallback"];
    if (server.fallback === name) ctx.addIssue({ code: "custom", path, input: server.fallback, message: "a server cannot be its own fallback" });
    else if (server.fallback !== undefined && !isServer(server.fallback)) {
      ctx.addIssue({ code: "custom", path, input: server.fallback, message: `expected the name of another server, got ${describe(server.fallback)}` });
    }
  }
  for (const [key, policy] of Object.entries(tools ?? {})) {
    if (typeof policy.fallback === "string" && !isServer(policy.fallback)) {
      ctx.addIssue({ code: "custom", path: ["tools", key, "fallback"], input: policy.fallback, message: `expected a server name or a function, got ${describe(policy.fallback)}` });
    }
  }
});

/** The whole toolkit configuration. */
export interface McpToolkitConfig extends z.input<typeof McpToolkitConfigSchema> {}

/** A retry policy with every default applied, as the pipeline runs it. */
export type ResolvedRetry = z.output<typeof RetryOptionsSchema>;

/**
 * The server entries of the configuration schema: what every server takes, and each transport's
 * own keys (stdio, streamable HTTP, SSE, a client you hold). schema.ts builds the toolkit's
 * configuration from these; each default is stated here once, with its `@default` tag.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isReason, type Reason } from "../errors/reasons.js";
import type { AnyClient } from "./clients.js";
import type { InputHandler } from "./input.js";
import { BreakerOptionsSchema, ReconnectOptionsSchema, RetryBudgetOptionsSchema, RetryOptionsSchema, ThrottleSettingSchema } from "./policies.js";
import { ServerResourceOptionsSchema } from "./resources.js";
import { custom, expected, flag, fn, httpUrl, isObject, nonEmptyText, number, oneOf, options, stringArray, stringRecord, text } from "./fields.js";
import { PromptOptionsSchema } from "./prompts.js";
import { ChaosSettingSchema } from "./chaos.js";

/** Decides whether the model is offered a server's tool; see the toolkit's `filter`. */
export type ToolFilter = (tool: Tool, serverName: string) => boolean;

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
  /**
   * The longest a whole call of this server's tools may take, in milliseconds; a tool policy may
   * override it. Unset, the toolkit's `deadlineMs` applies, else one derived from each tool's policy.
   */
  deadlineMs: number({ min: 1, infinite: true }).optional(),
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
  /** This server's adaptive send rate after rate-limited answers (`true`, or its options), over the toolkit's. Off unless set. */
  throttle: ThrottleSettingSchema.optional(),
  /**
   * Faults injected at this server's transport, over the toolkit's `chaos` (`false`: none here).
   * A fault the transport cannot carry is refused (`http_503` over stdio); a `client` you
   * connected takes none.
   */
  chaos: ChaosSettingSchema.optional(),
  /** Reconnection after the connection is lost; a `client` you connected is never reconnected. */
  reconnect: ReconnectOptionsSchema.optional(),
  /**
   * The most calls in flight to this server at once (a bulkhead); past it a call waits its turn,
   * within its own timeout and abortable. Unset, no limit.
   */
  maxConcurrent: number({ min: 1, integer: true }).optional(),
  /**
   * With `maxConcurrent`, how many calls may wait for a turn; past it a call fails at once,
   * `bulkhead_full`, unsent. Unset, no limit on the queue.
   */
  maxQueue: number({ min: 0, integer: true }).optional(),
  /** How long connecting (and re-connecting) may take, in milliseconds. @default 30000 */
  connectTimeoutMs: number({ min: 1 }).default(30_000),
  /** This server's prompts as model tools (`{ tools: true }`), over the toolkit's `prompts`. Off unless set. */
  prompts: PromptOptionsSchema.optional(),
  /** Whether this server's resources are offered through the model's resource tools, over the toolkit's `resources`. */
  resources: ServerResourceOptionsSchema.optional(),
  /** Offer this server's tools to the model; false keeps it as a fallback only. @default true */
  exposeTools: flag().default(true),
  /**
   * Which of this server's tools the model is offered, by their names on the server (or
   * `<server>/<tool>`), each a name or a glob with `*` as in the toolkit's `tools` keys. A tool
   * is offered when it matches some `allow` pattern (every tool, without `allow`) and no `deny`
   * pattern. A hidden tool still answers as another server's `fallback`. Named `toolFilter`,
   * not `tools`, since the toolkit's `tools` maps names to policies.
   */
  toolFilter: options({
    /** Offer only the tools these names or globs match. Unset, every tool. */
    allow: stringArray().optional(),
    /** Never offer the tools these names or globs match, even when `allow` does. */
    deny: stringArray().optional(),
  }).optional(),
  /**
   * Must this server connect for `McpToolkit.connect()` to succeed? A required server that fails
   * rejects `connect()` with its classified error. An optional one (`false`) is left out: the
   * toolkit tries it again in the background, waiting as its `reconnect` backoff says, adds its
   * tools when it comes up, and reports it in `status()` and `server_status` events. A server
   * that leaves `required` unset follows the toolkit's `onConnectionError` (`"skip"`: optional).
   * @default true
   */
  required: flag().default(true),
  /**
   * Answers the server's requests for input during a tool call (elicitation forms and URLs,
   * sampling); `langGraphInputHandler()` turns them into LangGraph interrupts. Without one, the
   * client declares no such capability and the model reads `elicitation_required`.
   */
  inputHandler: custom<InputHandler>("an object with elicit and/or sample functions", (v) => isObject(v) && ["elicit", "sample"].some((k) => typeof v[k] === "function")).optional(),
  /**
   * The lowest level of this server's log messages reported as `log` events, and asked of the
   * server: with `logging/setLevel` after a 2025-era connect, and on each 2026-07-28 request.
   * Unset, the server is asked for nothing and whatever it sends is reported.
   */
  logLevel: oneOf(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).optional(),
  /** How many `input_required` rounds (2026-07-28) one call may take before it gives up. @default 3 */
  maxInputRounds: number({ integer: true, min: 1 }).default(3),
  /**
   * How long this server's tool list may be reused, in milliseconds, when its list result
   * carries no `ttlMs` of its own (the 2025 revisions): by `McpToolkit.connect({ catalog })`,
   * by a reconnect, and in `sharedState`'s Redis. A 2026-07-28 server's own `ttlMs` always
   * wins, 0 included. 0 lists at every connect, as the spec reads a missing ttl.
   * @default 0
   */
  catalogTtlMs: number({ integer: true }).default(0),
  /**
   * How old an entry of a catalog you hand to `McpToolkit.connect({ catalog })` may be, in
   * milliseconds, and still be used, when its server gave no `ttlMs` of its own (every 2025-era
   * server): the exported list is offered at once, and a tool the server dropped since answers
   * `tool_not_found`, which lists again. A server's own `ttlMs` (0 included) wins; `catalogTtlMs`
   * wins where it is longer. 0 never uses such an entry.
   * @default 3600000
   */
  catalogMaxAgeMs: number({ integer: true, min: 0 }).default(3_600_000),
};

/** What every kind of server takes. */
export const ServerOptionsSchema = options(serverOptions);
export interface ServerOptions extends z.input<typeof ServerOptionsSchema> {}

/**
 * A kind of server's own fields. Each kind's interface inherits the rest from `ServerOptions`,
 * so that a field every kind shares has one declaration, and its documentation shows in a union.
 */
type Own<S extends z.ZodType> = Omit<z.input<S>, keyof ServerOptions>;

/** The protocol era a connection negotiates; see docs/protocol.md. */
export type EraSetting = "auto" | "legacy" | "modern";
const eras = ["auto", "legacy", "modern"] as const;

export const StdioServerConfigSchema = options({
  transport: z.literal("stdio"),
  /**
   * Which protocol era to speak. `"legacy"` starts with the 2025 `initialize` (every stdio server
   * on npm answers it; a 2026-only server's refusal makes the toolkit renegotiate once);
   * `"auto"` first asks `server/discover` in a second, short-lived process; `"modern"` requires
   * 2026-07-28. A reconnect reuses the era the last connect learnt.
   * @default "legacy"
   */
  era: oneOf(eras).default("legacy"),
  /** The program to start; it speaks MCP on its stdin and stdout. */
  command: nonEmptyText(),
  args: stringArray().optional(),
  /**
   * Added to a safe default environment. Every value is redacted from what leaves the library
   * (model text, events, errors, and results unless a tool's `redactResults` is false), except
   * values that read as settings: a flag's state
   * (`true`, `off`), a number, a path, a MIME type, words of letters only (`production`), a URL
   * that is only an origin. Under a secret name (`DB_PASS`, `API_KEY`) only a flag's state or a
   * path stays, and a URL's password is redacted wherever it shows.
   */
  env: stringRecord().optional(),
  cwd: text().optional(),
  /** How many of the last stderr lines to keep for error messages. @default 20 */
  stderrLines: number({ integer: true }).default(20),
  /**
   * The largest message the server may send, in bytes (the SDK's read buffer): a larger answer
   * fails its call as `invalid_result`, not transient, and the connection starts again. @default 10485760
   */
  maxMessageBytes: number({ min: 1024, integer: true }).default(10 * 1024 * 1024),
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
  /**
   * Which protocol era to speak. `"auto"` asks `server/discover` first (one extra request on a
   * 2025-era server) and falls back to `initialize`; `"legacy"` runs `initialize` only;
   * `"modern"` requires 2026-07-28. A reconnect reuses the era the last connect learnt.
   * @default "auto"
   */
  era: oneOf(eras).default("auto"),
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
  /**
   * An already connected client of either SDK line (`@modelcontextprotocol/client` v2 or
   * `@modelcontextprotocol/sdk` v1). The toolkit does not close or reconnect it.
   */
  client: custom<AnyClient>("a connected MCP Client (@modelcontextprotocol/client or @modelcontextprotocol/sdk)", (v) => isObject(v) && typeof v.callTool === "function"),
  ...serverOptions,
});
export interface ClientServerConfig extends ServerOptions, Own<typeof ClientServerConfigSchema> {}

/** Every key some kind of server takes, so that a misspelt one can be named before the kind is known. */
export const SERVER_KEYS: readonly string[] = [
  ...new Set([StdioServerConfigSchema, HttpServerConfigSchema, SseServerConfigSchema, ClientServerConfigSchema].flatMap((schema) => Object.keys(schema.shape))),
];

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

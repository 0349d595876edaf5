/**
 * The one configuration schema. The public types are derived from it, `validateConfig` runs
 * it, and every default is stated once (with `.default(...)` and its `@default` tag): here for the
 * toolkit's keys, in servers.ts for a server's, in policies.ts for the policies', in toolPolicy.ts
 * for a tool policy's; the DEFAULT_* constants and the option tables in docs/ are checked against it.
 *
 * Validation never fills defaults into the user's objects: a tool's policy is resolved from
 * layers (defaults < toolkit < server < tool keys), each overriding only what it sets.
 */
import { z } from "zod";
import type { ToolkitCatalog } from "./catalog.js";
import type { AfterToolCallHook, BeforeToolCallHook } from "./interception.js";
import type { McpEventListener } from "../events.js";
import { BreakerOptionsSchema, ErrorOptionsSchema, RetryBudgetOptionsSchema, RetryOptionsSchema, ThrottleSettingSchema, type BeforeFallback } from "./policies.js";
import { ToolPolicySchema } from "./toolPolicy.js";
import { SharedStateOptionsSchema } from "./sharedState.js";
import { PromptOptionsSchema } from "./prompts.js";
import { ResourceOptionsSchema } from "./resources.js";
import { ChaosSettingSchema, chaosIssues } from "./chaos.js";
import { custom, expected, flag, fn, isObject, nearest, nonEmptyText, number, oneOf, options, text } from "./fields.js";
import { ServerConfigSchema, type ToolFilter } from "./servers.js";

export * from "./servers.js";

const serverName = z.string().regex(/^[A-Za-z0-9_.-]+$/, { error: "a server name may only hold letters, digits, '_', '-' and '.'" });

export const McpToolkitConfigSchema = options({
  /** The servers by name; a name holds letters, digits, `_`, `-` and `.`. */
  servers: z
    .record(serverName, ServerConfigSchema, { error: expected("an object of server configurations") })
    .refine((servers) => Object.keys(servers).length > 0, { error: "expected at least one server" }),
  /** Name every tool `<server>__<tool>`; clashing names get the prefix regardless. @default false */
  prefixToolNames: flag().default(false),
  /**
   * The `required` of every server that does not set its own: `"throw"` makes them required,
   * `"skip"` optional (left out when they fail to connect, and tried again in the background).
   * A server's own `required` always wins.
   * @default "throw"
   */
  onConnectionError: oneOf(["throw", "skip"]).default("throw"),
  /**
   * Names in the configuration that name nothing there is are errors: a `toolFilter` pattern that
   * matches none of its server's tools, a `tools` key whose server part names no server (`fats/*`)
   * or that matches no tool, a fallback server that lists none of the tools falling back to it, an
   * `idempotencyKey` that is no input property of its tools. `connect()` rejects with one
   * `McpConfigError` that lists them all. Otherwise each is a `warning` event.
   * @default false
   */
  strict: flag().default(false),
  /**
   * What happens to a `warning` event nobody listens for (no `onEvent`, no `toolkit.on("warning")`
   * or `on("*")`): `"print"` prints each distinct one once per toolkit, redacted, through
   * `process.emitWarning` as a `McpToolkitWarning` on Node (Bun, Deno), `console.warn` elsewhere;
   * `"silent"` drops it.
   * @default "print"
   */
  warnings: oneOf(["print", "silent"]).default("print"),
  /**
   * Decides, after each server's `toolFilter`, whether the model is offered a tool: `tool` is the
   * MCP tool as its server listed it, `serverName` the server's name. `false` hides it (it may
   * still answer as a fallback); a filter that throws hides it too.
   */
  filter: fn<ToolFilter>().optional(),
  /** How failures reach the caller. */
  errors: ErrorOptionsSchema.optional(),
  /** The retry policy for every tool, under server and tool policies. */
  retry: RetryOptionsSchema.optional(),
  /** The circuit breaker for every server, under a server's own. */
  breaker: BreakerOptionsSchema.optional(),
  /** The retry budget for every server, under a server's own. */
  retryBudget: RetryBudgetOptionsSchema.optional(),
  /** The adaptive send rate for every server (`true`, or its options), under a server's own. Off unless set. */
  throttle: ThrottleSettingSchema.optional(),
  /** Per-attempt timeout for every tool, in milliseconds, under server and tool policies. @default 30000 */
  timeoutMs: number({ min: 1 }).default(30_000),
  /**
   * The longest a whole call may take, in milliseconds, for every tool under server and tool
   * policies (see the tool policy's `deadlineMs`). Unset, each tool's is derived from its policy:
   * 105000 with every default.
   */
  deadlineMs: number({ min: 1, infinite: true }).optional(),
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
  /**
   * Faults injected at the transport for every tool, under a server's and a tool policy's own:
   * `{ rate, faults? }` (see docs/policies.md, "Chaos"). Off unless set; refused when `NODE_ENV`
   * is `production` unless `force: true`.
   */
  chaos: ChaosSettingSchema.optional(),
  /** The servers' prompts as model tools (`{ tools: true }`), under a server's own setting. Off unless set. */
  prompts: PromptOptionsSchema.optional(),
  /** Circuit and Retry-After state shared with other processes on Redis. Off unless set. */
  sharedState: SharedStateOptionsSchema.optional(),
  /**
   * A catalog from `toolkit.catalog()`: each server with a fresh entry (same version, same
   * identity, ttl not run out) is offered to the model from it, with no request at all, and
   * connects at its first call; the others connect and list as usual. See docs/catalog.md.
   */
  catalog: custom<ToolkitCatalog>("a catalog from toolkit.catalog()", isObject).optional(),
  /** Called before a fallback runs; returning `"skip"` keeps the original error. */
  beforeFallback: fn<BeforeFallback>().optional(),
  /**
   * Runs before each attempt of every tool call, inside the attempt's timeout and signal; may
   * return new `args`, HTTP `headers` for that call's requests alone, and `_meta` entries. What it
   * throws fails the call as `interceptor_error`, unsent, never retried.
   */
  beforeToolCall: fn<BeforeToolCallHook>().optional(),
  /**
   * Runs after each attempt that answered, inside the attempt's timeout and signal; may return
   * a result to use instead. What it throws fails the call as `interceptor_error` (the tool ran).
   */
  afterToolCall: fn<AfterToolCallHook>().optional(),
  /** Receives every event; a listener that throws is ignored, never breaking a call. */
  onEvent: fn<McpEventListener>().optional(),
  /**
   * Write each call's progress to a LangGraph run's custom stream (`streamMode: "custom"`) as
   * `{ event: "mcp_progress", ... }` chunks. Off by default: LangGraph gives every node a writer
   * whether the run streams `custom` or not, so a toolkit that wrote there would ask every server
   * for progress on every call inside a graph. Progress events, the run's callbacks and spans
   * hear progress whatever this says. @default false
   */
  streamProgress: flag().default(false),
  /** The resources of every server: the model's resource tools (`tools`, off unless set) and their budgets; see docs/resources-and-prompts.md. */
  resources: ResourceOptionsSchema.optional(),
  /** How this client introduces itself to servers. @default { name: "langchain-mcp-errors", version: "0.1.0" } */
  clientInfo: options({ name: nonEmptyText(), version: nonEmptyText() }).default({ name: "langchain-mcp-errors", version: "0.1.0" }),
}).superRefine(({ servers, tools, breaker, chaos }, ctx) => {
  for (const issue of chaosIssues(chaos, servers, tools)) ctx.addIssue({ code: "custom", input: undefined, ...issue });
  // Names of other servers can only be checked once every server is known.
  const isServer = (name: string) => Object.hasOwn(servers, name);
  for (const [name, server] of Object.entries(servers)) {
    // A breaker's layers merge (the toolkit's under the server's): `slowCallMs` may come from either.
    const slow = { ...breaker, ...server.breaker };
    if (slow.slowCallRate !== undefined && slow.slowCallMs === undefined) {
      const where = server.breaker?.slowCallRate !== undefined ? ["servers", name, "breaker"] : ["breaker"];
      ctx.addIssue({ code: "custom", path: [...where, "slowCallMs"], input: undefined, message: "required with slowCallRate: the duration past which a call is slow, in milliseconds" });
    }
    const path = ["servers", name, "fallback"];
    if (server.fallback === name) ctx.addIssue({ code: "custom", path, input: server.fallback, message: "a server cannot be its own fallback" });
    else if (server.fallback !== undefined && !isServer(server.fallback)) {
      ctx.addIssue({ code: "custom", path, input: server.fallback, message: noSuchServer(server.fallback, servers) });
    }
  }
  for (const [key, policy] of Object.entries(tools ?? {})) {
    if (typeof policy.fallback === "string" && !isServer(policy.fallback)) {
      ctx.addIssue({ code: "custom", path: ["tools", key, "fallback"], input: policy.fallback, message: noSuchServer(policy.fallback, servers) });
    }
  }
});

/**
 * A name that is a server name in form but not one configured: the miss is what to fix (a
 * server left out, or misspelt), not the kind of value, so name the servers there are.
 */
function noSuchServer(name: string, servers: Readonly<Record<string, unknown>>): string {
  const known = Object.keys(servers);
  // One letter from another is no likely slip when names are a letter or two long.
  const near = name.length > 2 ? nearest(name, known) : undefined;
  return `no server named '${name}' (servers: ${known.join(", ")})${near === undefined ? "" : `; did you mean '${near}'?`}`;
}

/** The whole toolkit configuration. */
export interface McpToolkitConfig extends z.input<typeof McpToolkitConfigSchema> {}

export * from "./policies.js";
export * from "./toolPolicy.js";
export * from "./sharedState.js";
export * from "./resources.js";

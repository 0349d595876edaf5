import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolError } from "./errors/McpToolError.js";
import type { CustomCodeTable } from "./errors/normalize.js";
import { isReason } from "./errors/reasons.js";
import type { McpEventListener } from "./events.js";
import type { BreakerOptions } from "./policy/CircuitBreaker.js";
import type { RetryOptions } from "./policy/RetryPolicy.js";

/** Reconnection after a closed connection, an exited process or an expired session. */
export interface ReconnectOptions {
  /** Reconnect automatically before the next call. @default true */
  enabled?: boolean;
  /** The first wait after a failed reconnect, in milliseconds. @default 100 */
  minDelayMs?: number;
  /** The longest wait between reconnect attempts, in milliseconds. @default 5000 */
  maxDelayMs?: number;
}

/** What every kind of server takes. */
export interface ServerOptions {
  /** Per-call timeout for this server's tools, in milliseconds; a tool policy may override it. */
  timeoutMs?: number;
  /** Count MCP tool annotations (`readOnlyHint`, `idempotentHint`) as true. @default false */
  trustAnnotations?: boolean;
  /** How this server's own JSON-RPC codes are read. */
  errorCodes?: CustomCodeTable;
  /** Another server to call the same tool on when this one fails transiently. */
  fallback?: string;
  retry?: RetryOptions;
  breaker?: BreakerOptions;
  reconnect?: ReconnectOptions;
  /** How long connecting (and re-connecting) may take, in milliseconds. @default 30000 */
  connectTimeoutMs?: number;
  /** Offer this server's tools to the model; false keeps it as a fallback only. @default true */
  exposeTools?: boolean;
}

export interface StdioServerConfig extends ServerOptions {
  transport: "stdio";
  command: string;
  args?: string[];
  /** Added to a safe default environment; every value is redacted from model text. */
  env?: Record<string, string>;
  cwd?: string;
  /** How many of the last stderr lines to keep for error messages. @default 20 */
  stderrLines?: number;
}

export interface HttpServerConfig extends ServerOptions {
  /** Streamable HTTP, falling back to SSE when the server only speaks SSE. */
  transport: "http";
  url: string | URL;
  /** Sent with every request; every value is redacted from model text. */
  headers?: Record<string, string>;
  authProvider?: OAuthClientProvider;
}

export interface SseServerConfig extends ServerOptions {
  transport: "sse";
  url: string | URL;
  headers?: Record<string, string>;
  authProvider?: OAuthClientProvider;
}

export interface ClientServerConfig extends ServerOptions {
  /** An already connected SDK client. The toolkit does not close or reconnect it. */
  client: Client;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig | SseServerConfig | ClientServerConfig;

/** A fallback function for one tool; its answer is what the model reads. */
export type FallbackFunction = (args: Record<string, unknown>, error: McpToolError) => Promise<string | CallToolResult>;

/** Policy for the tools a `tools` key matches. */
export interface ToolPolicy {
  retry?: RetryOptions;
  /** Per-attempt timeout, in milliseconds. */
  timeoutMs?: number;
  /** Restart the attempt's timeout whenever the server reports progress. @default false */
  resetTimeoutOnProgress?: boolean;
  /** A hard cap on one attempt even with progress; the server is sent a cancellation. */
  maxTotalTimeoutMs?: number;
  /** A server name, or a function that answers instead. */
  fallback?: string | FallbackFunction;
  /** Overrides the tool's annotations: is repeating this tool harmless? */
  idempotent?: boolean;
}

/** How failures reach the caller. */
export interface ErrorOptions {
  /** `"return"`: an error ToolMessage (or text); `"throw"`: the McpToolError itself. @default "return" */
  mode?: "return" | "throw";
  /** The longest message the model reads. @default 1000 */
  maxLength?: number;
  /** More secrets to remove from model text: exact strings or patterns. */
  redact?: (string | RegExp)[];
}

export interface McpToolkitConfig {
  servers: Record<string, ServerConfig>;
  /** Name every tool `<server>__<tool>`; clashing names get the prefix regardless. @default false */
  prefixToolNames?: boolean;
  /** `"skip"` leaves a server that fails to connect out, and tries it again later. @default "throw" */
  onConnectionError?: "throw" | "skip";
  errors?: ErrorOptions;
  /** The retry policy for every tool, under server and tool policies. */
  retry?: RetryOptions;
  /** The circuit breaker for every server, under a server's own. */
  breaker?: BreakerOptions;
  /** Per-attempt timeout for every tool, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /**
   * Per-tool policies. A key is the exposed tool name, `<server>/<tool>`, or a glob with `*`
   * over either form. Every matching key applies, the more specific over the less.
   */
  tools?: Record<string, ToolPolicy>;
  /** Called before a fallback runs; returning `"skip"` keeps the original error. */
  beforeFallback?: (toolName: string, args: Record<string, unknown>, error: McpToolError) => "skip" | void | Promise<"skip" | void>;
  onEvent?: McpEventListener;
  /** How this client introduces itself to servers. @default { name: "langchain-mcp-errors", version: "0.1.0" } */
  clientInfo?: { name: string; version: string };
}

/** @default 30000 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Thrown by `McpToolkit.connect` for configuration that cannot work; the message names the field. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid MCP toolkit configuration: ${field}: ${problem}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function check(ok: boolean, field: string, problem: string): void {
  if (!ok) throw new McpConfigError(field, problem);
}

function optionalNumber(value: unknown, field: string, { min = 0, integer = false, infinite = false } = {}): void {
  if (value === undefined) return;
  const ok = typeof value === "number" && !Number.isNaN(value) && value >= min && (infinite || Number.isFinite(value)) && (!integer || Number.isInteger(value) || value === Infinity);
  check(ok, field, `expected ${integer ? "a whole number" : "a number"} ≥ ${min}, got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return Array.isArray(value) ? "an array" : value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}

function stringRecord(value: unknown, field: string): void {
  if (value === undefined) return;
  check(isObject(value), field, `expected an object of strings, got ${describe(value)}`);
  for (const [k, v] of Object.entries(value as object)) check(typeof v === "string", `${field}.${k}`, `expected a string, got ${describe(v)}`);
}

function validateRetry(value: unknown, field: string): void {
  if (value === undefined) return;
  check(isObject(value), field, `expected an object, got ${describe(value)}`);
  const r = value as Record<string, unknown>;
  optionalNumber(r.retries, `${field}.retries`, { integer: true, infinite: true });
  optionalNumber(r.minTimeout, `${field}.minTimeout`);
  optionalNumber(r.maxTimeout, `${field}.maxTimeout`, { infinite: true });
  optionalNumber(r.factor, `${field}.factor`);
  optionalNumber(r.maxRetryTime, `${field}.maxRetryTime`, { infinite: true });
  if (r.randomize !== undefined) check(typeof r.randomize === "boolean", `${field}.randomize`, "expected true or false");
  if (r.retryUnknownOutcome !== undefined) {
    check([true, false, "idempotent"].includes(r.retryUnknownOutcome as never), `${field}.retryUnknownOutcome`, `expected "idempotent", true or false, got ${describe(r.retryUnknownOutcome)}`);
  }
  if (r.shouldRetry !== undefined) check(typeof r.shouldRetry === "function", `${field}.shouldRetry`, "expected a function");
  if (r.retryOnToolError !== undefined) {
    check(r.retryOnToolError instanceof RegExp || typeof r.retryOnToolError === "function", `${field}.retryOnToolError`, "expected a RegExp or a function");
  }
  if (typeof r.minTimeout === "number" && typeof r.maxTimeout === "number") {
    check(r.minTimeout <= r.maxTimeout, `${field}.minTimeout`, `must not exceed maxTimeout (${r.maxTimeout})`);
  }
}

function validateBreaker(value: unknown, field: string): void {
  if (value === undefined) return;
  check(isObject(value), field, `expected an object, got ${describe(value)}`);
  const b = value as Record<string, unknown>;
  optionalNumber(b.failureThreshold, `${field}.failureThreshold`, { min: 1, integer: true });
  optionalNumber(b.halfOpenAfterMs, `${field}.halfOpenAfterMs`);
  if (b.enabled !== undefined) check(typeof b.enabled === "boolean", `${field}.enabled`, "expected true or false");
}

function validateUrl(value: unknown, field: string): void {
  check(typeof value === "string" || value instanceof URL, field, `expected a URL, got ${describe(value)}`);
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new McpConfigError(field, `not a valid URL: ${describe(value)}`);
  }
  check(url.protocol === "http:" || url.protocol === "https:", field, `expected an http: or https: URL, got ${url.protocol}`);
}

function validateServer(name: string, value: unknown, all: Record<string, unknown>): void {
  const field = `servers.${name}`;
  check(isObject(value), field, `expected an object, got ${describe(value)}`);
  const s = value as Record<string, unknown>;
  if ("client" in s) {
    const client = s.client as { callTool?: unknown } | undefined;
    check(typeof client?.callTool === "function", `${field}.client`, "expected a connected @modelcontextprotocol/sdk Client");
  } else {
    check(["stdio", "http", "sse"].includes(s.transport as string), `${field}.transport`, `expected "stdio", "http" or "sse" (or a "client"), got ${describe(s.transport)}`);
    if (s.transport === "stdio") {
      check(typeof s.command === "string" && s.command.trim() !== "", `${field}.command`, `expected a non-empty string, got ${describe(s.command)}`);
      if (s.args !== undefined) {
        check(Array.isArray(s.args), `${field}.args`, `expected an array of strings, got ${describe(s.args)}`);
        (s.args as unknown[]).forEach((a, i) => check(typeof a === "string", `${field}.args[${i}]`, `expected a string, got ${describe(a)}`));
      }
      stringRecord(s.env, `${field}.env`);
      if (s.cwd !== undefined) check(typeof s.cwd === "string", `${field}.cwd`, "expected a string");
      optionalNumber(s.stderrLines, `${field}.stderrLines`, { integer: true });
    } else {
      validateUrl(s.url, `${field}.url`);
      stringRecord(s.headers, `${field}.headers`);
    }
  }
  optionalNumber(s.timeoutMs, `${field}.timeoutMs`, { min: 1 });
  optionalNumber(s.connectTimeoutMs, `${field}.connectTimeoutMs`, { min: 1 });
  if (s.exposeTools !== undefined) check(typeof s.exposeTools === "boolean", `${field}.exposeTools`, "expected true or false");
  if (s.trustAnnotations !== undefined) check(typeof s.trustAnnotations === "boolean", `${field}.trustAnnotations`, "expected true or false");
  if (s.fallback !== undefined) {
    check(typeof s.fallback === "string" && s.fallback in all, `${field}.fallback`, `expected the name of another server, got ${describe(s.fallback)}`);
    check(s.fallback !== name, `${field}.fallback`, "a server cannot be its own fallback");
  }
  if (s.errorCodes !== undefined) {
    check(isObject(s.errorCodes), `${field}.errorCodes`, "expected an object mapping codes to { reason, transient? }");
    for (const [code, rule] of Object.entries(s.errorCodes as object)) {
      const f = `${field}.errorCodes.${code}`;
      check(Number.isInteger(Number(code)), f, "the key must be an integer JSON-RPC code");
      check(isObject(rule) && isReason(rule.reason), `${f}.reason`, `expected a known reason, got ${describe((rule as { reason?: unknown })?.reason)}`);
      if ((rule as { transient?: unknown }).transient !== undefined) check(typeof (rule as { transient?: unknown }).transient === "boolean", `${f}.transient`, "expected true or false");
    }
  }
  validateRetry(s.retry, `${field}.retry`);
  validateBreaker(s.breaker, `${field}.breaker`);
  if (s.reconnect !== undefined) {
    check(isObject(s.reconnect), `${field}.reconnect`, "expected an object");
    const r = s.reconnect as Record<string, unknown>;
    optionalNumber(r.minDelayMs, `${field}.reconnect.minDelayMs`);
    optionalNumber(r.maxDelayMs, `${field}.reconnect.maxDelayMs`);
  }
}

/** Rejects configuration that cannot work, naming the field. */
export function validateConfig(config: unknown): asserts config is McpToolkitConfig {
  check(isObject(config), "config", `expected an object, got ${describe(config)}`);
  const c = config as Record<string, unknown>;
  check(isObject(c.servers), "servers", `expected an object of server configurations, got ${describe(c.servers)}`);
  const servers = c.servers as Record<string, unknown>;
  check(Object.keys(servers).length > 0, "servers", "expected at least one server");
  for (const [name, server] of Object.entries(servers)) {
    check(/^[A-Za-z0-9_.-]+$/.test(name), `servers.${name}`, "a server name may only hold letters, digits, '_', '-' and '.'");
    validateServer(name, server, servers);
  }
  if (c.onConnectionError !== undefined) check(c.onConnectionError === "throw" || c.onConnectionError === "skip", "onConnectionError", `expected "throw" or "skip", got ${describe(c.onConnectionError)}`);
  if (c.prefixToolNames !== undefined) check(typeof c.prefixToolNames === "boolean", "prefixToolNames", "expected true or false");
  optionalNumber(c.timeoutMs, "timeoutMs", { min: 1 });
  validateRetry(c.retry, "retry");
  validateBreaker(c.breaker, "breaker");
  if (c.errors !== undefined) {
    check(isObject(c.errors), "errors", "expected an object");
    const e = c.errors as Record<string, unknown>;
    if (e.mode !== undefined) check(e.mode === "return" || e.mode === "throw", "errors.mode", `expected "return" or "throw", got ${describe(e.mode)}`);
    optionalNumber(e.maxLength, "errors.maxLength", { min: 20, integer: true });
    if (e.redact !== undefined) {
      check(Array.isArray(e.redact), "errors.redact", "expected an array of strings or RegExps");
      (e.redact as unknown[]).forEach((p, i) => check(typeof p === "string" || p instanceof RegExp, `errors.redact[${i}]`, "expected a string or a RegExp"));
    }
  }
  if (c.tools !== undefined) {
    check(isObject(c.tools), "tools", "expected an object of tool policies");
    for (const [key, policy] of Object.entries(c.tools as object)) {
      const f = `tools.${key}`;
      check(isObject(policy), f, "expected an object");
      const p = policy as Record<string, unknown>;
      validateRetry(p.retry, `${f}.retry`);
      optionalNumber(p.timeoutMs, `${f}.timeoutMs`, { min: 1 });
      optionalNumber(p.maxTotalTimeoutMs, `${f}.maxTotalTimeoutMs`, { min: 1 });
      if (p.idempotent !== undefined) check(typeof p.idempotent === "boolean", `${f}.idempotent`, "expected true or false");
      if (p.resetTimeoutOnProgress !== undefined) check(typeof p.resetTimeoutOnProgress === "boolean", `${f}.resetTimeoutOnProgress`, "expected true or false");
      if (p.fallback !== undefined) {
        check(typeof p.fallback === "function" || (typeof p.fallback === "string" && p.fallback in servers), `${f}.fallback`, `expected a server name or a function, got ${describe(p.fallback)}`);
      }
    }
  }
  for (const fn of ["onEvent", "beforeFallback"] as const) {
    if (c[fn] !== undefined) check(typeof c[fn] === "function", fn, "expected a function");
  }
}

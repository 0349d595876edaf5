import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  BreakerOptionsSchema,
  ClientServerConfigSchema,
  DEFAULT_BREAKER,
  DEFAULT_CLIENT_INFO,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_ERROR_OPTIONS,
  DEFAULT_MAX_LENGTH,
  DEFAULT_RECONNECT,
  DEFAULT_RETRY,
  DEFAULT_SERVER_OPTIONS,
  DEFAULT_STDERR_LINES,
  DEFAULT_THROTTLE,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TOOL_POLICY,
  DEFAULT_TOOLKIT_OPTIONS,
  defaultsOf,
  ErrorOptionsSchema,
  HttpServerConfigSchema,
  McpConfigError,
  McpToolkitConfigSchema,
  ReconnectOptionsSchema,
  RetryOptionsSchema,
  ServerOptionsSchema,
  SseServerConfigSchema,
  StdioServerConfigSchema,
  ThrottleOptionsSchema,
  ToolPolicySchema,
  validateConfig,
  type McpToolkitConfig,
  type RetryOptions,
  type ServerConfig,
} from "../../src/config/index.js";
import { literal } from "./literal.js";

const stdio = { transport: "stdio" as const, command: "mcp-files" };
const client = { callTool: async () => ({ content: [] }) };

/** The field and message `validateConfig` rejects `config` with. */
function rejection(config: unknown): { field: string; message: string } {
  try {
    validateConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return { field: (error as McpConfigError).field, message: (error as Error).message };
  }
  throw new Error("the configuration was accepted");
}

describe("the defaults", () => {
  it("are the documented ones", () => {
    expect(DEFAULT_RETRY).toEqual({
      retries: 2,
      minTimeout: 200,
      maxTimeout: 5000,
      maxRetryAfterMs: 60_000,
      factor: 2,
      randomize: true,
      maxRetryTime: Number.POSITIVE_INFINITY,
      retryUnknownOutcome: "idempotent",
    });
    expect(DEFAULT_BREAKER).toEqual({ failureThreshold: 5, minimumCalls: 10, window: { calls: 20 }, halfOpenAfterMs: 30_000, initialHalfOpenAfterMs: 100, halfOpenJitter: 0.2, recoveryPingMs: 1000, enabled: true });
    expect(DEFAULT_RECONNECT).toEqual({ enabled: true, minDelayMs: 100, maxDelayMs: 5000 });
    expect(DEFAULT_THROTTLE).toEqual({ beta: 0.7, scale: 0.4, minRate: 0.5, enabled: true });
    expect(DEFAULT_SERVER_OPTIONS).toEqual({ trustAnnotations: false, connectTimeoutMs: 30_000, exposeTools: true, required: true, maxInputRounds: 3, catalogTtlMs: 0, catalogMaxAgeMs: 3_600_000 });
    expect(DEFAULT_TOOL_POLICY).toEqual({ resetTimeoutOnProgress: false, coalesce: false, task: "auto", redactResults: true, minAttemptMs: 100 });
    expect(DEFAULT_ERROR_OPTIONS).toEqual({ mode: "return", maxLength: 1000 });
    expect(DEFAULT_TOOLKIT_OPTIONS).toEqual({
      prefixToolNames: false,
      onConnectionError: "throw",
      strict: false,
      warnings: "print",
      timeoutMs: 30_000,
      maxResultLength: 100_000,
      streamProgress: false,
      clientInfo: { name: "langchain-mcp-errors", version: "0.1.0" },
    });
    expect([DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_STDERR_LINES, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_LENGTH]).toEqual([30_000, 20, 30_000, 1000]);
    expect(DEFAULT_CLIENT_INFO).toEqual({ name: "langchain-mcp-errors", version: "0.1.0" });
  });

  it("are frozen", () => {
    for (const value of [DEFAULT_RETRY, DEFAULT_BREAKER, DEFAULT_RECONNECT, DEFAULT_CLIENT_INFO, DEFAULT_TOOLKIT_OPTIONS]) expect(Object.isFrozen(value)).toBe(true);
  });

  it("match the @default tag of every field in the TSDoc of the derived types", () => {
    const file = fileURLToPath(new URL("../../src/config/index.ts", import.meta.url));
    const program = ts.createProgram([file], { strict: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
    const checker = program.getTypeChecker();
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
    const schemas: Record<string, { shape: Record<string, z.ZodType> }> = {
      RetryOptions: RetryOptionsSchema.out,
      BreakerOptions: BreakerOptionsSchema,
      ReconnectOptions: ReconnectOptionsSchema,
      ThrottleOptions: ThrottleOptionsSchema,
      ServerOptions: ServerOptionsSchema,
      StdioServerConfig: StdioServerConfigSchema,
      HttpServerConfig: HttpServerConfigSchema,
      SseServerConfig: SseServerConfigSchema,
      ClientServerConfig: ClientServerConfigSchema,
      ToolPolicy: ToolPolicySchema,
      ErrorOptions: ErrorOptionsSchema,
      McpToolkitConfig: McpToolkitConfigSchema,
    };
    for (const [name, schema] of Object.entries(schemas)) {
      const symbol = exports.find((s) => s.name === name);
      expect(symbol, name).toBeDefined();
      const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol!));
      const tags = Object.fromEntries(
        checker.getPropertiesOfType(type).map((p) => [p.name, p.getJsDocTags(checker).find((t) => t.name === "default")?.text?.map((t) => t.text).join("")]),
      );
      expect(Object.keys(tags).sort(), name).toEqual(Object.keys(schema.shape).sort());
      const defaults: Record<string, unknown> = defaultsOf(schema);
      for (const key of Object.keys(schema.shape)) {
        expect(tags[key], `${name}.${key}`).toBe(Object.hasOwn(defaults, key) ? literal(defaults[key]) : undefined);
      }
    }
  }, 30_000);
});

describe("validateConfig", () => {
  it("accepts a configuration that sets every option, and leaves it as it was", () => {
    const onEvent = () => {};
    const fallback = async () => "cached";
    const config: McpToolkitConfig = {
      servers: {
        files: { ...stdio, args: ["--root", "/tmp"], env: { TOKEN: "x" }, cwd: "/", stderrLines: 5, timeoutMs: 1000, trustAnnotations: true, exposeTools: true },
        web: {
          transport: "http",
          url: new URL("https://example.com/mcp"),
          headers: { authorization: "Bearer x" },
          errorCodes: { [-32003]: { reason: "rate_limited", transient: true } },
          fallback: "mirror",
          retry: { retries: 4 },
          breaker: { failureThreshold: 2, halfOpenAfterMs: 1000, enabled: true },
          reconnect: { enabled: true, minDelayMs: 0, maxDelayMs: 100 },
          connectTimeoutMs: 500,
        },
        mirror: { transport: "sse", url: "http://127.0.0.1:1/sse", exposeTools: false },
        memory: { client: client as never },
      },
      prefixToolNames: true,
      onConnectionError: "skip",
      errors: { mode: "throw", maxLength: 500, redact: ["secret", /acct-\d+/] },
      retry: {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 10,
        maxTimeout: 100,
        factor: 1.5,
        randomize: false,
        maxRetryTime: 10_000,
        retryUnknownOutcome: true,
        shouldRetry: () => false,
        retryOnToolError: /busy/,
      },
      breaker: { enabled: false },
      timeoutMs: 2000,
      tools: { "web/*": { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 1000, idempotent: true, fallback, retry: { retries: 0 } }, search: { fallback: "mirror" } },
      beforeFallback: () => "skip",
      onEvent,
      clientInfo: { name: "my-agent", version: "2.0.0" },
    };
    const before = JSON.stringify(config);
    expect(() => validateConfig(config)).not.toThrow();
    expect(JSON.stringify(config)).toBe(before);
    expect(config.onEvent).toBe(onEvent);
    expect(config.tools!["web/*"]!.fallback).toBe(fallback);
  });

  it("takes throttle as true, false or its options, per server and for the toolkit", () => {
    expect(() => validateConfig({ servers: { a: { ...stdio, throttle: true }, b: { ...stdio, throttle: { beta: 0.5, scale: 1, minRate: 2 } } }, throttle: { enabled: false } })).not.toThrow();
    expect(rejection({ servers: { a: { ...stdio, throttle: { beta: 2 } } } }).field).toBe("servers.a.throttle.beta");
  });

  it("fills no defaults into the caller's layers", () => {
    const config = { servers: { a: { ...stdio, retry: { retries: 1 } } }, retry: {}, tools: { x: {} } };
    validateConfig(config);
    expect(config).toEqual({ servers: { a: { ...stdio, retry: { retries: 1 } } }, retry: {}, tools: { x: {} } });
  });

  it.each([
    [{ servers: { a: stdio }, timeoutMS: 5 }, "timeoutMS", 'unknown option; did you mean "timeoutMs"?'],
    [{ servers: { a: stdio }, tools: { search: { timeoutMS: 5 } } }, "tools.search.timeoutMS", 'unknown option; did you mean "timeoutMs"?'],
    [{ servers: { a: { client, timeout: 5 } } }, "servers.a.timeout", 'unknown option; did you mean "timeoutMs"?'],
    [{ servers: { a: { ...stdio, reconnect: { enable: false } } } }, "servers.a.reconnect.enable", 'unknown option; did you mean "enabled"?'],
    [{ servers: { a: stdio }, retry: { jitter: true } }, "retry.jitter", "unknown option; expected one of retries, minTimeout"],
    // A misspelt required key is named, not the key it left missing.
    [{ servers: { a: { transport: "stdio", comand: "mcp-files" } } }, "servers.a.comand", 'unknown option; did you mean "command"?'],
    [{ servers: { a: { transprt: "stdio", command: "mcp-files" } } }, "servers.a.transprt", 'unknown option; did you mean "transport"?'],
    [{ servers: { a: { transport: "http", ulr: "https://x/mcp" } } }, "servers.a.ulr", 'unknown option; did you mean "url"?'],
    [{ sevrers: { a: stdio } }, "sevrers", 'unknown option; did you mean "servers"?'],
    [{ servers: { a: stdio }, clientInfo: { nmae: "x", version: "1" } }, "clientInfo.nmae", 'unknown option; did you mean "name"?'],
    // Every level of a server entry, within two edits (a swap of neighbours counts as one).
    [{ servers: { a: { ...stdio, timoutMs: 5 } } }, "servers.a.timoutMs", 'unknown option; did you mean "timeoutMs"?'],
    [{ servers: { a: { ...stdio, evn: {} } } }, "servers.a.evn", 'unknown option; did you mean "env"?'],
    [{ servers: { a: { transport: "http", url: "https://x/mcp", headres: {} } } }, "servers.a.headres", 'unknown option; did you mean "headers"?'],
    [{ servers: { a: { ...stdio, reconect: {} } } }, "servers.a.reconect", 'unknown option; did you mean "reconnect"?'],
    [{ servers: { a: { ...stdio, retry: { retrys: 1 } } } }, "servers.a.retry.retrys", 'unknown option; did you mean "retries"?'],
    [{ servers: { a: { ...stdio, breaker: { failureTreshold: 1 } } } }, "servers.a.breaker.failureTreshold", 'unknown option; did you mean "failureThreshold"?'],
    [{ servers: { a: { ...stdio, errorCodes: { [-32003]: { reason: "rate_limited", transiet: true } } } } }, "servers.a.errorCodes.-32003.transiet", 'unknown option; did you mean "transient"?'],
    [{ servers: { a: { client, exposeTool: false } } }, "servers.a.exposeTool", 'unknown option; did you mean "exposeTools"?'],
    [{ servers: { a: stdio }, tools: { x: { retyr: {} } } }, "tools.x.retyr", 'unknown option; did you mean "retry"?'],
    [{ servers: { a: stdio }, errors: { mdoe: "throw" } }, "errors.mdoe", 'unknown option; did you mean "mode"?'],
    [{ servers: { a: { ...stdio, throttle: { bta: 0.5 } } } }, "servers.a.throttle.bta", 'unknown option; did you mean "beta"?'],
    // A short key is allowed one edit: `env` on an HTTP server is not a misspelt `era`.
    [{ servers: { a: { transport: "http", url: "https://x/mcp", env: {} } } }, "servers.a.env", "unknown option; expected one of transport, era, url"],
  ])("names an unknown option: %j", (config, field, problem) => {
    const { field: named, message } = rejection(config);
    expect(named).toBe(field);
    expect(message).toContain(`${field}: ${problem}`);
  });

  it("rejects unknown keys in every object of the schema, however deep", () => {
    // A loose object would drop a misspelt option without a word; each one must be `options(...)`.
    const objects: string[] = [];
    const seen = new Set<unknown>();
    const walk = (schema: z.core.$ZodType, path: string): void => {
      if (seen.has(schema)) return;
      seen.add(schema);
      const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
      if (def.type === "object") {
        const { shape, catchall } = def as unknown as { shape: Record<string, z.core.$ZodType>; catchall?: z.core.$ZodType };
        objects.push(`${path}: ${catchall?._zod.def.type ?? "loose"}`);
        for (const [key, field] of Object.entries(shape)) walk(field, `${path}.${key}`);
        return;
      }
      for (const key of ["innerType", "in", "out", "valueType", "element"]) if (def[key]) walk(def[key] as z.core.$ZodType, path);
      for (const option of (def.options as z.core.$ZodType[] | undefined) ?? []) walk(option, path);
    };
    walk(McpToolkitConfigSchema, "config");
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.filter((o) => !o.endsWith(": never"))).toEqual([]);
  });

  it.each([
    [{ servers: { a: {} } }, "servers.a.transport", 'expected "stdio", "http" or "sse" (or a "client"), got undefined'],
    [{ servers: { a: { command: "x" } } }, "servers.a.transport", 'expected "stdio", "http" or "sse" (or a "client"), got undefined'],
    [{ servers: { a: { client: {} } } }, "servers.a.client", "expected a connected MCP Client (@modelcontextprotocol/client or @modelcontextprotocol/sdk), got an object"],
    [{ servers: { a: { ...stdio, command: 5 } } }, "servers.a.command", "expected a non-empty string, got 5"],
    [{ servers: { a: { ...stdio, args: ["x", 3] } } }, "servers.a.args[1]", "expected a string, got 3"],
    [{ servers: { "a b": stdio } }, "servers.a b", "a server name may only hold letters, digits, '_', '-' and '.'"],
    [{ servers: { a: { ...stdio, fallback: "a" } } }, "servers.a.fallback", "a server cannot be its own fallback"],
    [{ servers: { a: { ...stdio, errorCodes: { busy: { reason: "rate_limited" } } } } }, "servers.a.errorCodes.busy", "the key must be an integer JSON-RPC code"],
    [{ servers: { a: { transport: "http", url: "ftp://x" } } }, "servers.a.url", "expected an http: or https: URL, got ftp:"],
    [{ servers: { a: stdio }, retry: { minTimeout: 10, maxTimeout: 5 } }, "retry.minTimeout", "must not exceed maxTimeout (5)"],
    [{ servers: { a: stdio }, tools: { x: { retry: { minTimeout: 10, maxTimeout: 5 } } } }, "tools.x.retry.minTimeout", "must not exceed maxTimeout (5)"],
    [{ servers: { a: stdio }, errors: { maxLength: 10 } }, "errors.maxLength", "expected a whole number ≥ 20, got 10"],
    [{ servers: { a: stdio }, errors: { redact: [3] } }, "errors.redact[0]", "expected a string or a RegExp, got 3"],
    [{ servers: { a: stdio }, tools: { x: { fallback: "b" } } }, "tools.x.fallback", "no server named 'b' (servers: a)"],
    [{ servers: { a: { ...stdio, fallback: "b" } } }, "servers.a.fallback", "no server named 'b' (servers: a)"],
    [{ servers: { a: stdio }, timeoutMs: Number.POSITIVE_INFINITY }, "timeoutMs", "expected a number ≥ 1, got Infinity"],
    [{ servers: { a: stdio }, clientInfo: { name: "x" } }, "clientInfo.version", "expected a non-empty string, got undefined"],
    [5, "config", "expected an object, got 5"],
  ])("names the field of the first problem: %j", (config, field, problem) => {
    expect(rejection(config)).toEqual({ field, message: `Invalid MCP toolkit configuration: ${field}: ${problem}` });
  });

  it("checks minTimeout against maxTimeout only where one layer sets both", () => {
    expect(() => validateConfig({ servers: { a: stdio }, retry: { maxTimeout: 60_000 }, tools: { x: { retry: { minTimeout: 10_000 } } } })).not.toThrow();
  });
});

describe("the derived types", () => {
  it("reject a misspelt or mistyped field at compile time", () => {
    // @ts-expect-error `timeoutMS` is not an option
    const misspelt: McpToolkitConfig = { servers: { a: stdio }, timeoutMS: 5 };
    // @ts-expect-error `retries` is a number
    const mistyped: RetryOptions = { retries: "2" };
    // @ts-expect-error a stdio server needs a command
    const incomplete: ServerConfig = { transport: "stdio" };
    // @ts-expect-error no such transport
    const unknownKind: ServerConfig = { transport: "carrier-pigeon", command: "x" };
    // @ts-expect-error retryUnknownOutcome is "idempotent" or a boolean
    const outcome: RetryOptions = { retryUnknownOutcome: "always" };
    const fine: McpToolkitConfig = { servers: { a: stdio, b: { client: client as never } }, tools: { x: { fallback: async () => "ok" } } };
    expect([misspelt, mistyped, incomplete, unknownKind, outcome, fine]).toHaveLength(6);
  });
});

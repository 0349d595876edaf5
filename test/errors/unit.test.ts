/**
 * HAND-BUILT ERRORS. Everything in this file is constructed by hand, in the shape Node, undici,
 * the `eventsource` package or the SDK give it, because it cannot be produced for real on a
 * loopback-only machine (or, for the OAuth classes, because the SDK only throws them inside a
 * server's middleware, where the client never sees the object). The e2e files produce the rest.
 */
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { InsufficientScopeError, InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { expectClassified } from "./helpers.js";

/** Node's system error, as `dns` or `net` builds it. */
function systemError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

/** Node's fetch wraps every network failure as TypeError('fetch failed') with the real error as cause. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

describe("hand-built: DNS and connect failures a loopback-only machine cannot produce", () => {
  it("classifies fetch failed with cause EAI_AGAIN (a resolver that did not answer) as dns_failure, transient", () => {
    const cause = systemError("getaddrinfo EAI_AGAIN mcp.example.com", { errno: -3001, code: "EAI_AGAIN", syscall: "getaddrinfo", hostname: "mcp.example.com" });
    const error = fetchFailed(cause);
    expectClassified(normalize(error), { reason: "dns_failure", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("classifies fetch failed with cause ETIMEDOUT (the kernel gave up on the SYN) as network_timeout", () => {
    const cause = systemError("connect ETIMEDOUT 10.0.0.1:443", { errno: -110, code: "ETIMEDOUT", syscall: "connect", address: "10.0.0.1", port: 443 });
    const error = fetchFailed(cause);
    expectClassified(normalize(error), { reason: "network_timeout", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("classifies a read ETIMEDOUT (the kernel gave up on a request it wrote) as connection_reset, outcome unknown: it may have arrived", () => {
    const cause = systemError("read ETIMEDOUT", { errno: -110, code: "ETIMEDOUT", syscall: "read" });
    const error = fetchFailed(cause);
    const e = expectClassified(normalize(error, { url: "https://mcp.example.com/mcp" }), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
    expect(e.message).toBe("The connection to the server at https://mcp.example.com/mcp timed out after the request was written (read ETIMEDOUT); the server may have received it.");
  });

  it.each<[string, { code: string; syscall?: string }]>([
    ["a write ETIMEDOUT", { code: "ETIMEDOUT", syscall: "write" }],
    ["an ETIMEDOUT without a syscall", { code: "ETIMEDOUT" }],
    ["a read EHOSTUNREACH", { code: "EHOSTUNREACH", syscall: "read" }],
    ["an ENETUNREACH without a syscall", { code: "ENETUNREACH" }],
  ])("classifies %s as connection_reset, outcome unknown: nothing proves the request did not leave", (_, fields) => {
    const error = fetchFailed(systemError(`${fields.syscall ?? ""} ${fields.code}`.trim(), fields));
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
    // The caller that knows the request was never written says so.
    expect(normalize(error, { notSent: true }).outcome).toBe("not_sent");
  });

  it("classifies a TLS socket closed during the handshake (ECONNRESET before the secure connection) as not sent", () => {
    const cause = systemError("Client network socket disconnected before secure TLS connection was established", { code: "ECONNRESET", host: "mcp.example.com", port: 443 });
    const error = fetchFailed(cause);
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("classifies fetch failed with cause UND_ERR_CONNECT_TIMEOUT as network_timeout (fast twin of the 10 s e2e test)", () => {
    const cause = Object.assign(new Error("Connect Timeout Error (attempted address: mcp.example.com:443, timeout: 10000ms)"), {
      name: "ConnectTimeoutError",
      code: "UND_ERR_CONNECT_TIMEOUT",
    });
    const error = fetchFailed(cause);
    expectClassified(normalize(error), { reason: "network_timeout", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("finds ECONNREFUSED inside the AggregateError Node's happy-eyeballs connect gives (IPv6 and IPv4 both refused)", () => {
    const v6 = systemError("connect ECONNREFUSED ::1:8080", { code: "ECONNREFUSED", syscall: "connect", address: "::1", port: 8080 });
    const v4 = systemError("connect ECONNREFUSED 127.0.0.1:8080", { code: "ECONNREFUSED", syscall: "connect", address: "127.0.0.1", port: 8080 });
    const error = fetchFailed(new AggregateError([v6, v4]));
    expectClassified(normalize(error), { reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("looks past a Node ERR_* code to the system error in its cause", () => {
    const cause = systemError("read ECONNRESET", { errno: -104, code: "ECONNRESET", syscall: "read" });
    const error = Object.assign(new Error("Premature close", { cause }), { code: "ERR_STREAM_PREMATURE_CLOSE" });
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
  });

  it("classifies EPIPE on a request known not to have been written (context notSent) as connection_reset, not sent", () => {
    const error = systemError("write EPIPE", { errno: -32, code: "EPIPE", syscall: "write" });
    expectClassified(normalize(error, { notSent: true }), { reason: "connection_reset", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });
});

describe("hand-built: SseError texts from `eventsource` that the e2e tests cannot reach", () => {
  const sseError = (message: string) => new SseError(undefined, message, undefined as never);

  it("reads EAI_AGAIN flattened into an SseError's text as dns_failure, transient", () => {
    const error = sseError("TypeError: fetch failed: getaddrinfo EAI_AGAIN mcp.example.com");
    expectClassified(normalize(error), { reason: "dns_failure", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("reads ETIMEDOUT flattened into an SseError's text as network_timeout", () => {
    const error = sseError("TypeError: fetch failed: connect ETIMEDOUT 10.0.0.1:443");
    expectClassified(normalize(error), { reason: "network_timeout", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("reads a read ETIMEDOUT flattened into an SseError's text as connection_reset, outcome unknown", () => {
    const error = sseError("TypeError: fetch failed: read ETIMEDOUT");
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
  });

  it("reads a stream that broke mid-way ('terminated: other side closed', no code in the text) as stream_error", () => {
    const error = sseError("TypeError: terminated: other side closed");
    expectClassified(normalize(error), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" }, error);
  });
});

describe("hand-built: OAuth error classes (thrown inside the server's bearer middleware; the client sees only 401/403)", () => {
  it("classifies an InvalidTokenError (errorCode invalid_token) as unauthorized", () => {
    const error = new InvalidTokenError("Token has expired");
    expect(error.errorCode).toBe("invalid_token");
    expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent" }, error);
  });

  it("classifies an InsufficientScopeError (errorCode insufficient_scope) as forbidden", () => {
    const error = new InsufficientScopeError("Insufficient scope");
    expect(error.errorCode).toBe("insufficient_scope");
    expectClassified(normalize(error), { reason: "forbidden", kind: "transport", transient: false, outcome: "not_sent" }, error);
  });

  it("classifies UnauthorizedError with its default message as unauthorized", () => {
    const error = new UnauthorizedError();
    expect(error.message).toBe("Unauthorized");
    expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent" }, error);
  });

  it("leaves an OAuth error the taxonomy does not name (invalid_grant) as unknown", () => {
    const error = new InvalidGrantError("Refresh token expired");
    expectClassified(normalize(error), { reason: "unknown", kind: "client", transient: false, outcome: "unknown" }, error);
  });
});

describe("hand-built: errors from a second copy of the SDK (instanceof fails, name and shape remain)", () => {
  it("reads an McpError by its name and numeric code", () => {
    const error = Object.assign(new Error("MCP error -32602: MCP error -32602: bad argument"), { name: "McpError", code: -32602 });
    expectClassified(normalize(error), { reason: "invalid_params", kind: "protocol", transient: false, outcome: "not_sent", code: -32602 }, error);
  });

  it("reads a StreamableHTTPError by its message prefix and numeric code", () => {
    const error = Object.assign(new Error("Streamable HTTP error: Error POSTing to endpoint: busy"), { code: 503 });
    expectClassified(normalize(error), { reason: "service_unavailable", kind: "transport", transient: true, outcome: "not_sent", status: 503 }, error);
  });
});

describe("McpToolError", () => {
  it("passes through normalize unchanged", () => {
    const error = McpToolError.of("circuit_open", "open");
    expect(normalize(error, { aborted: true })).toBe(error);
  });
});

describe("McpToolError as a value", () => {
  it("makes a new error for new context, never changing the one it copies", () => {
    const error = McpToolError.of("tool_error", "boom", { toolName: "a" });
    const copy = error.with({ toolName: "b", attempts: 2, message: "boom, again" });
    expect([error.toolName, error.attempts, error.message]).toEqual(["a", 1, "boom"]);
    expect([copy.toolName, copy.attempts, copy.message]).toEqual(["b", 2, "boom, again"]);
    expect(copy.cause).toBe(error.cause);
  });

  it("gives a copy the frames of the error it copies, under its own message", () => {
    const error = McpToolError.of("request_timeout", "boom");
    const copy = error.with({ message: "boom, again" });
    const [head, ...frames] = copy.stack!.split("\n");
    expect(head).toBe("McpToolError: boom, again");
    expect(frames.length).toBeGreaterThan(0);
    expect(frames).toEqual(error.stack!.split("\n").filter((l) => /^\s+at /.test(l)));
  });

  it("captures frames only where no cause holds them and the failure is no tool's answer", () => {
    const frames = (e: Error) => e.stack!.split("\n").filter((l) => /^\s+at /.test(l)).length;
    const cause = new Error("socket hang up");
    expect(frames(McpToolError.of("request_timeout", "no answer"))).toBeGreaterThan(0);
    const wrapped = McpToolError.of("connection_reset", "socket hang up", { cause });
    const answered = McpToolError.of("tool_error", "quota exceeded");
    expect([wrapped.stack, answered.stack]).toEqual(["McpToolError: socket hang up", "McpToolError: quota exceeded"]);
    expect(frames(wrapped.cause as Error)).toBeGreaterThan(0);
    // The limit is put back: errors made afterwards capture as before.
    expect(frames(new Error("later"))).toBeGreaterThan(0);
  });
});

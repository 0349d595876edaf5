/**
 * ERRORS.md's transport reasons in both protocol eras, end to end (see taxonomy.test.ts for the
 * rest): HTTP statuses and pages from a real proxy in front of real servers, answer streams that
 * break, servers that go away, stdio processes that exit, and 2025 sessions a server forgets.
 * HTTP-only and stdio-only reasons say so in their block's name; a reason only one era can
 * produce says so in its test's name.
 */
import { describe, expect, it } from "vitest";
import { useCleanup } from "../errors/helpers.js";
import { expectError, expectMatrix, QUICK_MS, shared, SLOW_MS } from "./matrix.js";
import { HTTP, LEGACY_HTTP, MODERN_HTTP, open, SERVER, STDIO, V1_HTTP } from "./targets.js";
import { stopwatch } from "../timing.js";

const defer = useCleanup();

describe.each(HTTP)("$name: HTTP answers (HTTP only)", (target) => {
  const proxied = shared(target, { proxy: true });
  /** The proxy answers the next tool call with `status` itself, without forwarding it. */
  const plan = async (status: number, headers: Record<string, string> = {}) => {
    const o = await proxied();
    o.proxy!.plan({ kind: "status", when: "before", status, headers });
    return o;
  };

  it("service_unavailable: HTTP 503", async () => {
    const o = await plan(503);
    expectError(target, await o.fail("echo", { text: "x" }), { reason: "service_unavailable", kind: "transport", transient: true, outcome: "not_sent", status: 503 });
  });

  it("server_error: HTTP 502 (a proxy that lost its upstream: it may have run)", async () => {
    const o = await plan(502);
    expectError(target, await o.fail("echo", { text: "x" }), { reason: "server_error", kind: "transport", transient: true, outcome: "unknown", status: 502 });
  });

  it.each([415, 405, 400])("http_error: a plain HTTP %i", async (status) => {
    const o = await plan(status);
    expectError(target, await o.fail("echo", { text: "x" }), { reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", status });
  });

  it("unauthorized: HTTP 401, keeping the WWW-Authenticate error and description", async () => {
    const o = await plan(401, { "www-authenticate": 'Bearer error="invalid_token", error_description="The token expired"' });
    const error = expectError(target, await o.fail("echo", { text: "x" }), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent", status: 401 });
    expect(error.message).toContain("The token expired");
    expect(error.message).toContain("invalid_token");
  });

  it("forbidden: HTTP 403 insufficient_scope, naming the scope", async () => {
    const o = await plan(403, { "www-authenticate": 'Bearer error="insufficient_scope", scope="files:write"' });
    const error = expectError(target, await o.fail("echo", { text: "x" }), { reason: "forbidden", kind: "transport", transient: false, outcome: "not_sent", status: 403 });
    expect(error.message).toContain("files:write");
  });

  it("unexpected_response: a 200 HTML page instead of an MCP answer", async () => {
    const o = await proxied();
    o.proxy!.plan({ kind: "ok_body", contentType: "text/html; charset=utf-8", body: "<!doctype html><html><head><title>Sign in – Acme SSO</title></head><body><h1>Sign in</h1></body></html>" });
    const error = expectError(target, await o.fail("echo", { text: "x" }), { reason: "unexpected_response", kind: "transport", transient: false, outcome: "unknown", status: 200 });
    expect(error.message).toContain("Sign in – Acme SSO");
    expect(error.message).toContain(o.proxy!.url.href);
  });

  it("the connection is still good after every one of these", async () => {
    const o = await proxied();
    expect(await o.call("echo", { text: "still here" })).toEqual({ status: "success", content: "still here" });
  });

  // Last on this connection: the server's Retry-After holds back the next call to it, as it should.
  it("rate_limited: HTTP 429 with Retry-After", async () => {
    const o = await plan(429, { "retry-after": "3" });
    expectError(target, await o.fail("echo", { text: "x" }), { reason: "rate_limited", kind: "transport", transient: true, outcome: "not_sent", status: 429, retryAfterMs: 3000 });
  });

  it.each(["reset_mid_body", "end_mid_body"] as const)("stream_error: the answer stream breaks off (%s) after the server ran the tool; it fails at once, not at the timeout", async (fault) => {
    // A 2026-07-28 server answers in JSON unless it streams; this one streams (a JSON answer cut off is below).
    const o = await open(target, defer, { proxy: true, ...(target.era === "modern" ? { responseMode: "sse" as const } : {}) });
    o.proxy!.plan({ kind: fault }, { key: "k" });
    const clock = stopwatch();
    expectError(target, await o.fail("counter", { key: "k" }), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" });
    // The default timeout is 30 s.
    clock.within(QUICK_MS, "settling at once");
    expect(o.upstream!.state.executions.get("k")).toBe(1);
  });

  it("connection_refused: the server is gone", async () => {
    // Every call first checks an idle pooled socket (keepAliveCheckAfterMs 0), so the stale socket
    // the closed server left is dropped by that check and the call meets the refusal itself.
    const o = await open(target, defer, { server: { keepAliveCheckAfterMs: 0 } });
    expect(await o.call("echo", { text: "up" })).toMatchObject({ status: "success" });
    await o.upstream!.close();
    const error = expectError(target, await o.fail("echo", { text: "x" }), { reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" });
    expect(error.message).toContain("refused");
  });
});

describe("a 2026-07-28 v2 server over HTTP answering in JSON (2026-07-28 only: 2025 servers answer on an SSE stream)", () => {
  it("unexpected_response: an answer that ends with no body at all is ERRORS.md's 'an empty body', and fails at once", async () => {
    const o = await open(MODERN_HTTP, defer, { proxy: true });
    o.proxy!.plan({ kind: "end_mid_body" }, { key: "k" });
    const clock = stopwatch();
    const error = expectError(MODERN_HTTP, await o.fail("counter", { key: "k" }), { reason: "unexpected_response", kind: "transport", transient: false, outcome: "unknown", status: 200 });
    expect(error.message).toContain("an empty body");
    clock.within(QUICK_MS, "settling at once");
    expect(o.upstream!.state.executions.get("k")).toBe(1);
  });
});

describe.each(STDIO)("$name: the server process (stdio only)", (target) => {
  it("connection_closed: the process exits mid-call, with its exit code", async () => {
    const o = await open(target, defer);
    const error = expectError(target, await o.fail("crash", { code: 3 }), { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 });
    expect(error.data).toMatchObject({ exitCode: 3 });
    expect(error.message).toContain("exited with code 3");
  });
});

describe.each([LEGACY_HTTP, V1_HTTP])("$name: sessions (2025 only)", (target) => {
  // session_expired has no 2026-07-28 counterpart: that revision has no sessions (no
  // Mcp-Session-Id), so a restarted or redeployed server simply answers the next request.

  it("session_expired (2025 only): the server forgot the session and answers 404; the call, which never ran, is re-sent once on a new session, retries off", async () => {
    const o = await open(target, defer);
    expect(await o.call("counter", { key: "a" })).toEqual({ status: "success", content: "count 1" });
    await o.upstream!.forgetSessions();
    expect(await o.call("counter", { key: "a" })).toEqual({ status: "success", content: "count 2" });
    const resent = o.events.flatMap((e) => (e.type === "retry" ? [e.error.toJSON()] : []));
    expect(resent).toHaveLength(1);
    const error = expectError(target, resent[0], { reason: "session_expired", kind: "transport", transient: true, outcome: "not_sent", status: 404 });
    expect(error.message).toContain("Session not found");
    expect(o.upstream!.state.executions.get("a")).toBe(2);
    expect(o.events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    expect(o.toolkit.protocolEra(SERVER)).toBe("legacy");
  });

  it("session_expired (2025 only): with retries on, the same call reconnects and succeeds, even for a non-idempotent tool", async () => {
    const o = await open(target, defer, { toolkit: { retry: { retries: 2, minTimeout: 5, randomize: false } } });
    expect(await o.call("counter", { key: "a" })).toEqual({ status: "success", content: "count 1" });
    await o.upstream!.forgetSessions();
    expect(await o.call("counter", { key: "a" })).toEqual({ status: "success", content: "count 2" });
    expect(o.events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.error.reason)).toEqual(["session_expired"]);
    expect(o.events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    expect(o.upstream!.state.executions.get("a")).toBe(2);
  });
});

describe("request_timeout over HTTP names the timeout, in both eras", () => {
  // Our AttemptScope ends the call over HTTP. It aborts with the v2 SDK's own timeout error
  // (SdkError REQUEST_TIMEOUT, data.timeout): the v2 client passes that through, where any other
  // abort reason would be wrapped without its data and read as a bare "Request timed out" text.
  it.each(HTTP)("$name", async (target) => {
    const o = await open(target, defer, { toolkit: { tools: { slow: { timeoutMs: 300 } } } });
    const error = await o.fail("slow", { ms: SLOW_MS });
    expect(error.reason).toBe("request_timeout");
    expect(error.message).toBe("The call timed out after 300 ms.");
  });
});

describe("a 2026-07-28 JSON answer cut off mid-body is a stream_error, as a broken SSE answer is", () => {
  // ERRORS.md: stream_error is "the response stream broke or ended without the answer (SSE or
  // streamable HTTP)". A 2026-07-28 server answers in JSON unless it streams; the probe reports a
  // JSON body that breaks off (undici's "terminated") as a lost answer, at once.
  it("a 2026-07-28 v2 server over HTTP, answering in JSON", async () => {
    const o = await open(MODERN_HTTP, defer, { proxy: true });
    o.proxy!.plan({ kind: "reset_mid_body" }, { key: "k" });
    const error = await o.fail("counter", { key: "k" });
    expect(o.upstream!.state.executions.get("k")).toBe(1);
    expect(error).toMatchObject({ reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" });
  });
});

expectMatrix(
  ["rate_limited", "service_unavailable", "server_error", "http_error", "unauthorized", "forbidden", "unexpected_response", "stream_error", "connection_refused", "connection_closed"],
  ["session_expired"],
);

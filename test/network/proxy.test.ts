/**
 * Behind a reverse proxy: each fault a real proxy or CDN produces, in front of a real SDK server,
 * with the server's own count of executions where a repeat matters. `counter` is not idempotent;
 * `echo` is read-only on a trusted server.
 */
import { describe, expect, it } from "vitest";
import { CLOUDFLARE_522, startFaultProxy, type FaultProxy } from "../servers/proxy/faultProxy.js";
import { closeLater, server, toolkitFor } from "./helpers.js";

async function proxied(options: { trusted?: boolean; deadlineMs?: number } = {}) {
  const http = await server();
  const proxy: FaultProxy = closeLater(await startFaultProxy(http.url));
  const agent = await toolkitFor(proxy.url, { trustAnnotations: options.trusted ?? false, ...(options.deadlineMs ? { deadlineMs: options.deadlineMs } : {}) });
  return { http, proxy, ...agent };
}

const ENVOY_TERMINATION = "upstream connect error or disconnect/reset before headers. retried and the latest reset reason: connection termination";
const ENVOY_CONNECT_FAILURE = "upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: delayed connect error: 111";

describe("a proxy that fails after forwarding: the server ran the tool", () => {
  it.each([
    [502, "nginx's Bad Gateway", "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"],
    [504, "a gateway timeout", "upstream request timeout"],
    [503, "Envoy's upstream reset after forwarding", ENVOY_TERMINATION],
  ])("never repeats a non-idempotent tool after a %i (%s): server_error, outcome unknown, executed once", async (status, _what, body) => {
    const { http, proxy, call } = await proxied();
    proxy.plan({ kind: "status", when: "after", status, body, contentType: body.startsWith("<") ? "text/html" : "text/plain" }, { key: "k" });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "server_error", kind: "transport", transient: true, outcome: "unknown", status, attempts: 1 });
    expect(http.state.executions.get("k")).toBe(1);
    expect(reply.content).toContain("outcome is unknown");
  });

  it("repeats a read-only tool after a 502 and succeeds", async () => {
    const { http, proxy, call } = await proxied({ trusted: true });
    proxy.plan({ kind: "status", when: "after", status: 502 });
    const reply = await call("echo", { text: "again" });
    expect(reply).toMatchObject({ status: "success", content: "again" });
    expect(http.state.calls.filter((c) => c === "echo")).toHaveLength(2);
  });
});

describe("a proxy that fails before forwarding", () => {
  it("retries a non-idempotent tool after a plain 503 (not sent) and runs it once", async () => {
    const { http, proxy, call } = await proxied();
    proxy.plan({ kind: "status", when: "before", status: 503, body: "Service Unavailable" }, { key: "k" });
    expect(await call("counter", { key: "k" })).toMatchObject({ status: "success", content: "count 1" });
    expect(http.state.executions.get("k")).toBe(1);
  });

  it("reads Envoy's 'reset reason: connection failure' as not forwarded: service_unavailable, retried", async () => {
    const { http, proxy, call } = await proxied();
    proxy.plan({ kind: "status", when: "before", status: 503, body: ENVOY_CONNECT_FAILURE }, { key: "k" });
    expect(await call("counter", { key: "k" })).toMatchObject({ status: "success", content: "count 1" });
    expect(http.state.executions.get("k")).toBe(1);
  });

  it("does not repeat a non-idempotent tool after a 502 even when the proxy failed before forwarding: a 502 is no proof", async () => {
    const { http, proxy, call } = await proxied();
    proxy.plan({ kind: "status", when: "before", status: 502, body: "Bad Gateway" }, { key: "k" });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "server_error", outcome: "unknown", attempts: 1 });
    expect(http.state.executions.get("k")).toBeUndefined();
  });

  it("reduces a Cloudflare 522 page to its title and message, and retries it as service_unavailable", async () => {
    const { http, proxy, call, events } = await proxied();
    proxy.plan({ kind: "status", when: "before", status: 522, body: CLOUDFLARE_522, contentType: "text/html; charset=UTF-8" }, { count: 3 });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "service_unavailable", status: 522, outcome: "not_sent", attempts: 3 });
    expect(reply.error!.message).toContain("mcp.example.com | 522: Connection timed out");
    expect(reply.error!.message).toContain("The initial connection between Cloudflare's network and the origin web server timed out");
    for (const noise of ["DOCTYPE", "<script", "_cf_chl_opt", "cf-wrapper", "{display"]) expect(reply.content).not.toContain(noise);
    expect(reply.content.length).toBeLessThan(1000);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(http.state.executions.get("k")).toBeUndefined();
  });

  it.each([520, 524])("reads Cloudflare's %i (the origin answered oddly or too late) as server_error with outcome unknown", async (status) => {
    const { proxy, call } = await proxied();
    proxy.plan({ kind: "status", when: "after", status, body: `<title>${status}</title>` , contentType: "text/html" });
    expect((await call("counter", { key: "k" })).error).toMatchObject({ reason: "server_error", outcome: "unknown", attempts: 1, status });
  });
});

describe("Retry-After", () => {
  it("waits what a 503's Retry-After asks, in seconds", async () => {
    const { proxy, call, events } = await proxied();
    proxy.plan({ kind: "status", when: "before", status: 503, headers: { "retry-after": "1" } }, { key: "k" });
    expect(await call("counter", { key: "k" })).toMatchObject({ status: "success" });
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ delayMs: 1000, error: { reason: "service_unavailable", retryAfterMs: 1000 } });
  });

  it("reads a Retry-After given as an HTTP date", async () => {
    const { proxy, call, events } = await proxied();
    const at = new Date(Date.now() + 2_000).toUTCString();
    proxy.plan({ kind: "status", when: "before", status: 429, headers: { "retry-after": at } }, { key: "k" });
    expect(await call("counter", { key: "k" })).toMatchObject({ status: "success" });
    const retry = events.find((e) => e.type === "retry") as { delayMs: number; error: { retryAfterMs: number } } | undefined;
    // An HTTP date has whole seconds: up to 2 s from when the proxy answered.
    expect(retry?.error.retryAfterMs).toBeGreaterThan(0);
    expect(retry?.error.retryAfterMs).toBeLessThanOrEqual(2_000);
  });

  it("ties Retry-After to the request that received it: a concurrent plain 503 carries no wait of its own", async () => {
    // The deadline keeps the plain call from waiting out the wait the 429 put on the server (60 s, the most believed).
    const { proxy, call, events } = await proxied({ deadlineMs: 5_000 });
    proxy.plan({ kind: "status", when: "before", status: 429, headers: { "retry-after": "120" } }, { key: "limited" });
    proxy.plan({ kind: "status", when: "before", status: 503 }, { key: "plain" });
    const [limited] = await Promise.all([call("counter", { key: "limited" }), call("counter", { key: "plain" })]);
    expect(limited.error).toMatchObject({ reason: "rate_limited", retryAfterMs: 60_000, data: { askedRetryAfterMs: 120_000 } });
    // What the plain 503 was classified as, on its own: the 429's header is not its hint.
    const plain503 = events.find((e) => (e.type === "retry" || e.type === "error") && e.error?.reason === "service_unavailable");
    expect(plain503).toBeDefined();
    expect((plain503 as { error: { retryAfterMs?: number } }).error.retryAfterMs).toBeUndefined();
  });
});

describe("an endpoint that answers, but not as an MCP server", () => {
  it("names a 200 HTML page (a login page) by its title: unexpected_response, not retried, outcome unknown", async () => {
    const { proxy, call } = await proxied();
    proxy.plan({ kind: "ok_body", contentType: "text/html; charset=utf-8", body: "<!doctype html><html><head><title>Sign in – Acme SSO</title><script>var x=1</script></head><body><h1>Sign in</h1><p>Use your corporate account.</p></body></html>" });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "unexpected_response", kind: "transport", transient: false, outcome: "unknown", status: 200, attempts: 1 });
    expect(reply.error!.message).toContain(proxy.url.href);
    expect(reply.error!.message).toContain("text/html");
    expect(reply.error!.message).toContain("Sign in – Acme SSO");
    expect(reply.error!.message).toContain("Check the server URL, or the proxy in front of it.");
    expect(reply.content).not.toContain("<script");
  });

  it("names JSON that is not JSON-RPC: unexpected_response, not invalid_result", async () => {
    const { proxy, call } = await proxied();
    proxy.plan({ kind: "ok_body", contentType: "application/json", body: JSON.stringify({ status: "ok", service: "gateway", version: 3 }) });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "unexpected_response", outcome: "unknown", status: 200 });
    expect(reply.error!.message).toContain("JSON that is not JSON-RPC");
    expect(reply.error!.message).toContain('"service":"gateway"');
  });

  it("names an empty 200 body: unexpected_response", async () => {
    const { proxy, call } = await proxied();
    proxy.plan({ kind: "ok_body", contentType: "application/json", body: "" });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "unexpected_response", outcome: "unknown" });
    expect(reply.error!.message).toContain("an empty body");
  });
});

describe("answer streams that break or end", () => {
  // The per-attempt timeout is far beyond the test's own: only failing at once can pass.
  const slowTimeout = { timeoutMs: 120_000 };

  it("fails at once when the answer stream is reset mid-body: stream_error, not repeated for a write", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    proxy.plan({ kind: "reset_mid_body" }, { key: "k" });
    const agent = await toolkitFor(proxy.url, {}, { timeoutMs: slowTimeout.timeoutMs });
    const reply = await agent.call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown", attempts: 1 });
    expect(http.state.executions.get("k")).toBe(1);
  });

  it("fails at once when the answer stream ends cleanly without the answer (it used to wait for the timeout)", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    proxy.plan({ kind: "end_mid_body" }, { key: "k" });
    const agent = await toolkitFor(proxy.url, {}, { timeoutMs: slowTimeout.timeoutMs });
    const reply = await agent.call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown", attempts: 1 });
    expect(reply.error!.message).toContain("ended before the server answered");
    expect(http.state.executions.get("k")).toBe(1);
    // The session lives on: the next call goes through.
    expect(await agent.call("counter", { key: "k2" })).toMatchObject({ status: "success" });
  });

  it("retries a read-only tool whose answer stream ended, and succeeds", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    proxy.plan({ kind: "end_mid_body" });
    const agent = await toolkitFor(proxy.url, { trustAnnotations: true }, { timeoutMs: slowTimeout.timeoutMs });
    expect(await agent.call("echo", { text: "hi" })).toMatchObject({ status: "success", content: "hi" });
  });

  it("times out a stalled request with our own timer and tells the server", async () => {
    const { proxy } = await proxied();
    proxy.plan({ kind: "stall" }, { key: "k" });
    const agent = await toolkitFor(proxy.url, {}, { timeoutMs: 300 });
    const reply = await agent.call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "request_timeout", outcome: "unknown", attempts: 1 });
  });
});

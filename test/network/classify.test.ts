/**
 * Network failures a loopback machine cannot produce for real, built by hand in the shapes Node
 * and undici give them, plus the auth headers a real server sends through the proxy.
 */
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { closeLater, server, toolkitFor } from "./helpers.js";

const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });
const sys = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

describe("hand-built network failures", () => {
  it.each([
    ["EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.7:443"],
    ["ENETUNREACH", "connect ENETUNREACH 10.0.0.7:443"],
  ])("classifies %s as connection_refused: nothing was sent", (code, message) => {
    const e = normalize(fetchFailed(sys(message, { code, syscall: "connect" })), { url: "https://mcp.example.com/mcp" });
    expect(e).toMatchObject({ reason: "connection_refused", transient: true, outcome: "not_sent" });
    expect(e.message).toContain("https://mcp.example.com/mcp");
  });

  it.each([
    ["EHOSTUNREACH", "read EHOSTUNREACH"],
    ["ENETUNREACH", "write ENETUNREACH"],
  ])("classifies %s after the request was written as connection_reset, outcome unknown", (code, message) => {
    const e = normalize(fetchFailed(sys(message, { code, syscall: message.split(" ")[0] })), { url: "https://mcp.example.com/mcp" });
    expect(e).toMatchObject({ reason: "connection_reset", transient: true, outcome: "unknown" });
    expect(e.message).toContain("after the request was written");
  });

  it("classifies ECONNABORTED as connection_reset, outcome unknown", () => {
    expect(normalize(fetchFailed(sys("read ECONNABORTED", { code: "ECONNABORTED", syscall: "read" })))).toMatchObject({ reason: "connection_reset", outcome: "unknown" });
  });

  it.each(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"])("classifies undici's %s (after the request was written) as request_timeout, outcome unknown", (code) => {
    const e = normalize(fetchFailed(sys(code === "UND_ERR_HEADERS_TIMEOUT" ? "Headers Timeout Error" : "Body Timeout Error", { code })));
    expect(e).toMatchObject({ reason: "request_timeout", kind: "transport", transient: true, outcome: "unknown" });
  });

  it.each([
    ["ENOTFOUND", false],
    ["EAI_AGAIN", true],
  ])("names the host in a DNS failure (%s)", (code, transient) => {
    const e = normalize(fetchFailed(sys(`getaddrinfo ${code} mcp.example.com`, { code, syscall: "getaddrinfo", hostname: "mcp.example.com" })));
    expect(e).toMatchObject({ reason: "dns_failure", transient, outcome: "not_sent" });
    expect(e.message).toContain("'mcp.example.com'");
    expect(e.message).not.toBe("fetch failed");
  });

  it("classifies an expired certificate as tls_error telling who must act", () => {
    const e = normalize(fetchFailed(sys("certificate has expired", { code: "CERT_HAS_EXPIRED" })), { url: "https://mcp.example.com/mcp" });
    expect(e).toMatchObject({ reason: "tls_error", transient: false, outcome: "not_sent" });
    expect(e.message).toContain("has expired");
  });

  it("keeps what an HTTP 503 says about Envoy's reset reason", () => {
    const err = Object.assign(new Error("Streamable HTTP error: Error POSTing to endpoint: upstream connect error or disconnect/reset before headers. reset reason: overflow"), { code: 503 });
    expect(normalize(err)).toMatchObject({ reason: "service_unavailable", outcome: "not_sent" });
  });
});

describe("401 and 403 keep what WWW-Authenticate says", () => {
  it("names the error and its description on a 401", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    const { call } = await toolkitFor(proxy.url);
    proxy.plan({ kind: "status", when: "before", status: 401, body: "Unauthorized", headers: { "www-authenticate": 'Bearer realm="mcp", error="invalid_token", error_description="Sign-in is no longer valid"' } });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "unauthorized", status: 401, transient: false });
    expect(reply.error!.message).toContain("The server says: Sign-in is no longer valid (invalid_token).");
  });

  it("names the scope asked for on a 403 insufficient_scope", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    const { call } = await toolkitFor(proxy.url);
    proxy.plan({ kind: "status", when: "before", status: 403, body: "Forbidden", headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="tools:write", error_description="Writing needs more"' } });
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "forbidden", status: 403 });
    expect(reply.error!.message).toContain("insufficient_scope");
    expect(reply.error!.message).toContain("scope 'tools:write'");
  });
});

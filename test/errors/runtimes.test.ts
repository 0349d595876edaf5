/**
 * HAND-BUILT ERRORS in the shapes Bun, Deno and workerd gave on this machine (issue 36, measured
 * with bun 1.4.5, deno 2.9.6 and Miniflare 4's workerd against servers on 127.0.0.1): each maps to
 * the reason and outcome Node gives for the same failure. The real runs are in test/runtimes/.
 */
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { isSafeToRetry } from "../../src/errors/safeRepeat.js";

const url = "http://127.0.0.1:35429/mcp";
/** Bun puts the code, and the URL as `path`, on the TypeError itself. */
const bun = (message: string, fields: Record<string, unknown>) => Object.assign(new TypeError(message), { path: url, errno: 0, ...fields });
/** Deno: TypeError("fetch failed") whose cause is an Error with the Rust error chain as its message, and no code. */
const deno = (message: string) => new TypeError("fetch failed", { cause: new Error(message) });
const denoSend = (tail: string, target = url) => deno(`error sending request for url (${target}): client error (Connect): ${tail}`);
/** workerd: a plain Error with workerd's flags. */
const workerd = (message: string, fields: Record<string, unknown> = { remote: true }) => Object.assign(new Error(message), fields);

describe("Bun: the code is on the error itself", () => {
  it.each([
    ["a refused connect", bun("ECONNREFUSED: Unable to connect. Is the computer able to access the url?", { code: "ECONNREFUSED" }), { reason: "connection_refused", outcome: "not_sent", transient: true }],
    ["a host DNS cannot find", bun("getaddrinfo ENOTFOUND nonexistent.invalid", { code: "ENOTFOUND", syscall: "getaddrinfo", hostname: "nonexistent.invalid", errno: 4 }), { reason: "dns_failure", outcome: "not_sent", transient: false }],
    ["a reset before or during the answer", bun("ECONNRESET: The socket connection was closed unexpectedly. For more information, pass `verbose: true` in the second argument to fetch()", { code: "ECONNRESET" }), { reason: "connection_reset", outcome: "unknown", transient: true }],
    ["a self-signed certificate", bun("self signed certificate", { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }), { reason: "tls_error", outcome: "not_sent", transient: false }],
    ["plain HTTP on an https URL", bun("EPROTO: The TLS handshake failed. Does the server speak TLS on this port?", { code: "EPROTO" }), { reason: "tls_error", outcome: "not_sent", transient: false }],
  ])("%s", (_what, error, expected) => {
    expect(normalize(error, { url })).toMatchObject({ kind: "transport", ...expected });
  });

  it("names the host a DNS lookup failed for", () => {
    expect(normalize(bun("getaddrinfo ENOTFOUND nonexistent.invalid", { code: "ENOTFOUND", syscall: "getaddrinfo", hostname: "nonexistent.invalid" })).message).toContain("'nonexistent.invalid'");
  });
});

describe("Deno: no codes, so its words are read narrowly", () => {
  it("reads 'Connection refused (os error 111)' while connecting as connection_refused, not sent", () => {
    const e = normalize(denoSend("tcp connect error: Connection refused (os error 111)"), { url });
    expect(e).toMatchObject({ reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" });
    expect(e.message).toContain("127.0.0.1:35429");
  });

  it.each([
    ["macOS", "Connection refused (os error 61)"],
    ["Windows", "No connection could be made because the target machine actively refused it. (os error 10061)"],
  ])("reads %s's refused connect the same way", (_os, text) => {
    expect(normalize(denoSend(`tcp connect error: ${text}`))).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
  });

  it("reads an OS error number only with its own text (errno 111 is another error on macOS)", () => {
    expect(normalize(denoSend("tcp connect error: Attribute not found (os error 111)"))).toMatchObject({ reason: "unknown" });
    expect(normalize(denoSend("tcp connect error: Connection refused (os error 104)"))).toMatchObject({ reason: "unknown" });
  });

  it("reads a failed lookup as dns_failure naming the host; 'not known' is permanent, a temporary failure is not", () => {
    const notFound = normalize(denoSend("dns error: failed to lookup address information: Name or service not known", "http://nonexistent.invalid/mcp"));
    expect(notFound).toMatchObject({ reason: "dns_failure", outcome: "not_sent", transient: false });
    expect(notFound.message).toContain("'nonexistent.invalid'");
    expect(normalize(denoSend("dns error: failed to lookup address information: Temporary failure in name resolution"))).toMatchObject({ reason: "dns_failure", outcome: "not_sent", transient: true });
  });

  it("reads Deno's blocked port as fetch's refusal, naming the port: http_error, not sent", () => {
    const e = normalize(new TypeError("Fetch failed: Requests to port 1 are blocked"), { url: "http://127.0.0.1:1/mcp" });
    expect(e).toMatchObject({ reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", data: { blockedPort: 1 } });
    expect(e.message).toContain("port 1");
  });

  it("reads a reset once the request was sent as connection_reset, outcome unknown", () => {
    expect(normalize(deno("Connection reset by peer (os error 104)"))).toMatchObject({ reason: "connection_reset", outcome: "unknown", transient: true });
    const closed = deno("error sending request from 127.0.0.1:51630 for http://127.0.0.1:46437/mcp (127.0.0.1:46437): client error (SendRequest): connection closed before message completed");
    expect(normalize(closed)).toMatchObject({ reason: "connection_reset", outcome: "unknown" });
    expect(normalize(new TypeError("error reading a body from connection"))).toMatchObject({ reason: "connection_reset", outcome: "unknown" });
  });

  it("reads a timeout or a lost route as not sent only while connecting", () => {
    expect(normalize(denoSend("tcp connect error: Connection timed out (os error 110)"))).toMatchObject({ reason: "network_timeout", outcome: "not_sent" });
    expect(normalize(denoSend("tcp connect error: No route to host (os error 113)"))).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
    expect(normalize(deno("connection error: Connection timed out (os error 110)"))).toMatchObject({ reason: "connection_reset", outcome: "unknown" });
  });

  it("reads rustls's self-signed certificate as tls_error with Deno's remedy", () => {
    const e = normalize(denoSend("invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))", "https://localhost:41387/mcp"), { url: "https://localhost:41387/mcp" });
    expect(e).toMatchObject({ reason: "tls_error", kind: "transport", transient: false, outcome: "not_sent", data: { tlsCode: "CaUsedAsEndEntity" } });
    expect(e.message).toContain("https://localhost:41387/mcp");
    expect(e.message).toContain("DENO_CERT");
  });

  it.each([
    ["UnknownIssuer", "UnknownIssuer", "DENO_CERT"],
    ["NotValidForName", "NotValidForName", "host name"],
    ["certificate expired: verification time 1800000000 (UNIX), but certificate is not valid after 1700000000 (1000000 seconds ago)", "Expired", "renew"],
    ["SomethingNew", "invalid peer certificate", "DENO_CERT"],
  ])("reads rustls's %s as tls_error", (text, code, remedy) => {
    const e = normalize(denoSend(`invalid peer certificate: ${text}`));
    expect(e).toMatchObject({ reason: "tls_error", outcome: "not_sent", data: { tlsCode: code } });
    expect(e.message).toContain(remedy);
  });

  it("reads plain HTTP on an https URL as tls_error", () => {
    expect(normalize(denoSend("received corrupt message of type InvalidContentType"))).toMatchObject({ reason: "tls_error", outcome: "not_sent" });
  });

  it("never reads a message when the chain carries a code", () => {
    const coded = new TypeError("fetch failed", { cause: Object.assign(new Error("tcp connect error: Connection refused (os error 111)"), { code: "ECONNRESET" }) });
    expect(normalize(coded)).toMatchObject({ reason: "connection_reset", outcome: "unknown" });
  });
});

describe("workerd: it cannot tell a refused connect from a lost connection", () => {
  it.each([
    ["a refused connect or a reset before the answer", workerd("Network connection lost.", { retryable: true, remote: true })],
    ["a reset mid-body", workerd("Network connection lost.", { retryable: true })],
  ])("reads %s as connection_reset with outcome unknown, whatever workerd's retryable says", (_what, error) => {
    const e = normalize(error, { url, toolName: "transfer" });
    expect(e).toMatchObject({ reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" });
    expect(e.message).toContain("refused connect");
    // The one repeat rule: a tool not known to be idempotent is not repeated on this error.
    expect(isSafeToRetry(e, false)).toBe(false);
    expect(isSafeToRetry(e, true)).toBe(true);
  });

  it("reads the opaque internal error (DNS, TLS) as unknown: transport, not retried, outcome unknown, the reference kept", () => {
    const e = normalize(workerd("internal error; reference = lpm8ndshm19u7v45pifohoa9"), { url: "http://nonexistent.invalid/mcp" });
    expect(e).toMatchObject({ reason: "unknown", kind: "transport", transient: false, outcome: "unknown", data: { workerdReference: "lpm8ndshm19u7v45pifohoa9" } });
    expect(e.message).toContain("workerd's log");
    expect(isSafeToRetry(e, true)).toBe(false);
  });

  it("reads only workerd's exact texts", () => {
    expect(normalize(new Error("Network connection lost. Retrying"))).toMatchObject({ reason: "unknown", kind: "client" });
    expect(normalize(new Error("internal error; reference = x y"))).toMatchObject({ reason: "unknown", kind: "client" });
  });
});

/**
 * TLS in front of a real MCP server, with a self-signed certificate made at test time: every
 * certificate failure is `tls_error` (permanent, not sent), naming the URL, the cause and the remedy.
 */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { McpToolkit, type McpToolError as PublicError } from "../../src/index.js";
import { Connection } from "../../src/mcp/session/Connection.js";
import { httpsFetchTrusting, startTlsEndpoint } from "../servers/tls.js";
import { attemptOn, cleanups, closeLater, server } from "./helpers.js";

async function connectError(config: Parameters<typeof McpToolkit.connect>[0]["servers"][string]): Promise<PublicError> {
  const error = await McpToolkit.connect({ servers: { secure: config } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpToolError);
  return error as PublicError;
}

describe("TLS failures", () => {
  it("names a self-signed certificate, the URL and NODE_EXTRA_CA_CERTS (it used to be unknown 'fetch failed')", async () => {
    const http = await server();
    const tls = closeLater(await startTlsEndpoint(http.port));
    const url = tls.url();
    const error = await connectError({ transport: "http", url: url.href });
    expect(error).toMatchObject({ reason: "tls_error", kind: "transport", transient: false, outcome: "not_sent" });
    expect(error.message).toContain(url.href);
    expect(error.message).toContain("self-signed");
    expect(error.message).toContain("DEPTH_ZERO_SELF_SIGNED_CERT");
    expect(error.message).toContain("NODE_EXTRA_CA_CERTS");
  });

  it("says so over the legacy SSE transport too (it used to be a transient stream_error)", async () => {
    const http = await server({ mode: "sse" });
    const tls = closeLater(await startTlsEndpoint(http.port));
    const error = await connectError({ transport: "sse", url: tls.url("/sse").href });
    expect(error).toMatchObject({ reason: "tls_error", transient: false, outcome: "not_sent" });
    expect(error.message).toContain("NODE_EXTRA_CA_CERTS");
  });

  it("names plain HTTP on an https URL", async () => {
    const http = await server();
    const error = await connectError({ transport: "http", url: `https://127.0.0.1:${http.port}/mcp` });
    expect(error).toMatchObject({ reason: "tls_error", transient: false });
    expect(error.message).toContain("ERR_SSL_WRONG_VERSION_NUMBER");
    expect(error.message).toContain("plain HTTP");
  });

  describe("with a server fetch that trusts the certificate (the `fetch` option)", () => {
    async function trusted(host: string) {
      const http = await server();
      const tls = closeLater(await startTlsEndpoint(http.port));
      const calls = { count: 0 };
      const connection = new Connection("secure", { transport: "http", url: tls.url("/mcp", host).href, fetch: httpsFetchTrusting(tls.certificate.cert, calls) } as never, { name: "t", version: "1" });
      cleanups.push(() => connection.close());
      return { http, connection, calls };
    }

    it("sends every request through it, and the calls succeed", async () => {
      const { http, connection, calls } = await trusted("localhost");
      const result = await attemptOn(connection, "counter", { key: "k" });
      expect(result).toMatchObject({ content: [{ type: "text", text: "count 1" }] });
      expect(http.state.executions.get("k")).toBe(1);
      expect(calls.count).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/list, tools/call
    });

    it("names a certificate that does not name the host", async () => {
      const { connection } = await trusted("127.0.0.1");
      const error = await attemptOn(connection, "counter", { key: "k" });
      expect(error).toMatchObject({ reason: "tls_error", transient: false, outcome: "not_sent" });
      expect((error as McpToolError).message).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    });
  });
});

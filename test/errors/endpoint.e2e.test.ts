/**
 * Endpoints that are not what their URL says, each failing for real: a port fetch will not use,
 * an `http://` URL on a TLS port, a TLS port that hangs up during the handshake, an HTML page
 * answered with 200. Every transport and era names the same reason for the same endpoint.
 */
import { createServer, type Socket } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { Client as V2Client, StreamableHTTPClientTransport as V2StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { startTlsEndpoint } from "../servers/tls.js";
import { rejectionOf } from "./helpers.js";

const cleanups = closeAfterEach();
type ServerConfig = McpToolkitConfig["servers"][string];

/** The error `McpToolkit.connect` rejects with for one server. */
async function connectError(config: ServerConfig): Promise<McpToolError> {
  const error = await McpToolkit.connect({ servers: { remote: config } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpToolError);
  return error as McpToolError;
}

/** One config per way of reaching an HTTP endpoint: streamable HTTP in each era, and legacy SSE. */
const WAYS: [string, (url: string) => ServerConfig][] = [
  ["streamable HTTP, era auto", (url) => ({ transport: "http", url })],
  ["streamable HTTP, era legacy", (url) => ({ transport: "http", url, era: "legacy" }) as ServerConfig],
  ["legacy SSE", (url) => ({ transport: "sse", url })],
];

async function listen(server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown; close(cb: () => void): unknown }, sockets?: Set<Socket>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const s of sockets ?? []) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as { port: number }).port;
}

describe("a port fetch refuses to use (the Fetch standard's bad ports)", () => {
  it.each(WAYS)("is http_error naming the port over %s (it was unknown: 'fetch failed'), and nothing is sent", async (_, config) => {
    // Nothing listens there: fetch refuses before connecting.
    const error = await connectError(config("http://127.0.0.1:6000/mcp"));
    expect(error).toMatchObject({ reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", data: { blockedPort: 6000 } });
    expect(error.message).toContain("port 6000 (http://127.0.0.1:6000/mcp)");
    expect(error.message).toContain('"bad ports"');
  });

  it("is the same for the SDK's own clients, without context", async () => {
    for (const transport of [new StreamableHTTPClientTransport(new URL("http://127.0.0.1:10080/mcp")), new SSEClientTransport(new URL("http://127.0.0.1:10080/sse"))]) {
      const client = new Client({ name: "test", version: "1.0.0" });
      const error = await rejectionOf(client.connect(transport));
      await client.close();
      expect(normalize(error)).toMatchObject({ reason: "http_error", outcome: "not_sent" });
      expect(normalize(error, { url: "http://127.0.0.1:10080/mcp" }).message).toContain("port 10080");
    }
  });
});

describe("an http:// URL on a TLS port", () => {
  it("reads the same over every transport: connection_reset (SSE said stream_error), the request never reached a server", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const sse = await startHttpFixture({ mode: "sse" });
    cleanups.push(() => sse.close());
    const tls = await startTlsEndpoint(http.port);
    cleanups.push(() => tls.close());
    const tlsSse = await startTlsEndpoint(sse.port);
    cleanups.push(() => tlsSse.close());
    const seen = [];
    for (const [way, config] of WAYS) {
      const url = way === "legacy SSE" ? `http://127.0.0.1:${tlsSse.port}/sse` : `http://127.0.0.1:${tls.port}/mcp`;
      const error = await connectError(config(url));
      seen.push({ way, reason: error.reason, outcome: error.outcome, message: error.message });
    }
    for (const s of seen) {
      expect(s, s.way).toMatchObject({ reason: "connection_reset", outcome: "not_sent", message: "The connection was lost before the server answered (UND_ERR_SOCKET: other side closed)." });
    }
  });

  it("is connection_reset for the SDK's SSE client without context, outcome unknown (nothing says the request did not leave)", async () => {
    const sse = await startHttpFixture({ mode: "sse" });
    cleanups.push(() => sse.close());
    const tls = await startTlsEndpoint(sse.port);
    cleanups.push(() => tls.close());
    const client = new Client({ name: "test", version: "1.0.0" });
    const error = await rejectionOf(client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${tls.port}/sse`))));
    await client.close();
    expect(error).toMatchObject({ message: "SSE error: TypeError: fetch failed: other side closed" });
    expect(normalize(error)).toMatchObject({ reason: "connection_reset", transient: true, outcome: "unknown" });
  });
});

describe("a TLS port that hangs up during the handshake", () => {
  it("is connection_reset, not sent, for every client: no byte of the request was written", async () => {
    const sockets = new Set<Socket>();
    // Reads the ClientHello and hangs up, as a TLS terminator refusing the handshake does.
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.once("data", () => socket.destroy());
    });
    const port = await listen(server, sockets);
    for (const transport of [new StreamableHTTPClientTransport(new URL(`https://127.0.0.1:${port}/mcp`)), new SSEClientTransport(new URL(`https://127.0.0.1:${port}/sse`))]) {
      const client = new Client({ name: "test", version: "1.0.0" });
      const error = await rejectionOf(client.connect(transport));
      await client.close();
      expect(String((error as Error).message) + String(((error as Error).cause as Error | undefined)?.message)).toContain("Client network socket disconnected before secure TLS connection was established");
      expect(normalize(error)).toMatchObject({ reason: "connection_reset", transient: true, outcome: "not_sent" });
    }
  });
});

describe("an HTML page answered with 200 (a proxy's sign-in page)", () => {
  const PAGE = "<!doctype html><html><head><title>Sign in - Corp Proxy</title><style>body{}</style></head><body><h1>Sign in - Corp Proxy</h1><p>Please authenticate to continue.</p></body></html>";

  it.each(WAYS)("names the URL, the status and the page's title over %s", async (_, config) => {
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    });
    const port = await listen(server);
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError(config(url));
    expect(error).toMatchObject({ reason: "unexpected_response", kind: "transport", transient: false, outcome: "unknown", status: 200 });
    expect(error.message).toBe(
      `The endpoint ${url} answered HTTP 200 (text/html; charset=utf-8) with an HTML page, not an MCP response: "Sign in - Corp Proxy: Please authenticate to continue.". Check the server URL, or the proxy in front of it.`,
    );
  });
});

describe("an HTML page answered with 200, to the v2 client in auto mode without the toolkit's facts", () => {
  it("still names the URL and the content type, and says what to check", async () => {
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/html" }).end("<html><title>Login</title></html>");
    });
    const port = await listen(server);
    const url = `http://127.0.0.1:${port}/mcp`;
    const client = new V2Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const error = await rejectionOf(client.connect(new V2StreamableHTTPClientTransport(new URL(url))));
    await client.close();
    expect(error).toMatchObject({ name: "SdkError", code: "ERA_NEGOTIATION_FAILED" });
    const e = normalize(error, { url });
    expect(e).toMatchObject({ reason: "unexpected_response", outcome: "unknown" });
    expect(e.message).toBe(`The endpoint ${url} answered (text/html) with content type text/html, not an MCP response. Check the server URL, or the proxy in front of it.`);
  });
});

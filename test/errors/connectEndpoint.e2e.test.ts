/**
 * Issue 35: `connect()` to a URL whose path is wrong said "HTTP 404: Non-200 status code (404)":
 * no URL, nothing to check, and only the SSE fallback's failure (the streamable transport's own
 * was lost). It now names the URL, adds what doctor says to check for a 404, 405 or 400 (the
 * path, or the transport), and keeps both failures when the SSE fallback fails too. A real
 * HTTP server on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolError } from "../../src/index.js";
import { rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

const TEXT: Record<number, string> = { 404: "Not Found", 405: "Method Not Allowed", 400: "Bad Request" };

async function answering(status: number): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(status, { "content-type": "text/plain" }).end(TEXT[status]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mpc`, seen };
}

const connect = (url: string, transport: "http" | "sse", era?: "legacy" | "auto") =>
  rejectionOf(McpToolkit.connect({ servers: { s: transport === "http" ? { transport, url, ...(era ? { era } : {}) } : { transport, url } } })) as Promise<McpToolError>;

describe("connect to a URL answering 404 on its MCP path", () => {
  it.each(["legacy", "auto"] as const)("(http, era %s) names the URL, keeps both failures and says to check the path", async (era) => {
    const { url, seen } = await answering(404);
    const error = await connect(url, "http", era);
    expect(error).toMatchObject({ reason: "http_error", status: 404, outcome: "not_sent", serverName: "s" });
    expect(error.message).toContain(`HTTP 404 from ${url}: Not Found.`);
    expect(error.message).toContain("The SSE fallback failed too: HTTP 404");
    expect(error.message).toMatch(/Check the URL's path \(often \/mcp, or \/sse for the sse transport\)\.$/);
    // The hint once, after both failures.
    expect(error.message.split("Check the URL's path")).toHaveLength(2);
    // The streamable POST, then the SSE transport's GET.
    expect(seen).toContain("POST /mpc");
    expect(seen).toContain("GET /mpc");
  });

  it("(sse) names the URL and says to check the path", async () => {
    const { url } = await answering(404);
    const error = await connect(url, "sse");
    expect(error.message).toBe(`HTTP 404 from ${url}: Non-200 status code (404). Check the URL's path (often /mcp, or /sse for the sse transport).`);
  });
});

describe.each([405, 400])("connect to a URL answering %i", (status) => {
  it("names the URL and says to check the transport", async () => {
    const { url } = await answering(status);
    const error = await connect(url, "http");
    expect(error).toMatchObject({ reason: "http_error", status });
    expect(error.message).toContain(`HTTP ${status} from ${url}: ${TEXT[status]}.`);
    expect(error.message).toContain("The SSE fallback failed too");
    expect(error.message).toContain("the transport (`http` or `sse`)");
  });
});

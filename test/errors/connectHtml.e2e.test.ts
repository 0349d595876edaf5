/**
 * Issue 35: an HTML 500 page answering the connect's first request reached the error's message
 * with its markup (doctype, style, script), though an error page is to be read as its title
 * and main sentence. The v2 client puts the page after a sentence of its own ("Version
 * negotiation failed: …"), where the page was not recognised. A real HTTP server on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolError } from "../../src/index.js";
import { rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

const PAGE = `<!DOCTYPE html><html><head><title>500 Internal Server Error</title><style>body{color:red}</style></head>
<body><h1>500 Internal Server Error</h1><p>The server encountered an internal error and was unable to complete your request.</p>
<script>window.track && track("500")</script></body></html>`;

async function htmlServer(): Promise<string> {
  const server: Server = createServer((request, response) => {
    request.resume();
    response.writeHead(500, { "content-type": "text/html; charset=utf-8" });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe.each(["legacy", "auto", "modern"] as const)("connect (era %s) to a URL answering an HTML 500 page", (era) => {
  it("rejects with the page's title and main sentence, no markup", async () => {
    const url = await htmlServer();
    const error = (await rejectionOf(McpToolkit.connect({ servers: { s: { transport: "http", url, era } } }))) as McpToolError;
    expect(error).toMatchObject({ reason: "server_error", status: 500 });
    expect(error.message).toContain("500 Internal Server Error: The server encountered an internal error and was unable to complete your request.");
    expect(error.message).not.toMatch(/<|DOCTYPE|color:red|track\(/);
  });
});

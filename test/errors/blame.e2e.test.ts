/**
 * Issue 44, "messages blame the right thing": each mistake is named where the person looks.
 * - a `fallback` naming a server that is not configured says so, and lists the servers there are;
 * - a 401 or 403 at connect names the server, its URL, the challenge's error and the field to
 *   check, not the SDK's "Version negotiation failed";
 * - a refused port at connect names the server and its URL;
 * - `command: "node x.js"` says to move the arguments to `args`;
 * - the model's line for an error with no tool name does not invent a tool called 'unknown'.
 * Real HTTP servers on 127.0.0.1 and a real spawn.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ErrorHandler, McpConfigError, McpToolError, McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { HINTS } from "../../src/errors/reasons.js";
import { connectFailure } from "../../src/mcp/session/startFailure.js";
import { startHttpFixture } from "../servers/http.js";
import { closedPort, rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

const connectError = async (config: McpToolkitConfig) => (await rejectionOf(McpToolkit.connect(config))) as McpToolError;
const stdio = { transport: "stdio", command: "node" } as const;

describe("a fallback that names no configured server", () => {
  it("in a tools policy: names the missing server and lists the configured ones, under the policy's field", async () => {
    const error = await rejectionOf(McpToolkit.connect({ servers: { github: stdio }, tools: { search: { fallback: "search_mirror" } } }));
    expect(error).toBeInstanceOf(McpConfigError);
    expect(error).toMatchObject({
      field: "tools.search.fallback",
      message: "Invalid MCP toolkit configuration: tools.search.fallback: no server named 'search_mirror' (servers: github)",
    });
  });

  it("in a server's own fallback: the same words, under the server's field", async () => {
    const error = await rejectionOf(McpToolkit.connect({ servers: { github: { ...stdio, fallback: "search_mirror" }, files: stdio } }));
    expect(error).toMatchObject({
      field: "servers.github.fallback",
      message: "Invalid MCP toolkit configuration: servers.github.fallback: no server named 'search_mirror' (servers: github, files)",
    });
  });

  it("suggests the server a misspelt name probably meant", async () => {
    const error = await rejectionOf(McpToolkit.connect({ servers: { github: stdio, files: stdio }, tools: { "files/*": { fallback: "githb" } } }));
    expect((error as Error).message).toBe("Invalid MCP toolkit configuration: tools.files/*.fallback: no server named 'githb' (servers: github, files); did you mean 'github'?");
  });
});

/** A real HTTP server answering every request `status` with `headers` and `body`. */
async function refusing(status: number, headers: Record<string, string>, body: string): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

describe("credentials refused at connect", () => {
  const WRONG = "Bearer tok-wrong-5f0c2a9d81e7";

  it.each([
    ["http", "auto"],
    ["http", "legacy"],
    ["http", "modern"],
    ["sse", undefined],
  ] as const)("a 401 with WWW-Authenticate invalid_token (%s, era %s) names server, URL, the challenge's error and the header to check", async (transport, era) => {
    const fixture = await startHttpFixture({ bearer: "the-right-token", ...(transport === "sse" ? { mode: "sse" as const } : {}) });
    defer(() => fixture.close());
    const url = fixture.url.href;
    const error = await connectError({
      servers: { api: transport === "http" ? { transport, url, era: era!, headers: { Authorization: WRONG } } : { transport, url, headers: { Authorization: WRONG } } },
    });
    expect(error).toMatchObject({ reason: "unauthorized", status: 401, outcome: "not_sent", serverName: "api" });
    expect(error.message).toBe(`Server 'api' (${url}) refused the credentials (HTTP 401, invalid_token): check headers.Authorization.`);
    expect(error.message).not.toContain("Version negotiation");
    expect(String(error)).not.toContain("tok-wrong");
  });

  it.each(["auto", "legacy"] as const)("a 403 insufficient_scope (era %s) quotes the short description and names the scope", async (era) => {
    const { port } = await refusing(
      403,
      { "www-authenticate": 'Bearer error="insufficient_scope", error_description="The token lacks the mcp:tools scope", scope="mcp:tools"' },
      '{"error":"insufficient_scope"}',
    );
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError({ servers: { api: { transport: "http", url, era, headers: { "X-Api-Key": "k-3f9a1c7e5b2d8046" } } } });
    expect(error).toMatchObject({ reason: "forbidden", status: 403, serverName: "api" });
    expect(error.message).toBe(
      `Server 'api' (${url}) refused the credentials (HTTP 403, insufficient_scope: "The token lacks the mcp:tools scope"): check headers.X-Api-Key. The token needs scope 'mcp:tools'.`,
    );
    expect(String(error)).not.toContain("k-3f9a1c7e5b2d8046");
  });

  it("a 403 whose challenge names only the error: the error, no description", async () => {
    const { port } = await refusing(403, { "www-authenticate": 'Bearer error="invalid_token"' }, "");
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError({ servers: { api: { transport: "http", url, headers: { Authorization: WRONG } } } });
    expect(error.message).toBe(`Server 'api' (${url}) refused the credentials (HTTP 403, invalid_token): check headers.Authorization.`);
  });

  it("a long description stays out of the line: the field to check matters more", async () => {
    const long = `The presented access token was issued for another audience ${"and cannot be used here ".repeat(4)}`.trim();
    const { port } = await refusing(401, { "www-authenticate": `Bearer error="invalid_token", error_description="${long}"` }, "");
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError({ servers: { api: { transport: "http", url, headers: { Authorization: WRONG } } } });
    expect(error.message).toBe(`Server 'api' (${url}) refused the credentials (HTTP 401, invalid_token): check headers.Authorization.`);
  });

  it("a 401 without a challenge reads the OAuth error from the body", async () => {
    const { port } = await refusing(401, {}, '{"error":"invalid_token","error_description":"expired"}');
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError({ servers: { api: { transport: "http", url, era: "legacy", headers: { Authorization: WRONG } } } });
    expect(error.message).toBe(`Server 'api' (${url}) refused the credentials (HTTP 401, invalid_token: "expired"): check headers.Authorization.`);
  });

  it("a 401 with neither challenge nor JSON quotes a short plain body, redacted", async () => {
    const { port } = await refusing(401, { "content-type": "text/plain" }, "API key expired for k-3f9a1c7e5b2d8046");
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await connectError({ servers: { api: { transport: "http", url, era: "legacy", headers: { "X-Api-Key": "k-3f9a1c7e5b2d8046" } } } });
    expect(error.message).toBe(`Server 'api' (${url}) refused the credentials (HTTP 401, "API key expired for [REDACTED]"): check headers.X-Api-Key.`);
  });

  it("a 401 to a server configured with no credentials says to set them", async () => {
    const fixture = await startHttpFixture({ bearer: "the-right-token" });
    defer(() => fixture.close());
    const url = fixture.url.href;
    const error = await connectError({ servers: { api: { transport: "http", url } } });
    expect(error.message).toBe(`Server 'api' (${url}) asks for credentials (HTTP 401, invalid_token) and none are configured: set headers.Authorization (or an authProvider).`);
  });

  it("names the URL without its query or user: a place, not a credential", async () => {
    const fixture = await startHttpFixture({ bearer: "the-right-token" });
    defer(() => fixture.close());
    const url = new URL(fixture.url.href);
    url.search = "?api_key=q-7d1e9b3c5a2f4860";
    const error = await connectError({ servers: { api: { transport: "http", url: url.href, era: "legacy", headers: { Authorization: WRONG } } } });
    expect(error.message).toBe(`Server 'api' (${fixture.url.href}) refused the credentials (HTTP 401, invalid_token): check headers.Authorization.`);
  });
});

describe("a refused port at connect", () => {
  it.each([
    ["http", "auto", "/mcp"],
    ["http", "legacy", "/mcp"],
    ["sse", undefined, "/sse"],
  ] as const)("(%s, era %s) names the server and its URL", async (transport, era, path) => {
    const url = `http://127.0.0.1:${await closedPort()}${path}`;
    const error = await connectError({ servers: { api: transport === "http" ? { transport, url, era: era! } : { transport, url } } });
    expect(error).toMatchObject({ reason: "connection_refused", outcome: "not_sent", serverName: "api" });
    expect(error.message).toBe(`Server 'api' (${url}) refused the connection.`);
  });
});

describe("a refused connect in the shapes Bun and Deno give (hand-built as in runtimes.test.ts)", () => {
  const url = "http://127.0.0.1:35429/mcp";
  const config = { transport: "http", url } as const;
  it.each([
    // Bun puts the code, and the URL as `path`, on the TypeError itself.
    ["Bun", Object.assign(new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?"), { path: url, errno: 0, code: "ECONNREFUSED" })],
    // Deno: no code, the Rust error chain in the cause's message.
    ["Deno", new TypeError("fetch failed", { cause: new Error(`error sending request for url (${url}): client error (Connect): tcp connect error: Connection refused (os error 111)`) })],
  ])("%s: names the server and its URL", (_runtime, error) => {
    const failure = connectFailure("api", error, undefined, { config, lastExit: undefined, restarted: false });
    expect(failure).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
    expect(failure.message).toBe(`Server 'api' (${url}) refused the connection.`);
  });

  it("names the address tried where it is not the URL's own", () => {
    const error = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED ::1:35429"), { code: "ECONNREFUSED", syscall: "connect", address: "::1", port: 35429 }) });
    const failure = connectFailure("api", error, undefined, { config: { transport: "http", url: "http://localhost:35429/mcp" }, lastExit: undefined, restarted: false });
    expect(failure.message).toBe("Server 'api' (http://localhost:35429/mcp) refused the connection at ::1:35429.");
  });
});

describe("arguments inside a stdio server's command", () => {
  it("a real spawn of 'node x.js' says to move the arguments to args", async () => {
    const error = await connectError({ servers: { files: { transport: "stdio", command: "node x.js" } } });
    expect(error).toMatchObject({ reason: "spawn_failed", outcome: "not_sent", transient: false });
    expect(error.message).toBe(`Could not start the server command 'node x.js': command not found (the command holds spaces: put its arguments in "args": { command: "node", args: ["x.js"] }).`);
  });

  it("keeps the args already given, after the ones to move", async () => {
    const error = await connectError({ servers: { files: { transport: "stdio", command: "node  x.js --port 3", args: ["--verbose"] } } });
    expect(error.message).toBe(
      `Could not start the server command 'node  x.js --port 3': command not found (the command holds spaces: put its arguments in "args": { command: "node", args: ["x.js","--port","3","--verbose"] }).`,
    );
  });

  it("a missing one-word command gets no such hint", async () => {
    const error = await connectError({ servers: { files: { transport: "stdio", command: "mcp-server-that-does-not-exist-44" } } });
    expect(error.message).toBe("Could not start the server command 'mcp-server-that-does-not-exist-44': command not found.");
  });
});

describe("the model's line for an error with no tool name", () => {
  it("reads 'The MCP call failed (<reason>)', inventing no tool", () => {
    const error = McpToolError.of("connection_refused", "Connection refused by 127.0.0.1:3000.", { serverName: "api" });
    expect(ErrorHandler.toModelText(error)).toBe(`Error: The MCP call failed (connection_refused): Connection refused by 127.0.0.1:3000. ${HINTS.try_later}`);
    expect(ErrorHandler.toModelText(new Error("boom"))).toMatch(/^Error: The MCP call failed \(unknown\): boom\. /);
    expect(ErrorHandler.toModelText(McpToolError.of("service_unavailable", "down", { attempts: 3 }))).toMatch(/^Error: The MCP call failed \(service_unavailable\) after 3 attempts: down\. /);
  });

  it("keeps the taxonomy's format where there is a tool name", () => {
    const error = McpToolError.of("connection_refused", "Connection refused by 127.0.0.1:3000.", { toolName: "search" });
    expect(ErrorHandler.toModelText(error)).toBe(`Error: Tool 'search' failed (connection_refused): Connection refused by 127.0.0.1:3000. ${HINTS.try_later}`);
    expect(ErrorHandler.toModelText(new Error("boom"), { toolName: "lookup" })).toMatch(/^Error: Tool 'lookup' failed \(unknown\): boom\. /);
  });
});

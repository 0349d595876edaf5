/**
 * A real OAuth authorization-code flow against a protected MCP server on 127.0.0.1: the first
 * request meets 401 with `WWW-Authenticate: Bearer resource_metadata=…`, the SDK discovers the
 * protected resource and its authorization server (both documents over 8 KB), registers a
 * client and hands the app an authorization URL. The toolkit's HTTP layer must let all of that
 * through untouched, and report what stopped the connect as `unauthorized`, with what the
 * server's challenge said.
 */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { closeLater, cleanups, toolkitFor } from "./helpers.js";
import { MemoryOAuthProvider } from "./oauthClient.js";
import { MCP_SCOPE, startOAuthServer, type OAuthServerOptions } from "./oauthServer.js";

type HttpServer = Extract<McpToolkitConfig["servers"][string], { transport: "http" }>;

async function protectedServer(options: OAuthServerOptions = {}) {
  return closeLater(await startOAuthServer(options));
}

/** Connects a toolkit and returns the error it rejected with. */
async function connectFails(url: URL, server: Partial<HttpServer>, transport: "http" | "sse" = "http"): Promise<McpToolError> {
  const connecting = McpToolkit.connect({ servers: { secure: { url: url.href, ...server, transport } }, breaker: { enabled: false } });
  const error = await connecting.then(
    (toolkit) => {
      cleanups.push(() => toolkit.close());
      throw new Error("connected without authorization");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpToolError);
  return error as McpToolError;
}

describe.each(["auto", "legacy", "modern"] as const)("an OAuth-protected server, era %s", (era) => {
  it("discovers metadata over 8 KB, asks the app to authorize, and reports unauthorized with the challenge", async () => {
    const server = await protectedServer();
    const provider = new MemoryOAuthProvider();
    const error = await connectFails(server.url, { authProvider: provider, era });

    expect(server.documentBytes.resource).toBeGreaterThan(8192);
    expect(server.documentBytes.authorizationServer).toBeGreaterThan(8192);
    // Discovery and registration succeeded: the SDK built the authorization URL.
    expect(provider.redirects.length).toBeGreaterThanOrEqual(1);
    const url = provider.redirects.at(-1)!;
    expect(`${url.origin}${url.pathname}`).toBe(`${server.origin}/authorize`);
    expect(url.searchParams.get("client_id")).toBe("client-1");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("scope")).toBe(MCP_SCOPE);
    expect(url.searchParams.get("resource")).toBe(server.url.href);
    expect(server.seen).toContain("POST /register");

    expect(error.reason).toBe("unauthorized");
    expect(error.status).toBe(401);
    expect(error.outcome).toBe("not_sent");
    expect(error.transient).toBe(false);
    // What the challenge said: no error yet (no token was sent), the scope to ask for.
    expect(error.message).toContain(`The server asks for authorization with scope '${MCP_SCOPE}'`);
    // Named by the server and its URL, and what is left to do: not the credentials, none were sent yet.
    expect(error.message).toBe(
      `Server 'secure' (${server.url.href}) asks for authorization (HTTP 401): finish the authProvider's authorization flow, then connect again. The server asks for authorization with scope '${MCP_SCOPE}'.`,
    );
  });

  it("connects and calls a tool once the app has finished the flow", async () => {
    const server = await protectedServer();
    const provider = new MemoryOAuthProvider();
    await connectFails(server.url, { authProvider: provider, era });
    await provider.approve(server.url);
    expect(server.seen).toContain("POST /token");

    const { call } = await toolkitFor(server.url, { authProvider: provider, era });
    expect(await call("echo", { text: "authorized" })).toEqual({ status: "success", content: "authorized" });
  });
});

describe("OAuth on other paths", () => {
  it("reads an authorization server's metadata from openid-configuration", async () => {
    const server = await protectedServer({ metadataAt: "openid-configuration" });
    const provider = new MemoryOAuthProvider();
    const error = await connectFails(server.url, { authProvider: provider });
    expect(server.seen).toContain("GET /.well-known/openid-configuration");
    expect(provider.redirects.at(-1)?.pathname).toBe("/authorize");
    expect(error.reason).toBe("unauthorized");
  });

  it("a token revoked mid-session: the call is unauthorized, with the server's error and description", async () => {
    const server = await protectedServer();
    const provider = new MemoryOAuthProvider();
    await connectFails(server.url, { authProvider: provider });
    await provider.approve(server.url);
    const { call } = await toolkitFor(server.url, { authProvider: provider });
    server.revokeTokens();

    const reply = await call("echo", { text: "after revocation" });
    expect(reply.status).toBe("error");
    expect(reply.error).toMatchObject({ reason: "unauthorized", status: 401, outcome: "not_sent" });
    expect(reply.content).toContain("The access token is expired or revoked (invalid_token)");
    // The SDK went back to the authorization server for a new grant.
    expect(provider.redirects.length).toBe(2);
    expect(server.state.calls).not.toContain("echo");
  });

  it("without an authProvider, a 401 with WWW-Authenticate is unauthorized with the challenge's words", async () => {
    const server = await protectedServer();
    const error = await connectFails(server.url, { headers: { authorization: "Bearer stale-token" } });
    expect(error.reason).toBe("unauthorized");
    expect(error.status).toBe(401);
    expect(error.message).toBe(`Server 'secure' (${server.url.href}) refused the credentials (HTTP 401, invalid_token: "The access token is expired or revoked"): check headers.authorization.`);
  });
});

describe("OAuth over the legacy SSE transport", () => {
  it("a 401 on the GET that opens the event stream: discovery succeeds and the connect is unauthorized", async () => {
    const server = await protectedServer({ mode: "sse" });
    const provider = new MemoryOAuthProvider();
    const error = await connectFails(server.url, { authProvider: provider }, "sse");
    expect(server.seen.slice(0, 3)).toEqual(["GET /sse", "GET /.well-known/oauth-protected-resource/sse", "GET /.well-known/oauth-authorization-server"]);
    expect(provider.redirects.at(-1)?.searchParams.get("resource")).toBe(server.url.href);
    expect(error).toMatchObject({ reason: "unauthorized", status: 401 });
    expect(error.message).toContain(`scope '${MCP_SCOPE}'`);

    await provider.approve(server.url);
    const toolkit = await McpToolkit.connect({ servers: { secure: { transport: "sse", url: server.url.href, authProvider: provider } } });
    cleanups.push(() => toolkit.close());
    expect(toolkit.getTools().map((t) => t.name)).toContain("echo");
  });
});

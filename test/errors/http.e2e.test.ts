/**
 * ERRORS.md, "Transport errors" at the HTTP layer: a real streamable-HTTP (and legacy SSE) MCP
 * server on 127.0.0.1 answering with statuses, forgetting sessions, requiring bearer tokens
 * (the fixture's check, and the SDK's own requireBearerAuth middleware), dropping streams.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { normalize, parseRetryAfter } from "../../src/errors/normalize.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { startHttpFixture, type HttpFixture, type HttpFixtureOptions } from "../servers/http.js";
import { closedPort, eventually, expectClassified, rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

function newClient(): Client {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  defer(() => client.close());
  return client;
}

async function fixture(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  const http = await startHttpFixture(options);
  defer(() => http.close());
  return http;
}

/** A fetch that remembers the last response's headers: the SDK's errors carry none. */
function recordingFetch(): { fetch: FetchLike; headers: () => Headers | undefined } {
  let last: Headers | undefined;
  return {
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      last = response.headers;
      return response;
    },
    headers: () => last,
  };
}

async function streamable(http: HttpFixture, options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {}) {
  const transport = new StreamableHTTPClientTransport(http.url, options);
  const client = newClient();
  await client.connect(transport);
  return { client, transport };
}

const echo = (client: Client) => client.callTool({ name: "echo", arguments: { text: "hi" } });

describe("statuses from a streamable-HTTP server", () => {
  it.each([400, 405, 406, 409, 413, 415, 422, 501, 505, 511])("classifies a %i (StreamableHTTPError) as http_error: permanent, not sent", async (status) => {
    const http = await fixture();
    const { client } = await streamable(http);
    http.failNext(status);
    const error = await rejectionOf(echo(client));
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect(error).toMatchObject({ code: status, message: `Streamable HTTP error: Error POSTing to endpoint: planned failure ${status}` });
    expectClassified(normalize(error), { reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", status }, error);
    expect(http.state.calls).toEqual([]);
  });

  it("classifies a 403 as forbidden", async () => {
    const http = await fixture();
    const { client } = await streamable(http);
    http.failNext(403);
    const error = await rejectionOf(echo(client));
    expectClassified(normalize(error), { reason: "forbidden", kind: "transport", transient: false, outcome: "not_sent", status: 403 }, error);
  });

  it("classifies a 408 as request_timeout: transport kind, transient, not sent", async () => {
    const http = await fixture();
    const { client } = await streamable(http);
    http.failNext(408);
    const error = await rejectionOf(echo(client));
    expectClassified(normalize(error), { reason: "request_timeout", kind: "transport", transient: true, outcome: "not_sent", status: 408 }, error);
  });

  it("classifies a 429 as rate_limited; Retry-After is not on the SDK's error, so it comes from the context", async () => {
    const http = await fixture();
    const recorder = recordingFetch();
    const { client } = await streamable(http, { fetch: recorder.fetch });
    http.failNext(429, { retryAfter: "7" });
    const error = await rejectionOf(echo(client));
    expect(Object.keys(error as object)).not.toContain("headers");
    expectClassified(normalize(error), { reason: "rate_limited", kind: "transport", transient: true, outcome: "not_sent", status: 429 }, error);

    const retryAfterMs = parseRetryAfter(recorder.headers()?.get("retry-after"));
    expect(retryAfterMs).toBe(7000);
    expectClassified(normalize(error, { retryAfterMs }), { reason: "rate_limited", kind: "transport", transient: true, outcome: "not_sent", status: 429, retryAfterMs: 7000 }, error);
  });

  it("reads a Retry-After given as an HTTP date", async () => {
    const http = await fixture();
    const recorder = recordingFetch();
    const { client } = await streamable(http, { fetch: recorder.fetch });
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 30_000);
    http.failNext(429, { retryAfter: at.toUTCString() });
    const error = await rejectionOf(echo(client));
    const retryAfterMs = parseRetryAfter(recorder.headers()?.get("retry-after"), at.getTime() - 30_000);
    expect(normalize(error, { retryAfterMs })).toMatchObject({ reason: "rate_limited", retryAfterMs: 30_000 });
  });

  it.each([503, 521, 522, 523])("classifies a %i (the proxy could not reach the server) as service_unavailable: transient, not sent", async (status) => {
    const http = await fixture();
    const { client } = await streamable(http);
    http.failNext(status);
    const error = await rejectionOf(echo(client));
    expectClassified(normalize(error), { reason: "service_unavailable", kind: "transport", transient: true, outcome: "not_sent", status }, error);
  });

  it("keeps a 503's Retry-After from the context", async () => {
    const http = await fixture();
    const recorder = recordingFetch();
    const { client } = await streamable(http, { fetch: recorder.fetch });
    http.failNext(503, { retryAfter: "120" });
    const error = await rejectionOf(echo(client));
    const retryAfterMs = parseRetryAfter(recorder.headers()?.get("retry-after"));
    expectClassified(normalize(error, { retryAfterMs }), { reason: "service_unavailable", kind: "transport", transient: true, outcome: "not_sent", status: 503, retryAfterMs: 120_000 }, error);
  });

  it.each([500, 502, 504, 520, 524])("classifies a %i as server_error: transport kind, transient, outcome unknown (a proxy may have lost the upstream after it ran the tool)", async (status) => {
    const http = await fixture();
    const { client } = await streamable(http);
    http.failNext(status);
    const error = await rejectionOf(echo(client));
    expectClassified(normalize(error), { reason: "server_error", kind: "transport", transient: true, outcome: "unknown", status }, error);
  });
});

describe("session_expired", () => {
  // `connection: close` keeps undici from reusing a keep-alive socket the restart destroyed
  // (see the keep-alive test below for what happens otherwise).
  const noKeepAlive = { requestInit: { headers: { connection: "close" } } };

  it("classifies the 404 'Session not found' after the server restarted (forgetting the session) as session_expired", async () => {
    const http = await fixture();
    const { client, transport } = await streamable(http, noKeepAlive);
    await echo(client);
    expect(transport.sessionId).toEqual(expect.any(String));
    await http.restart();

    const error = await rejectionOf(echo(client));
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect(error).toMatchObject({ code: 404 });
    expect((error as Error).message).toContain('"code":-32001,"message":"Session not found"');
    const want = { reason: "session_expired", kind: "transport", transient: true, outcome: "not_sent", status: 404 } as const;
    expectClassified(normalize(error), want, error);
    expectClassified(normalize(error, { hadSession: transport.sessionId !== undefined }), want, error);
  });

  it("lets the context decide a bare 404: session_expired while holding a session id, http_error otherwise", async () => {
    const http = await fixture();
    const { client, transport } = await streamable(http);
    http.failNext(404, { body: "Not Found" });
    const error = await rejectionOf(echo(client));
    expect(error).toMatchObject({ code: 404, message: "Streamable HTTP error: Error POSTing to endpoint: Not Found" });
    expectClassified(normalize(error, { hadSession: transport.sessionId !== undefined }), { reason: "session_expired", kind: "transport", transient: true, outcome: "not_sent", status: 404 }, error);
    expectClassified(normalize(error), { reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", status: 404 }, error);
  });

  it("classifies the 400 'No valid session ID provided' some servers send for an unknown session as session_expired", async () => {
    const http = await fixture({ unknownSession: 400 });
    const { client } = await streamable(http, noKeepAlive);
    await echo(client);
    await http.restart();
    const error = await rejectionOf(echo(client));
    expect(error).toMatchObject({ code: 400 });
    expect((error as Error).message).toContain("Bad Request: No valid session ID provided");
    expectClassified(normalize(error), { reason: "session_expired", kind: "transport", transient: true, outcome: "not_sent", status: 400 }, error);
  });

  it("may first fail on a stale keep-alive socket (UND_ERR_SOCKET: connection_reset) before the restarted server's 404 arrives", async () => {
    const http = await fixture();
    const { client } = await streamable(http);
    await echo(client);
    await http.restart();
    const reasons: string[] = [];
    for (let attempt = 0; attempt < 5 && !reasons.includes("session_expired"); attempt++) {
      const error = await rejectionOf(echo(client));
      const e = normalize(error);
      if (e.reason === "connection_reset") expect(error).toMatchObject({ message: "fetch failed", cause: { code: "UND_ERR_SOCKET" } });
      reasons.push(e.reason);
    }
    expect(reasons.at(-1)).toBe("session_expired");
    expect(new Set(reasons.slice(0, -1))).toEqual(new Set(reasons.length > 1 ? ["connection_reset"] : []));
  });
});

describe("unauthorized and forbidden", () => {
  it("classifies the fixture's 401 for a missing bearer token as unauthorized", async () => {
    const http = await fixture({ bearer: "s3cret" });
    const client = newClient();
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(http.url)));
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect(error).toMatchObject({ code: 401 });
    expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent", status: 401 }, error);
  });

  describe("behind the SDK's requireBearerAuth middleware", () => {
    /** A stateless MCP endpoint behind requireBearerAuth, with a minimal Express-style response. */
    async function bearerServer(): Promise<URL> {
      const middleware = requireBearerAuth({
        verifier: {
          verifyAccessToken: async (token: string) => {
            if (token === "expired") throw new InvalidTokenError("Token has expired");
            return { token, clientId: "client-1", scopes: token === "narrow" ? [] : ["tools"], expiresAt: Date.now() / 1000 + 3600 };
          },
        },
        requiredScopes: ["tools"],
      }) as unknown as (req: IncomingMessage, res: ServerResponse, next: () => void) => Promise<void>;
      const server = createServer((req, res) => {
        if (req.url?.startsWith("/.well-known/")) {
          res.writeHead(404).end();
          return;
        }
        const express = res as ServerResponse & Record<string, (...args: never[]) => unknown>;
        express.set = (name: string, value: string) => (res.setHeader(name, value), express);
        express.status = (code: number) => ((res.statusCode = code), express);
        express.json = (body: unknown) => (res.setHeader("content-type", "application/json"), res.end(JSON.stringify(body)), express);
        void middleware(req, res, () => {
          const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
          const mcp = buildFixtureServer(newState());
          void mcp.connect(transport).then(() => transport.handleRequest(req, res));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      defer(() => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      });
      return new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
    }

    const withToken = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

    it("lets a valid token through (the server is real)", async () => {
      const url = await bearerServer();
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(url, withToken("good")));
      expect(await echo(client)).toEqual({ content: [{ type: "text", text: "hi" }] });
    });

    it("classifies the 401 for a missing token (InvalidTokenError on the server) as unauthorized", async () => {
      const url = await bearerServer();
      const client = newClient();
      const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(url)));
      expect(error).toMatchObject({ code: 401 });
      expect((error as Error).message).toContain('{"error":"invalid_token","error_description":"Missing Authorization header"}');
      expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent", status: 401 }, error);
    });

    it("classifies the 401 for an expired token (the verifier's InvalidTokenError) as unauthorized", async () => {
      const url = await bearerServer();
      const client = newClient();
      const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(url, withToken("expired"))));
      expect((error as Error).message).toContain('"error_description":"Token has expired"');
      expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent", status: 401 }, error);
    });

    it("classifies the 403 for a token without the required scope (InsufficientScopeError on the server) as forbidden", async () => {
      const url = await bearerServer();
      const client = newClient();
      const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(url, withToken("narrow"))));
      expect(error).toMatchObject({ code: 403 });
      expect((error as Error).message).toContain('{"error":"insufficient_scope","error_description":"Insufficient scope"}');
      expectClassified(normalize(error), { reason: "forbidden", kind: "transport", transient: false, outcome: "not_sent", status: 403 }, error);
    });

    describe("with an OAuth client provider that must send the user to sign in", () => {
      function provider(tokens?: { access_token: string; token_type: string }): OAuthClientProvider & { redirects: URL[] } {
        const redirects: URL[] = [];
        return {
          redirects,
          redirectUrl: "http://127.0.0.1/callback",
          clientMetadata: { redirect_uris: ["http://127.0.0.1/callback"], client_name: "test-client" },
          clientInformation: () => ({ client_id: "client-1" }),
          tokens: () => tokens,
          saveTokens: () => {},
          redirectToAuthorization: (url: URL) => {
            redirects.push(url);
          },
          saveCodeVerifier: () => {},
          codeVerifier: () => "verifier",
        };
      }

      it("classifies the SDK's UnauthorizedError (after a 401 and a redirect to /authorize) as unauthorized", async () => {
        const url = await bearerServer();
        const auth = provider();
        const client = newClient();
        const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(url, { authProvider: auth })));
        expect(error).toBeInstanceOf(UnauthorizedError);
        expect(auth.redirects.map((u) => u.pathname)).toEqual(["/authorize"]);
        expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent" }, error);
      });

      it("turns a 403 insufficient_scope into an UnauthorizedError too (the SDK tries to upscope): unauthorized", async () => {
        const url = await bearerServer();
        const auth = provider({ access_token: "narrow", token_type: "Bearer" });
        const client = newClient();
        const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(url, { authProvider: auth })));
        expect(error).toBeInstanceOf(UnauthorizedError);
        expect(auth.redirects).toHaveLength(1);
        expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent" }, error);
      });
    });
  });
});

describe("legacy SSE transport", () => {
  /** Lets the first GET /sse through and holds every reconnection until the transport closes. */
  function holdReconnects(): FetchLike {
    let gets = 0;
    return (url, init) => {
      if ((init?.method ?? "GET") === "GET" && ++gets > 1) {
        return new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }));
      }
      return fetch(url, init);
    };
  }

  async function sse(http: HttpFixture): Promise<Client> {
    const client = newClient();
    // `connection: close` on the POSTs: no keep-alive socket survives a restart to fail first.
    await client.connect(new SSEClientTransport(http.url, { fetch: holdReconnects(), requestInit: { headers: { connection: "close" } } }));
    return client;
  }

  it("classifies a streamable-HTTP client's POST to an SSE-only server (405) as http_error", async () => {
    const http = await fixture({ mode: "sse" });
    const client = newClient();
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`))));
    expect(error).toMatchObject({ code: 405, message: "Streamable HTTP error: Error POSTing to endpoint: Method Not Allowed" });
    expectClassified(normalize(error), { reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", status: 405 }, error);
  });

  it("classifies an SSE client's GET to a streamable-only server (SseError 400) as http_error", async () => {
    const http = await fixture();
    const client = newClient();
    const error = await rejectionOf(client.connect(new SSEClientTransport(http.url)));
    expect(error).toBeInstanceOf(SseError);
    expect(error).toMatchObject({ code: 400, message: "SSE error: Non-200 status code (400)" });
    expectClassified(normalize(error), { reason: "http_error", kind: "transport", transient: false, outcome: "not_sent", status: 400 }, error);
  });

  it("classifies an SseError 401 as unauthorized", async () => {
    const http = await fixture({ mode: "sse", bearer: "s3cret" });
    const client = newClient();
    const error = await rejectionOf(client.connect(new SSEClientTransport(http.url)));
    expect(error).toMatchObject({ code: 401, message: "SSE error: Non-200 status code (401)" });
    expectClassified(normalize(error), { reason: "unauthorized", kind: "transport", transient: false, outcome: "not_sent", status: 401 }, error);
  });

  it.each([
    [400, "http_error", false, "not_sent"],
    [413, "http_error", false, "not_sent"],
    [429, "rate_limited", true, "not_sent"],
    [503, "service_unavailable", true, "not_sent"],
    [500, "server_error", true, "unknown"],
  ] as const)("classifies an SSE POST failing with %i (a plain Error 'Error POSTing to endpoint (HTTP …)') as %s", async (status, reason, transient, outcome) => {
    const http = await fixture({ mode: "sse" });
    const client = await sse(http);
    http.failNext(status);
    const error = await rejectionOf(echo(client));
    expect(error).not.toBeInstanceOf(SseError);
    expect(error).toMatchObject({ message: `Error POSTing to endpoint (HTTP ${status}): planned failure ${status}` });
    expectClassified(normalize(error), { reason, kind: "transport", transient, outcome, status }, error);
  });

  it("classifies an SSE POST answered 404 'Session not found' after the server restarted as session_expired", async () => {
    const http = await fixture({ mode: "sse" });
    const client = await sse(http);
    await http.restart();
    const error = await rejectionOf(echo(client));
    expect(error).toMatchObject({ message: "Error POSTing to endpoint (HTTP 404): Session not found" });
    expectClassified(normalize(error), { reason: "session_expired", kind: "transport", transient: true, outcome: "not_sent", status: 404 }, error);
  });

  it("classifies an SSE connect to a closed port (SseError with no status, the cause flattened into text) as connection_refused", async () => {
    const port = await closedPort();
    const client = newClient();
    const error = await rejectionOf(client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`))));
    expect(error).toBeInstanceOf(SseError);
    expect(error).toMatchObject({ code: undefined, message: `SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}` });
    const e = expectClassified(normalize(error), { reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" }, error);
    expect(e.message).toBe(`Connection refused by 127.0.0.1:${port}.`);
  });

  it("classifies an SSE connect to a host under .invalid (ENOTFOUND in the SseError's text) as dns_failure", async () => {
    const client = newClient();
    const error = await rejectionOf(client.connect(new SSEClientTransport(new URL("http://mcp.invalid/sse"))));
    expect(error).toMatchObject({ code: undefined, message: "SSE error: TypeError: fetch failed: getaddrinfo ENOTFOUND mcp.invalid" });
    expectClassified(normalize(error), { reason: "dns_failure", kind: "transport", transient: false, outcome: "not_sent" }, error);
  });

  it("classifies the SseError reported when the SSE stream drops ('SSE error: undefined') as stream_error", async () => {
    const http = await fixture({ mode: "sse" });
    const client = await sse(http);
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    await http.close();
    await eventually(() => expect(errors.length).toBeGreaterThan(0));
    const error = errors[0];
    expect(error).toBeInstanceOf(SseError);
    expect(error).toMatchObject({ code: undefined, message: "SSE error: undefined" });
    expectClassified(normalize(error), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" }, error);
  });
});

describe("stream_error on streamable HTTP (reported through onerror, not as the call's rejection)", () => {
  it("reports a POST's SSE response dropped mid-call as 'SSE stream disconnected' (stream_error) while the call stays pending", async () => {
    const http = await fixture();
    const { client } = await streamable(http);
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    let dropped = false;
    let settled = false;
    const call = rejectionOf(
      client.callTool({ name: "slow", arguments: { ms: 60_000, progressEveryMs: 10 } }, undefined, {
        onprogress: () => {
          if (dropped) return;
          dropped = true;
          http.dropInFlight();
        },
      }),
    ).finally(() => (settled = true));

    await eventually(() => expect(errors.some((e) => /^SSE stream disconnected/.test((e as Error).message))).toBe(true));
    const error = errors.find((e) => /^SSE stream disconnected/.test((e as Error).message));
    expect(error).toMatchObject({ message: "SSE stream disconnected: TypeError: terminated" });
    expectClassified(normalize(error), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" }, error);

    // No priming event id, so the SDK does not resume: the call would wait for its timeout.
    expect(settled).toBe(false);
    await client.close();
    const closed = await call;
    expectClassified(normalize(closed), { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, closed);
  });

  it("classifies 'Failed to reconnect SSE stream' and 'Maximum reconnection attempts (N) exceeded.' as stream_error", async () => {
    const http = await fixture();
    let streamOpen = false;
    const { client } = await streamable(http, {
      reconnectionOptions: { maxRetries: 2, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if ((init?.method ?? "GET") === "GET" && response.ok) streamOpen = true;
        return response;
      },
    });
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    // The standalone GET stream opens after initialization; close the server only once it is open
    // (closing earlier fails the first GET, which the SDK reports but never retries).
    await eventually(() => expect(streamOpen).toBe(true));
    await http.close(); // ends the standalone GET stream; every reconnection is refused

    const messages = () => errors.map((e) => (e as Error).message);
    await eventually(() => expect(messages()).toContain("Maximum reconnection attempts (2) exceeded."));
    const exhausted = errors.find((e) => (e as Error).message === "Maximum reconnection attempts (2) exceeded.");
    expectClassified(normalize(exhausted), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" }, exhausted);

    const failed = errors.find((e) => (e as Error).message === "Failed to reconnect SSE stream: fetch failed");
    expectClassified(normalize(failed), { reason: "stream_error", kind: "transport", transient: true, outcome: "unknown" }, failed);

    // Each refused attempt is also reported raw, with its cause intact.
    const refused = errors.find((e) => (e as Error).message === "fetch failed");
    expect(refused).toMatchObject({ cause: { code: "ECONNREFUSED" } });
    expectClassified(normalize(refused), { reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" }, refused);
  });
});

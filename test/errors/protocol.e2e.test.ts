/**
 * ERRORS.md, "Protocol errors": JSON-RPC error responses produced by real SDK servers
 * (the low-level `Server` and `McpServer`) and received by a real SDK `Client` in memory.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { buildProtocolErrorServer } from "../servers/fixture.js";
import { connectInMemory } from "../servers/memory.js";
import { connectRawServer, expectClassified, rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

/** A client connected to the fixture's low-level server whose `raise` tool answers with a JSON-RPC error. */
async function protocolErrorClient(): Promise<Client> {
  const { client, close } = await connectInMemory(buildProtocolErrorServer());
  defer(close);
  return client;
}

/** What the client's callTool rejects with when the server answers `{ code, message, data }`. */
async function raised(client: Client, code: number, message: string, data?: unknown): Promise<McpError> {
  const error = await rejectionOf(client.callTool({ name: "raise", arguments: { code, message, data } }));
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("standard JSON-RPC codes sent by a server", () => {
  it.each([
    [-32700, "parse_error", false, "not_sent"],
    [-32600, "invalid_request", false, "not_sent"],
    [-32601, "method_not_found", false, "not_sent"],
    [-32602, "invalid_params", false, "not_sent"],
    [-32603, "internal_error", true, "unknown"],
  ] as const)("classifies a server-sent %i as %s (transient %s, outcome %s)", async (code, reason, transient, outcome) => {
    const client = await protocolErrorClient();
    const error = await raised(client, code, "something went wrong");
    const e = expectClassified(normalize(error), { reason, kind: "protocol", transient, outcome, code }, error);
    // The SDK server puts its own "MCP error <code>:" prefix in the message; the client adds another.
    expect(error.message).toBe(`MCP error ${code}: MCP error ${code}: something went wrong`);
    expect(e.message).toBe("something went wrong");
  });

  it("classifies the -32601 a server without a tools capability answers to tools/call as method_not_found", async () => {
    const server = new Server({ name: "prompts-only", version: "1.0.0" }, { capabilities: { prompts: {} } });
    const { client, close } = await connectInMemory(server);
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "anything" }));
    expect(error).toMatchObject({ code: -32601, message: "MCP error -32601: Method not found" });
    expectClassified(normalize(error), { reason: "method_not_found", kind: "protocol", transient: false, outcome: "not_sent", code: -32601 }, error);
  });

  it("classifies a plain Error thrown in a low-level server's handler (sent as -32603) as internal_error", async () => {
    const server = new Server({ name: "throws", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, async () => {
      throw new Error("database is down");
    });
    const { client, close } = await connectInMemory(server);
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "query" }));
    expect(error).toMatchObject({ code: -32603, message: "MCP error -32603: database is down" });
    const e = expectClassified(normalize(error), { reason: "internal_error", kind: "protocol", transient: true, outcome: "unknown", code: -32603 }, error);
    expect(e.message).toBe("database is down");
  });
});

describe("server-defined codes (-32000..-32099 and others)", () => {
  it.each([-32000, -32001, -32050, -32099, -31999, 1001])("classifies a server-sent %i as server_error: transient, outcome unknown", async (code) => {
    const client = await protocolErrorClient();
    const error = await raised(client, code, "upstream service failed");
    const e = expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code }, error);
    expect(e.message).toBe("upstream service failed");
  });

  it("classifies a server-sent -32000 'Connection closed' as server_error, not as the SDK's local ConnectionClosed", async () => {
    // A proxy built on the SDK re-throws its upstream's ConnectionClosed. The client's McpError then
    // reads "MCP error -32000: MCP error -32000: Connection closed" (two prefixes), which the local
    // one ("MCP error -32000: Connection closed") never has.
    const client = await protocolErrorClient();
    const error = await raised(client, -32000, "Connection closed");
    expect(error.message).toBe("MCP error -32000: MCP error -32000: Connection closed");
    expect(error.data).toBeUndefined();
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32000 }, error);
  });

  it("classifies a server-sent -32001 'Request timed out' with data.timeout as server_error, not as our timeout", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32001, "Request timed out", { timeout: 1000 });
    expect(error.data).toEqual({ timeout: 1000 });
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32001 }, error);
  });

  it("classifies a server-sent -32001 'AbortError: …' as server_error, not as the caller's abort", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32001, "AbortError: This operation was aborted");
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32001 }, error);
  });

  it("classifies a server-sent -32001 'Session not found' as server_error (the 404 body is an HTTP matter)", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32001, "Session not found");
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32001 }, error);
  });

  it("classifies a server-sent -32000 'Connection closed' that carries data as server_error", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32000, "Connection closed", { upstream: "db" });
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32000 }, error);
  });

  it("cannot tell a non-SDK server's bare -32000 'Connection closed' from the local one: without context it is connection_closed", async () => {
    // Pinned limitation: a server that sends exactly { code: -32000, message: "Connection closed" }
    // produces an McpError identical to the SDK's local one. Only context can tell them apart.
    const { client, close } = await connectRawServer(() => ({ error: { code: -32000, message: "Connection closed" } }));
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "any" }));
    expect(error).toMatchObject({ code: -32000, message: "MCP error -32000: Connection closed", data: undefined });
    expectClassified(normalize(error), { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, error);
  });

  it("cannot tell a non-SDK server's bare -32001 'Request timed out' with data.timeout from our timeout: request_timeout", async () => {
    // Pinned limitation, as above: the message and data are exactly what the SDK's own timer produces.
    const { client, close } = await connectRawServer(() => ({ error: { code: -32001, message: "Request timed out", data: { timeout: 5 } } }));
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "any" }));
    expect(error).toMatchObject({ code: -32001, message: "MCP error -32001: Request timed out" });
    expectClassified(normalize(error), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown", code: -32001 }, error);
  });
});

describe("rate limiting sent by a server", () => {
  it("classifies a server-sent code 429 as rate_limited: transient, not sent", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, 429, "slow down");
    expectClassified(normalize(error), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: 429 }, error);
  });

  it("classifies any server code with data.retryAfter (seconds) as rate_limited and reads the wait", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32050, "busy", { retryAfter: 3 });
    expectClassified(normalize(error), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: -32050, retryAfterMs: 3000 }, error);
  });

  it("reads data.retryAfterMs as milliseconds", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, 429, "busy", { retryAfterMs: 1500 });
    expectClassified(normalize(error), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: 429, retryAfterMs: 1500 }, error);
  });
});

describe("URL elicitation required (-32042)", () => {
  const elicitations = [{ mode: "url" as const, message: "Sign in to continue", url: "https://auth.example.com/start", elicitationId: "e-1" }];

  it("classifies a low-level server's -32042 (the client builds an UrlElicitationRequiredError) as elicitation_required", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32042, "Sign in first", { elicitations });
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expectClassified(normalize(error), { reason: "elicitation_required", kind: "protocol", transient: false, outcome: "not_sent", code: -32042 }, error);
  });

  it("classifies an UrlElicitationRequiredError thrown in an McpServer tool (passed through, not turned into isError) as elicitation_required", async () => {
    const server = new McpServer({ name: "elicits", version: "1.0.0" });
    server.registerTool("connect_account", { description: "Needs the user to sign in." }, async () => {
      throw new UrlElicitationRequiredError(elicitations);
    });
    const { client, close } = await connectInMemory(server);
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "connect_account" }));
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expectClassified(normalize(error), { reason: "elicitation_required", kind: "protocol", transient: false, outcome: "not_sent", code: -32042 }, error);
  });
});

describe("a per-server table of custom codes", () => {
  const customCodes = { [-32003]: { reason: "rate_limited" as const }, [-32006]: { reason: "unauthorized" as const, transient: false } };

  it("maps a server's -32003 RESOURCE_BUSY to rate_limited with the reason's defaults", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32003, "resource busy");
    expectClassified(normalize(error, { customCodes }), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: -32003 }, error);
  });

  it("maps -32003 with data.retryAfter to rate_limited and keeps the wait", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32003, "resource busy", { retryAfter: 2 });
    expectClassified(normalize(error, { customCodes }), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: -32003, retryAfterMs: 2000 }, error);
  });

  it("maps a server's -32006 AUTHENTICATION_ERROR to unauthorized, not transient, kind protocol", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32006, "authentication failed");
    expectClassified(normalize(error, { customCodes }), { reason: "unauthorized", kind: "protocol", transient: false, outcome: "not_sent", code: -32006 }, error);
  });

  it("leaves a code the table does not name (-32009) as server_error", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32009, "streaming error");
    expectClassified(normalize(error, { customCodes }), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32009 }, error);
  });

  it("classifies -32003 as server_error when the server has no table", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32003, "resource busy");
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32003 }, error);
  });
});

describe("context passes through", () => {
  it("keeps toolName, serverName and attempts from the context", async () => {
    const client = await protocolErrorClient();
    const error = await raised(client, -32602, "bad");
    const e = normalize(error, { toolName: "raise", serverName: "protocol-errors", attempts: 2 });
    expect(e).toMatchObject({ toolName: "raise", serverName: "protocol-errors", attempts: 2, reason: "invalid_params" });
  });
});

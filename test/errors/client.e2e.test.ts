/**
 * ERRORS.md, "Client-side errors": failures the SDK client (or our own layer on top of it)
 * decides locally, produced by the real SDK against real servers in memory.
 */
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { fromResult } from "../../src/errors/fromResult.js";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { wrapTool } from "../../src/langchain/wrapTool.js";
import { CircuitBreaker } from "../../src/policy/CircuitBreaker.js";
import { buildFixtureServer, buildProtocolErrorServer, newState, type FixtureState } from "../servers/fixture.js";
import { connectInMemory } from "../servers/memory.js";
import { connectRawServer, eventually, expectClassified, rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

async function fixtureClient(): Promise<{ client: Client; state: FixtureState }> {
  const state = newState();
  const { client, close } = await connectInMemory(buildFixtureServer(state));
  defer(close);
  return { client, state };
}

/** Calls `slow` with progress every 10 ms and runs `onFirstProgress` once the server is surely running it. */
function slowCallWithProgress(client: Client, onFirstProgress: () => void, options: { signal?: AbortSignal } = {}) {
  let fired = false;
  return client.callTool({ name: "slow", arguments: { ms: 60_000, progressEveryMs: 10 } }, undefined, {
    ...options,
    onprogress: () => {
      if (fired) return;
      fired = true;
      onFirstProgress();
    },
  });
}

describe("request_timeout: our per-call timeout", () => {
  it("classifies the SDK's own timeout (-32001 with data.timeout) as request_timeout and sends the server notifications/cancelled", async () => {
    const { client, state } = await fixtureClient();
    const error = await rejectionOf(client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, { timeout: 50 }));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32001, message: "MCP error -32001: Request timed out", data: { timeout: 50 } });

    const e = expectClassified(normalize(error), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown", code: -32001 }, error);
    expect(e.message).toBe("The call timed out after 50 ms.");
    expectClassified(normalize(error, { timedOut: true }), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown" }, error);
    // The server's handler saw its AbortSignal fire: the SDK sent notifications/cancelled.
    await eventually(() => expect(state.aborted).toBe(1));
  });

  it("classifies the SDK's maxTotalTimeout (-32001 with data.maxTotalTimeout) as request_timeout", async () => {
    const { client } = await fixtureClient();
    const error = await rejectionOf(
      client.callTool({ name: "slow", arguments: { ms: 60_000, progressEveryMs: 10 } }, undefined, {
        onprogress: () => {},
        resetTimeoutOnProgress: true,
        // Short: when maxTotalTimeout runs out on a progress, the SDK (v1 and v2) drops its timeout
        // record without clearing the timer it last armed, which then outlives the request and
        // close(), holding the shared test worker for this long. The toolkit never hands the SDK
        // a maxTotalTimeout (TimeoutPolicy keeps its own), so it never meets this.
        timeout: 2_000,
        maxTotalTimeout: 50,
      }),
    );
    expect(error).toMatchObject({ code: -32001, message: "MCP error -32001: Maximum total timeout exceeded", data: { maxTotalTimeout: 50 } });
    const e = expectClassified(normalize(error), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown", code: -32001 }, error);
    expect(e.message).toBe("The call exceeded its maximum total time of 50 ms.");
  });

  it("classifies an AbortSignal.timeout() firing as request_timeout, not cancelled", async () => {
    const { client } = await fixtureClient();
    const error = await rejectionOf(client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, { signal: AbortSignal.timeout(20) }));
    // Mid-call it is McpError -32001 "TimeoutError: …"; had it fired before sending, the SDK would
    // have thrown the signal's DOMException TimeoutError itself. Both classify the same.
    const e = normalize(error);
    expect(e).toMatchObject({ reason: "request_timeout", kind: "client", transient: true, outcome: "unknown" });
    expect(e.cause).toBe(error);
  });
});

describe("cancelled: the caller's AbortSignal", () => {
  it("classifies a mid-call abort (the SDK's -32001 without data) as cancelled", async () => {
    const { client, state } = await fixtureClient();
    const controller = new AbortController();
    const error = await rejectionOf(slowCallWithProgress(client, () => controller.abort(), { signal: controller.signal }));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32001, message: "MCP error -32001: AbortError: This operation was aborted", data: undefined });

    expectClassified(normalize(error), { reason: "cancelled", kind: "client", transient: false, outcome: "unknown", code: -32001 }, error);
    await eventually(() => expect(state.aborted).toBe(1));
  });

  it("lets the context decide what the same -32001 means: {aborted} gives cancelled, {timedOut} gives request_timeout", async () => {
    const { client } = await fixtureClient();
    const controller = new AbortController();
    const error = await rejectionOf(slowCallWithProgress(client, () => controller.abort(), { signal: controller.signal }));

    const aborted = expectClassified(normalize(error, { aborted: true }), { reason: "cancelled", kind: "client", transient: false, outcome: "unknown" }, error);
    expect(aborted.message).toBe("The call was cancelled by the caller.");
    expectClassified(normalize(error, { timedOut: true }), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown" }, error);
  });

  it("needs the context for an abort with a custom reason: the SDK sends it as a bare -32001, which alone reads as server_error", async () => {
    const { client } = await fixtureClient();
    const controller = new AbortController();
    const error = await rejectionOf(slowCallWithProgress(client, () => controller.abort("user pressed stop"), { signal: controller.signal }));
    expect(error).toMatchObject({ code: -32001, message: "MCP error -32001: user pressed stop", data: undefined });

    // Pinned: without context this is indistinguishable from a server-defined -32001.
    expectClassified(normalize(error), { reason: "server_error", kind: "protocol", transient: true, outcome: "unknown", code: -32001 }, error);
    expectClassified(normalize(error, { aborted: true }), { reason: "cancelled", kind: "client", transient: false, outcome: "unknown" }, error);
  });

  it("classifies a signal aborted before the call (the SDK throws the DOMException itself, nothing is sent) as cancelled", async () => {
    const { client, state } = await fixtureClient();
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(client.callTool({ name: "slow", arguments: { ms: 10 } }, undefined, { signal: controller.signal }));
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: "AbortError" });
    expectClassified(normalize(error), { reason: "cancelled", kind: "client", transient: false, outcome: "unknown" }, error);
    expect(state.calls).toEqual([]);
  });
});

describe("invalid_result: the server's result fails the SDK's result schema", () => {
  it("classifies the zod error the SDK rejects with for content: 'not-an-array' as invalid_result", async () => {
    const { client, close } = await connectRawServer(() => ({ result: { content: "not-an-array" } }));
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "anything" }));
    expect(error).toMatchObject({ name: "$ZodError", issues: [expect.objectContaining({ path: ["content"] })] });

    const e = expectClassified(normalize(error), { reason: "invalid_result", kind: "client", transient: false, outcome: "executed" }, error);
    expect(e.message).toBe("The server's result does not match the MCP result schema: content: Invalid input: expected array, received string");
  });

  it("classifies a result whose isError is not a boolean as invalid_result", async () => {
    const { client, close } = await connectRawServer(() => ({ result: { content: [], isError: "yes" } }));
    defer(close);
    const error = await rejectionOf(client.callTool({ name: "anything" }));
    expectClassified(normalize(error), { reason: "invalid_result", kind: "client", transient: false, outcome: "executed" }, error);
  });
});

describe("output_schema_mismatch", () => {
  /** A low-level server: McpServer would check its own output and answer isError instead. */
  async function outputSchemaServerClient(): Promise<Client> {
    const outputSchema = { type: "object" as const, properties: { total: { type: "number" } }, required: ["total"] };
    const server = new Server({ name: "outputs", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: "no_structured", inputSchema: { type: "object" }, outputSchema },
        { name: "wrong_structured", inputSchema: { type: "object" }, outputSchema },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) =>
      request.params.name === "no_structured"
        ? { content: [{ type: "text", text: "3" }] }
        : { content: [], structuredContent: { total: "three" } },
    );
    const { client, close } = await connectInMemory(server);
    defer(close);
    return client;
  }

  it("classifies the SDK client's -32602 'Structured content does not match the tool's output schema' as output_schema_mismatch", async () => {
    const client = await outputSchemaServerClient();
    await client.listTools(); // the client checks output only for tools whose schema it has cached
    const error = await rejectionOf(client.callTool({ name: "wrong_structured" }));
    expect(error).toMatchObject({ code: -32602 });
    expect((error as Error).message).toMatch(/^MCP error -32602: Structured content does not match the tool's output schema: /);
    expectClassified(normalize(error), { reason: "output_schema_mismatch", kind: "client", transient: false, outcome: "executed", code: -32602 }, error);
  });

  it("classifies the SDK client's -32600 'has an output schema but did not return structured content' as output_schema_mismatch", async () => {
    const client = await outputSchemaServerClient();
    await client.listTools();
    const error = await rejectionOf(client.callTool({ name: "no_structured" }));
    expect(error).toMatchObject({ code: -32600, message: "MCP error -32600: Tool no_structured has an output schema but did not return structured content" });
    expectClassified(normalize(error), { reason: "output_schema_mismatch", kind: "client", transient: false, outcome: "executed", code: -32600 }, error);
  });

  it("does not check output before listTools has cached the schema: the same broken result resolves", async () => {
    const client = await outputSchemaServerClient();
    const result = await client.callTool({ name: "wrong_structured" });
    expect(result.structuredContent).toEqual({ total: "three" });
  });

  it("gets an isError result from McpServer's own output check (wrong_output), which fromResult classifies as the tool's own error", async () => {
    const { client } = await fixtureClient();
    await client.listTools();
    // McpServer validates first and answers isError, so the client's check never fires: no rejection.
    const result = await client.callTool({ name: "wrong_output" });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: expect.stringMatching(/^MCP error -32602: Output validation error: Invalid structured content for tool wrong_output: /) },
    ]);
    const e = fromResult(result, { toolName: "wrong_output" });
    // ERRORS.md: a server's own "Output validation error" is tool_error; output_schema_mismatch is the client's own finding.
    expectClassified(e!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e!.message).toMatch(/^Output validation error: /);
    expect(e!.toolName).toBe("wrong_output");
  });
});

describe("capability_missing", () => {
  async function strictClient(): Promise<Client> {
    const server = buildProtocolErrorServer(); // tools only: no logging, prompts or completions
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: "strict", version: "1.0.0" }, { enforceStrictCapabilities: true });
    await client.connect(clientTransport);
    defer(async () => {
      await client.close();
      await server.close();
    });
    return client;
  }

  it.each([
    ["complete", "completions", (c: Client) => c.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "b" } })],
    ["setLoggingLevel", "logging", (c: Client) => c.setLoggingLevel("info")],
    ["listPrompts", "prompts", (c: Client) => c.listPrompts()],
    ["readResource", "resources", (c: Client) => c.readResource({ uri: "file:///x" })],
  ] as const)("classifies a strict client's %s against a server without %s ('Server does not support …') as capability_missing", async (_method, capability, call) => {
    const client = await strictClient();
    const error = await rejectionOf(call(client));
    expect((error as Error).message).toMatch(new RegExp(`^Server does not support ${capability} \\(required for `));
    expectClassified(normalize(error), { reason: "capability_missing", kind: "client", transient: false, outcome: "not_sent" }, error);
  });

  it("gets -32601 from the server instead when the client is not strict: method_not_found", async () => {
    const { client, close } = await connectInMemory(buildProtocolErrorServer());
    defer(close);
    const error = await rejectionOf(client.setLoggingLevel("info"));
    expect(error).toMatchObject({ code: -32601, message: "MCP error -32601: Method not found" });
    expectClassified(normalize(error), { reason: "method_not_found", kind: "protocol", transient: false, outcome: "not_sent", code: -32601 }, error);
  });
});

describe("invalid_arguments and circuit_open: decided by our own layers, not by normalize", () => {
  it("rejects bad arguments before sending: wrapTool over an @langchain/mcp-adapters tool gives invalid_arguments", async () => {
    const { client, state } = await fixtureClient();
    const tools = await loadMcpTools("fixture", client);
    const echo = wrapTool(tools.find((t) => t.name === "echo")!, { errorMode: "throw", serverName: "fixture" });
    const error = await rejectionOf(echo.invoke({ text: 5 } as unknown as { text: string }));
    // LangChain's ToolInputParsingException is classified where it is caught (McpTool), kept as the cause.
    expect(error).toBeInstanceOf(McpToolError);
    const e = expectClassified(error as McpToolError, { reason: "invalid_arguments", kind: "client", transient: false, outcome: "not_sent" });
    expect((e.unredacted().cause as Error).constructor.name).toBe("ToolInputParsingException");
    expect(e.message).toBe("Invalid arguments: 'text' must be a string (got number).");
    expect(state.calls).toEqual([]);
  });

  it("refuses a call while the breaker is open (after a real failing call): circuit_open, naming the last failure", async () => {
    const { client, close } = await connectInMemory(buildProtocolErrorServer());
    defer(close);
    const breaker = new CircuitBreaker("protocol-errors", { failureThreshold: 1, halfOpenAfterMs: 60_000 });
    const context = { toolName: "raise", serverName: "protocol-errors" };
    const call = () =>
      breaker.execute(
        () =>
          client.callTool({ name: "raise", arguments: { code: -32603, message: "down" } }).catch((error: unknown) => {
            throw normalize(error);
          }),
        undefined,
        context,
      );

    const first = await rejectionOf(call());
    expect(first).toMatchObject({ reason: "internal_error" });
    const error = await rejectionOf(call());
    expect(error).toBeInstanceOf(McpToolError);
    const e = expectClassified(error as McpToolError, { reason: "circuit_open", kind: "client", transient: true, outcome: "not_sent" });
    expect(e.message).toMatch(/^Calls to server 'protocol-errors' are paused for [12] s more after repeated failures \(last: internal_error\)\.$/);
    expect(e.toolName).toBe("raise");
    // normalize passes an McpToolError through untouched.
    expect(normalize(error)).toBe(error);
  });
});

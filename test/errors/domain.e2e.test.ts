/**
 * ERRORS.md, "Domain errors": results with `isError: true`, as McpServer produces them, read by
 * `fromResult`. McpServer also turns its own protocol-level refusals (unknown or disabled tool,
 * arguments failing the input schema) into such results, and those must not read as tool errors.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorHandler } from "../../src/ErrorHandler.js";
import { fromResult } from "../../src/errors/fromResult.js";
import { buildFixtureServer, newState, type FixtureState } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { connectInMemory } from "../servers/memory.js";
import { expectClassified, useCleanup } from "./helpers.js";

const defer = useCleanup();

async function fixtureClient(
  prepare?: (server: ReturnType<typeof buildFixtureServer>) => void,
): Promise<{ client: Client; state: FixtureState }> {
  const state = newState();
  const server = buildFixtureServer(state);
  prepare?.(server);
  const { client, close } = await connectInMemory(server);
  defer(close);
  return { client, state };
}

describe("tool_error: the tool ran and reported failure", () => {
  it("classifies the fail tool's isError 'quota exceeded' as tool_error: domain, executed, not transient", async () => {
    const { client, state } = await fixtureClient();
    const result = await client.callTool({ name: "fail" });
    expect(result).toEqual({ content: [{ type: "text", text: "quota exceeded" }], isError: true });
    const e = expectClassified(fromResult(result)!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e.message).toBe("quota exceeded");
    expect(state.calls).toEqual(["fail"]);
  });

  it("uses the text of the content blocks as the message", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "fail", arguments: { message: "account 42 is frozen" } });
    expect(fromResult(result)!.message).toBe("account 42 is frozen");
  });

  it("still says there was an error when the isError result has no content (fail_empty)", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "fail_empty" });
    expect(result).toEqual({ content: [], isError: true });
    const e = expectClassified(fromResult(result)!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e.message).toBe("The tool reported an error without a message.");
  });

  it("summarises a non-text block instead of dropping it (fail_image)", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "fail_image" });
    const e = expectClassified(fromResult(result)!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e.message).toBe("[image image/png, 69 bytes]");
  });

  it("classifies an Error thrown in an McpServer tool handler (sent as an isError result) as tool_error", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "throws", arguments: { message: "disk full" } });
    expect(result).toEqual({ content: [{ type: "text", text: "disk full" }], isError: true });
    const e = expectClassified(fromResult(result)!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e.message).toBe("disk full");
  });

  it("keeps structuredContent of an isError result as data and the context's names", async () => {
    const { client } = await fixtureClient((server) => {
      server.registerTool("fail_structured", { description: "isError with structured detail." }, async () => ({
        content: [{ type: "text", text: "card declined" }],
        structuredContent: { declineCode: "insufficient_funds" },
        isError: true,
      }));
    });
    const result = await client.callTool({ name: "fail_structured" });
    const e = fromResult(result, { toolName: "fail_structured", serverName: "fixture" })!;
    expect(e).toMatchObject({ reason: "tool_error", data: { declineCode: "insufficient_funds" }, toolName: "fail_structured", serverName: "fixture" });
  });

  it("classifies the same isError identically over streamable HTTP", async () => {
    const http = await startHttpFixture();
    defer(() => http.close());
    const client = new Client({ name: "test-client", version: "1.0.0" });
    defer(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(http.url));
    const result = await client.callTool({ name: "fail" });
    const e = expectClassified(fromResult(result)!, { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(e.message).toBe("quota exceeded");
  });

  it("returns undefined for a result that is not an error", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(fromResult(result)).toBeUndefined();
  });
});

describe("invalid_params: McpServer's input validation (SEP-1303) answered as isError", () => {
  it("classifies 'MCP error -32602: Input validation error' for echo with a number as invalid_params: domain, not sent", async () => {
    const { client, state } = await fixtureClient();
    const result = await client.callTool({ name: "echo", arguments: { text: 5 } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: expect.stringMatching(/^MCP error -32602: Input validation error: Invalid arguments for tool echo: /) },
    ]);
    const e = expectClassified(fromResult(result)!, { reason: "invalid_params", kind: "domain", transient: false, outcome: "not_sent" });
    expect(e.message).toMatch(/^Input validation error: Invalid arguments for tool echo: .*expected string, received number/);
    expect(state.calls).toEqual([]);
  });

  it("classifies missing required arguments the same way", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "echo", arguments: {} });
    expectClassified(fromResult(result)!, { reason: "invalid_params", kind: "domain", transient: false, outcome: "not_sent" });
  });
});

describe("tool_not_found: a stale tool list", () => {
  it("classifies McpServer's 'Tool nope not found' for an unknown tool as tool_not_found: not sent", async () => {
    const { client, state } = await fixtureClient();
    const result = await client.callTool({ name: "nope" });
    expect(result).toEqual({ content: [{ type: "text", text: "MCP error -32602: Tool nope not found" }], isError: true });
    const e = expectClassified(fromResult(result)!, { reason: "tool_not_found", kind: "domain", transient: false, outcome: "not_sent" });
    expect(e.message).toBe("Tool nope not found");
    expect(state.calls).toEqual([]);
  });

  it("classifies McpServer's 'Tool X disabled' for a disabled tool (RegisteredTool.disable()) as tool_not_found", async () => {
    const { client, state } = await fixtureClient((server) => {
      const tool = server.registerTool("retired", { description: "Switched off.", inputSchema: { q: z.string() } }, async () => ({
        content: [{ type: "text", text: "should not run" }],
      }));
      tool.disable();
    });
    const result = await client.callTool({ name: "retired", arguments: { q: "x" } });
    expect(result).toEqual({ content: [{ type: "text", text: "MCP error -32602: Tool retired disabled" }], isError: true });
    const e = expectClassified(fromResult(result)!, { reason: "tool_not_found", kind: "domain", transient: false, outcome: "not_sent" });
    expect(e.message).toBe("Tool retired disabled");
    expect(state.calls).toEqual([]);
  });
});

describe("ErrorHandler.normalize of an isError result (issue 26: it read as unknown, the model got raw JSON)", () => {
  it("gives the same domain error fromResult gives, for every kind of isError answer", async () => {
    const { client } = await fixtureClient();
    const answers = [
      await client.callTool({ name: "fail" }),
      await client.callTool({ name: "echo", arguments: { text: 5 } }),
      await client.callTool({ name: "nope" }),
    ];
    const context = { toolName: "t", serverName: "fixture", attempts: 2 };
    for (const result of answers) {
      const e = ErrorHandler.normalize(result, context);
      expect(e.toJSON()).toEqual(fromResult(result, context)!.toJSON());
      expect(e.reason).not.toBe("unknown");
    }
    expect(ErrorHandler.normalize(answers[0])).toMatchObject({ reason: "tool_error", kind: "domain", outcome: "executed", message: "quota exceeded" });
    // What the model reads is the tool's own words, not the result as JSON.
    expect(ErrorHandler.toModelText(answers[0], { toolName: "fail" })).toMatch(/^Error: Tool 'fail' failed \(tool_error\): quota exceeded\. The tool ran/);
    expect(ErrorHandler.wrapToolError(answers[0], "fail")).toBe("Tool 'fail' failed (tool_error): quota exceeded");
  });

  it("says a successful result is no error: normalize of it stays unknown (there is nothing to classify)", async () => {
    const { client } = await fixtureClient();
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(ErrorHandler.normalize(result).reason).toBe("unknown");
  });
});

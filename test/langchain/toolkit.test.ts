import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { buildFixtureServer, buildProtocolErrorServer, newState } from "../servers/fixture.js";
import { connectInMemory } from "../servers/memory.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

async function memoryToolkit(options: { prefix?: boolean; events?: McpEvent[] } = {}) {
  const state = newState();
  const { client, close } = await connectInMemory(buildFixtureServer(state));
  const toolkit = await McpToolkit.connect({
    servers: { fixture: { client } },
    ...(options.prefix ? { prefixToolNames: true } : {}),
    ...(options.events ? { onEvent: (e: McpEvent) => options.events!.push(e) } : {}),
    retry: { retries: 0 },
  });
  cleanups.push(close, () => toolkit.close());
  return { toolkit, state };
}

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });

describe("McpToolkit tool conversion", () => {
  it("exposes every MCP tool with its JSON schema, annotations and server in metadata", async () => {
    const { toolkit } = await memoryToolkit();
    const echo = toolkit.getTool("echo");
    expect(echo).toBeDefined();
    expect(echo!.schema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    expect(echo!.metadata).toMatchObject({ serverName: "fixture", mcpToolName: "echo", annotations: { readOnlyHint: true } });
    expect(toolkit.getTools().map((t) => t.name)).toContain("counter");
  });

  it("returns text content and keeps structuredContent and non-text blocks in the artifact", async () => {
    const { toolkit } = await memoryToolkit();
    const message = (await toolkit.getTool("mixed")!.invoke(call("mixed", {}))) as ToolMessage;
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message.status).toBe("success");
    const blocks = message.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(blocks[0]).toEqual({ type: "text", text: "hello" });
    expect(blocks[1]!.type).toBe("image_url");
    expect(blocks[1]!.image_url!.url).toMatch(/^data:image\/png;base64,/);
    expect(blocks.map((b) => b.text ?? "").join("\n")).toContain("[audio audio/wav");
    expect(blocks.map((b) => b.text ?? "").join("\n")).toContain("embedded notes");
    expect(blocks.map((b) => b.text ?? "").join("\n")).toContain("[resource link file:///report.pdf (report)]");
    expect(message.artifact.structuredContent).toEqual({ total: 3 });
    expect(message.artifact.blocks.map((b: { type: string }) => b.type)).toEqual(["image", "audio", "resource", "resource_link"]);
  });

  it("reports each tool's resolved policy by its exposed name", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({
      servers: { fx: { client, trustAnnotations: true } },
      tools: { "fx/*": { timeoutMs: 1_234 }, counter: { retry: { retries: 5 } } },
    });
    cleanups.push(close, () => toolkit.close());
    expect(toolkit.policyOf("echo")).toMatchObject({ timeoutMs: 1_234, idempotent: true, retry: { retries: 2 } });
    expect(toolkit.policyOf("counter")).toMatchObject({ timeoutMs: 1_234, idempotent: false, retry: { retries: 5 } });
    expect(toolkit.policyOf("nope")).toBeUndefined();
  });

  it("prefixes every name with the server when prefixToolNames is set", async () => {
    const { toolkit } = await memoryToolkit({ prefix: true });
    expect(toolkit.getTool("fixture__echo")).toBeDefined();
    expect(toolkit.getTool("echo")).toBeUndefined();
  });

  it("prefixes only the clashing names when two servers expose the same tool", async () => {
    const a = await connectInMemory(buildFixtureServer(newState()));
    const b = await connectInMemory(buildProtocolErrorServer());
    const c = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { alpha: { client: a.client }, beta: { client: b.client }, gamma: { client: c.client } } });
    cleanups.push(a.close, b.close, c.close, () => toolkit.close());
    const names = toolkit.getTools().map((t) => t.name);
    expect(names).toContain("alpha__echo");
    expect(names).toContain("gamma__echo");
    expect(names).toContain("raise");
    expect(names).not.toContain("echo");
    const reply = (await toolkit.getTool("gamma__echo")!.invoke(call("gamma__echo", { text: "from gamma" }))) as ToolMessage;
    expect(reply.content).toBe("from gamma");
  });
});

describe("McpToolkit errors are results", () => {
  it("turns isError into an error ToolMessage with the classified error as artifact", async () => {
    const { toolkit } = await memoryToolkit();
    const message = (await toolkit.getTool("fail")!.invoke(call("fail", {}))) as ToolMessage;
    expect(message.status).toBe("error");
    expect(message.tool_call_id).toBe("call-1");
    expect(message.content).toMatch(/^Error: Tool 'fail' failed \(tool_error\): quota exceeded\./);
    const artifact = message.artifact as McpToolErrorJSON;
    expect(artifact).toMatchObject({ name: "McpToolError", kind: "domain", reason: "tool_error", outcome: "executed", serverName: "fixture", toolName: "fail" });
  });

  it("returns the same text when invoked with plain arguments", async () => {
    const { toolkit } = await memoryToolkit();
    const text = await toolkit.getTool("fail")!.invoke({});
    expect(text).toMatch(/^Error: Tool 'fail' failed \(tool_error\): quota exceeded\./);
  });

  it("turns arguments that fail the input schema into invalid_arguments telling the model what to fix", async () => {
    const { toolkit, state } = await memoryToolkit();
    const message = (await toolkit.getTool("echo")!.invoke(call("echo", { text: 42 }))) as ToolMessage;
    expect(message.status).toBe("error");
    expect(message.content).toContain("(invalid_arguments)");
    expect(message.content).toMatch(/text/);
    expect(message.content).toContain("Fix the arguments");
    expect(state.calls).not.toContain("echo");
  });

  it("turns arguments that are not an object into invalid_arguments", async () => {
    const { toolkit } = await memoryToolkit();
    const text = await toolkit.getTool("echo")!.invoke("just a string" as never);
    expect(text).toContain("(invalid_arguments)");
  });

  it("turns a JSON-RPC error from the server into a protocol error ToolMessage", async () => {
    const { client, close } = await connectInMemory(buildProtocolErrorServer());
    const toolkit = await McpToolkit.connect({ servers: { p: { client } }, retry: { retries: 0 } });
    cleanups.push(close, () => toolkit.close());
    const message = (await toolkit.getTool("raise")!.invoke(call("raise", { code: -32602, message: "bad date" }))) as ToolMessage;
    expect(message.status).toBe("error");
    expect(message.content).toBe("Error: Tool 'raise' failed (invalid_params): bad date. Fix the arguments to match the tool's input schema, then call it again.");
    expect((message.artifact as McpToolErrorJSON).code).toBe(-32602);
    expect((message.artifact as McpToolErrorJSON).kind).toBe("protocol");
  });

  it("throws the McpToolError itself in throw mode", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { f: { client } }, errors: { mode: "throw" } });
    cleanups.push(close, () => toolkit.close());
    await expect(toolkit.getTool("fail")!.invoke(call("fail", {}))).rejects.toMatchObject({ name: "McpToolError", reason: "tool_error" });
  });

  it("redacts configured patterns and cuts to errors.maxLength", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { f: { client } }, errors: { maxLength: 40, redact: ["internal-host-7", /acct-\d+/] } });
    cleanups.push(close, () => toolkit.close());
    const text = (await toolkit.getTool("fail")!.invoke({ message: `db internal-host-7 refused acct-12345 ${"x".repeat(200)}` })) as string;
    expect(text).not.toContain("internal-host-7");
    expect(text).not.toContain("acct-12345");
    expect(text).toMatch(/more characters cut/);
  });

  it("emits call and error events", async () => {
    const events: McpEvent[] = [];
    const { toolkit } = await memoryToolkit({ events });
    await toolkit.getTool("fail")!.invoke(call("fail", {}));
    // The connect's own `server_status` (connected) came first.
    expect(events.map((e) => e.type)).toEqual(["server_status", "call", "error"]);
    const error = events[2]!;
    expect(error.type === "error" && error.error.reason).toBe("tool_error");
  });
});

describe("McpToolkit configuration", () => {
  it.each([
    [{}, "servers"],
    [{ servers: {} }, "servers"],
    [{ servers: { a: { transport: "stdio" } } }, "servers.a.command"],
    [{ servers: { a: { transport: "carrier-pigeon" } } }, "servers.a.transport"],
    [{ servers: { a: { transport: "http", url: "not a url" } } }, "servers.a.url"],
    [{ servers: { a: { transport: "http", url: "http://x", headers: { k: 1 } } } }, "servers.a.headers.k"],
    [{ servers: { a: { transport: "stdio", command: "x", fallback: "b" } } }, "servers.a.fallback"],
    [{ servers: { a: { transport: "stdio", command: "x" } }, retry: { retries: -1 } }, "retry.retries"],
    [{ servers: { a: { transport: "stdio", command: "x" } }, tools: { "a/*": { timeoutMs: 0 } } }, "tools.a/*.timeoutMs"],
    [{ servers: { a: { transport: "stdio", command: "x", errorCodes: { "-32003": { reason: "nope" } } } } }, "servers.a.errorCodes.-32003.reason"],
    [{ servers: { a: { transport: "stdio", command: "x" } }, onConnectionError: "ignore" }, "onConnectionError"],
  ])("rejects invalid configuration %j naming the field", async (config, field) => {
    const error = await McpToolkit.connect(config as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).field).toBe(field);
    expect((error as Error).message).toContain(field);
  });
});

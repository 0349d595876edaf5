/**
 * The prompts as model tools, only when asked (`prompts: { tools: true }`, per toolkit or per
 * server), and every prompt request through the same pipeline as a tool call: its events, its
 * retries after a transient failure, its redaction.
 */
import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpToolkit, type McpEvent, type McpToolError, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { V2HttpFixture } from "../servers/v2/http.js";
import { SECRET, v1NoPrompts, v1PromptServer, v2PromptServer } from "./servers.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function urls(): Promise<{ v1: string; v2: string; plain: string }> {
  const v1 = later(await startHttpFixture({ build: () => v1PromptServer() }));
  const v2 = later(await new V2HttpFixture({ build: () => v2PromptServer() }).start());
  const plain = later(await startHttpFixture({ build: () => v1NoPrompts() }));
  return { v1: v1.url.href, v2: v2.url.href, plain: plain.url.href };
}

async function toolkitOf(config: Omit<McpToolkitConfig, "servers"> & { servers?: McpToolkitConfig["servers"] }): Promise<McpToolkit> {
  const { v1, v2, plain } = await urls();
  const servers = config.servers ?? { a: { transport: "http", url: v1, headers: { "x-api-key": SECRET } }, b: { transport: "http", url: v2 }, plain: { transport: "http", url: plain } };
  return later(await McpToolkit.connect({ ...config, servers }));
}

describe("prompts: { tools: true }", () => {
  it("is off unless asked: the tool list is unchanged", async () => {
    const toolkit = await toolkitOf({});
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["echo"]);
  });

  it("offers list_mcp_prompts and get_mcp_prompt over the servers that ask, a server's own setting first", async () => {
    const toolkit = await toolkitOf({ prompts: { tools: true } });
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["echo", "list_mcp_prompts", "get_mcp_prompt"]);
    const listing = await replyOf(toolkit.getTools().find((t) => t.name === "list_mcp_prompts"), {});
    expect(listing.error).toBeUndefined();
    expect(listing.content).toContain('- server "a", prompt "greet": Greets someone.\n  arguments: name (required): Who to greet; style');
    expect(listing.content).toContain('- server "b", prompt "with_image"');
    // A server without prompts is not named at all.
    expect(listing.content).not.toContain('"plain"');

    const { v1 } = await urls();
    const one = await toolkitOf({ servers: { a: { transport: "http", url: v1, prompts: { tools: true } }, b: { transport: "http", url: v1 } } });
    const only = await replyOf(one.getTools().find((t) => t.name === "list_mcp_prompts"), {});
    expect(only.content).toContain('server "a"');
    expect(only.content).not.toContain('server "b"');
  });

  it("gets a prompt for the model: its messages as text and images, the messages in the artifact", async () => {
    const toolkit = await toolkitOf({ prompts: { tools: true } });
    const get = toolkit.getTools().find((t) => t.name === "get_mcp_prompt")!;
    const message = (await get.invoke({ type: "tool_call", id: "c1", name: "get_mcp_prompt", args: { server: "a", name: "greet", arguments: { name: "Ada" } } })) as ToolMessage;
    expect(message.status).not.toBe("error");
    expect(message.content).toBe("[user] Say hello to Ada.");
    expect(message.artifact).toMatchObject({ prompt: { serverName: "a", name: "greet" }, messages: [{ role: "user" }] });
    const image = (await get.invoke({ type: "tool_call", id: "c2", name: "get_mcp_prompt", args: { server: "b", name: "with_image" } })) as ToolMessage;
    expect(image.content).toEqual([
      { type: "text", text: "[user]" },
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
    ]);
  });

  it("finds the server of a prompt only one server has, and redacts a configured secret", async () => {
    const { v1, v2 } = await urls();
    const toolkit = await toolkitOf({ prompts: { tools: true }, servers: { a: { transport: "http", url: v1, headers: { "x-api-key": SECRET } }, b: { transport: "http", url: v2, prompts: { tools: false } } } });
    const reply = await replyOf(toolkit.getTools().find((t) => t.name === "get_mcp_prompt"), { name: "leaky" });
    expect(reply.error).toBeUndefined();
    expect(reply.content).toMatch(/^\[assistant\] Use the key \S+ to call the API\.$/);
    expect(reply.content).not.toContain(SECRET);
  });

  it("fails as a tool fails: one readable line, the McpToolError as the artifact, the run goes on", async () => {
    const toolkit = await toolkitOf({ prompts: { tools: true } });
    const get = toolkit.getTools().find((t) => t.name === "get_mcp_prompt");
    const unknown = await replyOf(get, { server: "a", name: "nope" });
    expect(unknown.error).toMatchObject({ reason: "prompt_not_found", toolName: "get_mcp_prompt", serverName: "a", outcome: "not_sent" });
    expect(unknown.content).toMatch(/^Error: Tool 'get_mcp_prompt' failed \(prompt_not_found\): Prompt nope not found\b.*list its prompts/);
    const missing = await replyOf(get, { server: "b", name: "greet", arguments: {} });
    expect(missing.error).toMatchObject({ reason: "invalid_params" });
    expect(missing.content).toMatch(/^Error: Tool 'get_mcp_prompt' failed \(invalid_params\)/);
    const twice = await replyOf(get, { name: "greet" });
    expect(twice.error).toMatchObject({ reason: "invalid_arguments" });
    expect(twice.content).toContain("is on the servers a, b: say which in 'server'");
    const nowhere = await replyOf(get, { name: "nope" });
    expect(nowhere.error).toMatchObject({ reason: "prompt_not_found" });
  });

  it("is validated like every option: a typo fails at connect, naming the field", async () => {
    const error = await McpToolkit.connect({ servers: { a: { transport: "http", url: "http://127.0.0.1:9/mcp", prompts: { tool: true } as never } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).field).toBe("servers.a.prompts.tool");
    expect((error as Error).message).toContain('did you mean "tools"');
  });
});

describe("a prompt request goes through the pipeline", () => {
  it("emits call and success events, and is retried after a transient failure (read-only by protocol)", async () => {
    const http = later(await new V2HttpFixture({ build: () => v2PromptServer() }).start());
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { b: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e), retry: { minTimeout: 10, maxTimeout: 20 } }));
    http.failNext(503, 1);
    const messages = await toolkit.prompts.get("b", "greet", { name: "Ev" });
    expect(messages[0]!.content).toBe("Say hello to Ev.");
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { error: McpToolError }).error.reason)).toEqual(["service_unavailable"]);
    expect(events.find((e) => e.type === "success")).toMatchObject({ toolName: "greet", serverName: "b", attempts: 2 });
  });

  it("stops at the caller's abort, cancelled", async () => {
    const http = later(await new V2HttpFixture({ build: () => v2PromptServer() }).start());
    const toolkit = later(await McpToolkit.connect({ servers: { b: { transport: "http", url: http.url.href } } }));
    const controller = new AbortController();
    controller.abort();
    const error = (await toolkit.prompts.get("b", "greet", { name: "x" }, { signal: controller.signal }).catch((e: unknown) => e)) as McpToolError;
    expect(error).toMatchObject({ reason: "cancelled" });
    expect(await toolkit.prompts.get("nowhere", "greet").catch((e: McpToolError) => [e.reason, e.message])).toEqual(["invalid_arguments", "No server named 'nowhere' (servers: b)."]);
  });
});

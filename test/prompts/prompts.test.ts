/**
 * Prompts for application code, against real servers of both SDK lines: `toolkit.prompts.list`
 * reads every page and names a failing server; `get` gives LangChain messages with standard
 * content blocks; an unknown prompt, a missing argument and a server without prompts each have
 * their reason; a configured secret in a prompt's message is redacted.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolError, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";
import { startHttpFixture, type HttpFixtureOptions } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";
import { V2HttpFixture, type V2HttpMode, type V2HttpOptions } from "../servers/v2/http.js";
import { pagedServer, PNG_1PX, SECRET, v1DeclaresOnly, v1NoPrompts, v1PromptServer, v2DeclaresOnly, v2NoPrompts, v2PromptServer } from "./servers.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

type Servers = McpToolkitConfig["servers"];

async function v1Url(build: () => ReturnType<NonNullable<HttpFixtureOptions["build"]>>): Promise<string> {
  const http = later(await startHttpFixture({ build: () => build() }));
  return http.url.href;
}

async function v2Url(build: () => ReturnType<NonNullable<V2HttpOptions["build"]>>, mode: V2HttpMode = "modern"): Promise<string> {
  const http = later(await new V2HttpFixture({ mode, build: () => build() }).start());
  return http.url.href;
}

async function toolkitOf(servers: Servers, extra: Partial<McpToolkitConfig> = {}): Promise<McpToolkit> {
  return later(await McpToolkit.connect({ servers, ...extra }));
}

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: McpToolError) => error,
  );
}

const LINES = [
  ["v1", () => v1Url(v1PromptServer)],
  ["v2 (2026-07-28)", () => v2Url(v2PromptServer, "modern")],
  ["v2 (2025, sessions)", () => v2Url(v2PromptServer, "legacy-session")],
] as const;

describe.each(LINES)("prompts of a %s SDK server", (_line, start) => {
  it("lists the prompts with their arguments", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start() } });
    const { prompts, failures } = await toolkit.prompts.list();
    expect(failures).toEqual([]);
    expect(prompts.map((p) => p.name).sort()).toEqual(["greet", "leaky", "with_image", "with_resource"]);
    const greet = prompts.find((p) => p.name === "greet")!;
    expect(greet).toMatchObject({ serverName: "p", description: "Greets someone." });
    expect(greet.arguments).toEqual([
      { name: "name", description: "Who to greet", required: true },
      { name: "style", required: false },
    ]);
  });

  it("gets a prompt filled in with its arguments as LangChain messages", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start() } });
    const messages = await toolkit.prompts.get("p", "greet", { name: "Ada", style: "formal" });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toBeInstanceOf(HumanMessage);
    expect(messages[0]!.content).toBe("Say hello to Ada in a formal way.");
  });

  it("turns an embedded resource, a blob, a resource link and an image into standard content blocks", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start() } });
    const messages = await toolkit.prompts.get("p", "with_resource", { topic: "otters" });
    expect(messages.map((m) => m.constructor)).toEqual([HumanMessage, HumanMessage, AIMessage, HumanMessage]);
    expect(messages[0]!.contentBlocks).toEqual([{ type: "text-plain", mimeType: "text/markdown", text: "# Notes on otters", data: "# Notes on otters", metadata: { uri: "notes://otters" } }]);
    expect(messages[1]!.contentBlocks).toEqual([{ type: "image", mimeType: "image/png", data: PNG_1PX, metadata: { uri: "blob://logo" } }]);
    expect(messages[2]!.content).toBe("I have read the notes on otters.");
    expect(messages[3]!.contentBlocks).toEqual([{ type: "file", url: "files://report.pdf", mimeType: "application/pdf", metadata: { uri: "files://report.pdf", name: "report" } }]);
    const [image] = await toolkit.prompts.get("p", "with_image");
    expect(image!.contentBlocks).toEqual([{ type: "image", mimeType: "image/png", data: PNG_1PX }]);
  });

  it("an unknown prompt is prompt_not_found, unsent and permanent", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start() } });
    const error = await failure(toolkit.prompts.get("p", "nope"));
    expect(error).toMatchObject({ name: "McpToolError", reason: "prompt_not_found", outcome: "not_sent", transient: false, serverName: "p", code: -32602, attempts: 1 });
    expect(error.message).toContain("nope");
  });

  it("a missing required argument is invalid_params", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start() } });
    const error = await failure(toolkit.prompts.get("p", "greet", {}));
    expect(error).toMatchObject({ reason: "invalid_params", outcome: "not_sent", transient: false, code: -32602 });
    expect(error.message).toMatch(/Invalid arguments for prompt greet/);
  });

  it("redacts a configured secret in a prompt's message", async () => {
    const toolkit = await toolkitOf({ p: { transport: "http", url: await start(), headers: { "x-api-key": SECRET } } });
    const [message] = await toolkit.prompts.get("p", "leaky");
    expect(message!.content).not.toContain(SECRET);
    expect(message!.content).toMatch(/^Use the key \S+ to call the API\.$/);
  });
});

describe.each([
  ["v1", () => v1Url(v1NoPrompts), () => v1Url(v1DeclaresOnly)],
  ["v2", () => v2Url(v2NoPrompts), () => v2Url(v2DeclaresOnly)],
] as const)("a %s SDK server without prompts", (_line, noPrompts, declaresOnly) => {
  it("is capability_missing, with one clear line, nothing sent", async () => {
    const toolkit = await toolkitOf({ tools: { transport: "http", url: await noPrompts() } });
    const error = await failure(toolkit.prompts.get("tools", "greet"));
    expect(error).toMatchObject({ reason: "capability_missing", outcome: "not_sent", transient: false, serverName: "tools" });
    expect(error.message).toBe("Server 'tools' offers no prompts.");
    const { prompts, failures } = await toolkit.prompts.list("tools");
    expect(prompts).toEqual([]);
    expect(failures).toMatchObject([{ server: "tools", error: { reason: "capability_missing", serverName: "tools" } }]);
    expect(await failure(toolkit.prompts.list("nowhere"))).toMatchObject({ reason: "invalid_arguments" });
  });

  it("that declares prompts but answers -32601 is capability_missing too", async () => {
    const toolkit = await toolkitOf({ d: { transport: "http", url: await declaresOnly() } });
    const error = await failure(toolkit.prompts.get("d", "greet"));
    expect(error).toMatchObject({ reason: "capability_missing", kind: "protocol", outcome: "not_sent", transient: false, code: -32601 });
    expect(error.message).toMatch(/^Server 'd' offers no prompts \(it answered prompts\/get with: .*Method not found/);
  });
});

describe("listing prompts", () => {
  it("reads every page", async () => {
    const pages = { served: 0 };
    const toolkit = await toolkitOf({ paged: { transport: "http", url: await v1Url(() => pagedServer(95, 10, pages)) } });
    const { prompts } = await toolkit.prompts.list("paged");
    expect(prompts).toHaveLength(95);
    expect(new Set(prompts.map((p) => p.name)).size).toBe(95);
    expect(pages.served).toBe(10);
  });

  it("names a server whose list fails and still lists the others; a server without prompts is no failure", async () => {
    const toolkit = await toolkitOf(
      {
        good: { transport: "http", url: await v1Url(v1PromptServer) },
        broken: { transport: "http", url: await v1Url(v1DeclaresOnly), required: false },
        plain: { transport: "http", url: await v1Url(v1NoPrompts) },
        gone: { transport: "http", url: "http://127.0.0.1:9/mcp", required: false, connectTimeoutMs: 2_000 },
      },
      { retry: { retries: 0 } },
    );
    const { prompts, failures } = await toolkit.prompts.list();
    expect(new Set(prompts.map((p) => p.serverName))).toEqual(new Set(["good"]));
    expect(failures.map((f) => f.server)).toEqual(["gone"]);
    expect(failures[0]!.error).toMatchObject({ name: "McpToolError", serverName: "gone", outcome: "not_sent" });
  });
});

describe("a v1 SDK client you hold", () => {
  it("lists and gets prompts through it, every page, with the same reasons", async () => {
    const pages = { served: 0 };
    const paged = await connectInMemory(pagedServer(25, 10, pages));
    cleanups.push(paged.close);
    const plain = await connectInMemory(v1PromptServer());
    cleanups.push(plain.close);
    const toolkit = await toolkitOf({ paged: { client: paged.client }, p: { client: plain.client } });
    const { prompts, failures } = await toolkit.prompts.list();
    expect(failures).toEqual([]);
    expect(prompts.filter((p) => p.serverName === "paged")).toHaveLength(25);
    expect(pages.served).toBe(3);
    expect((await toolkit.prompts.get("paged", "p7", { x: "1" }))[0]!.content).toBe("p7(1)");
    expect(await failure(toolkit.prompts.get("p", "nope"))).toMatchObject({ reason: "prompt_not_found", code: -32602 });
    expect(await failure(toolkit.prompts.get("p", "greet"))).toMatchObject({ reason: "invalid_params" });
  });
});

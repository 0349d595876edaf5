/**
 * `toolkit.prompts.template(server, name)` where a ChatPromptTemplate goes: its input variables
 * are the prompt's required arguments, `.invoke` gives a ChatPromptValue, and it pipes into the
 * next runnable; and server-everything's prompts (arguments, an embedded resource).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { McpPromptTemplate, McpToolkit, type McpToolError } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";
import { v1PromptServer } from "./servers.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function v1Toolkit(): Promise<McpToolkit> {
  const http = later(await startHttpFixture({ build: () => v1PromptServer() }));
  return later(await McpToolkit.connect({ servers: { p: { transport: "http", url: http.url.href } } }));
}

describe("prompts.template", () => {
  it("has the prompt's required arguments as input variables, and the others as optional ones", async () => {
    const toolkit = await v1Toolkit();
    const template = await toolkit.prompts.template("p", "greet");
    expect(template).toBeInstanceOf(McpPromptTemplate);
    expect(template.inputVariables).toEqual(["name"]);
    expect(template.optionalVariables).toEqual(["style"]);
  });

  it("invokes to a ChatPromptValue, formats messages, and pipes into a model-like runnable", async () => {
    const toolkit = await v1Toolkit();
    const template = await toolkit.prompts.template("p", "greet");
    const value = await template.invoke({ name: "Ada" });
    expect(value).toBeInstanceOf(ChatPromptValue);
    expect(value.toChatMessages().map((m) => m.content)).toEqual(["Say hello to Ada."]);
    expect((await template.formatMessages({ name: "Bo", style: "quiet" })).map((m) => m.content)).toEqual(["Say hello to Bo in a quiet way."]);
    // A stand-in chat model: answers with the last message it was given.
    const model = RunnableLambda.from((input: ChatPromptValue) => new AIMessage(`heard: ${String(input.toChatMessages().at(-1)!.content)}`));
    const reply = await template.pipe(model).invoke({ name: "Cy" });
    expect(reply.content).toBe("heard: Say hello to Cy.");
  });

  it("takes partial values, and refuses a missing required argument unsent, as invalid_params", async () => {
    const toolkit = await v1Toolkit();
    const template = await toolkit.prompts.template("p", "greet");
    const partial = await template.partial({ name: "Di" });
    expect(partial.inputVariables).toEqual([]);
    expect((await partial.formatMessages({})).map((m) => m.content)).toEqual(["Say hello to Di."]);
    const error = (await template.invoke({}).catch((e: unknown) => e)) as McpToolError;
    expect(error).toMatchObject({ name: "McpToolError", reason: "invalid_params", outcome: "not_sent", data: { missing: ["name"] } });
    expect(error.message).toBe("Prompt 'greet' on server 'p' needs the argument 'name'.");
  });

  it("of a prompt the server does not list is prompt_not_found", async () => {
    const toolkit = await v1Toolkit();
    const error = (await toolkit.prompts.template("p", "nope").catch((e: unknown) => e)) as McpToolError;
    expect(error).toMatchObject({ reason: "prompt_not_found", outcome: "not_sent", serverName: "p" });
    expect(error.message).toMatch(/^Server 'p' has no prompt 'nope' \(its prompts: /);
  });
});

describe("server-everything's prompts (stdio)", () => {
  async function everything(): Promise<McpToolkit> {
    return later(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } } }));
  }

  it("fills in a prompt with arguments, and refuses one without its required argument", async () => {
    const toolkit = await everything();
    const { prompts } = await toolkit.prompts.list("everything");
    expect(prompts.find((p) => p.name === "args-prompt")?.arguments.map((a) => [a.name, a.required])).toEqual([
      ["city", true],
      ["state", false],
    ]);
    const messages = await toolkit.prompts.get("everything", "args-prompt", { city: "Lyon", state: "Rhône" });
    expect(messages.map((m) => m.content)).toEqual(["What's weather in Lyon, Rhône?"]);
    expect(await toolkit.prompts.get("everything", "args-prompt", {}).catch((e: McpToolError) => e.reason)).toBe("invalid_params");
    expect(await toolkit.prompts.get("everything", "no-such-prompt").catch((e: McpToolError) => e.reason)).toBe("prompt_not_found");
  });

  it("turns its embedded resource into a content block", async () => {
    const toolkit = await everything();
    const [intro, resource] = (await toolkit.prompts.get("everything", "resource-prompt", { resourceType: "Text", resourceId: "3" })) as [BaseMessage, BaseMessage];
    expect(intro).toBeInstanceOf(HumanMessage);
    expect(intro.content).toContain("resource with id: 3");
    const [block] = resource.contentBlocks;
    expect(block).toMatchObject({ type: "text-plain", mimeType: "text/plain", metadata: { uri: expect.stringMatching(/\/3$/) } });
    expect((block as { text: string }).text).toContain("3");
    const [, blob] = await toolkit.prompts.get("everything", "resource-prompt", { resourceType: "Blob", resourceId: "1" });
    expect(blob!.contentBlocks[0]).toMatchObject({ type: "file", metadata: { uri: expect.stringMatching(/\/1$/) } });
    expect(typeof (blob!.contentBlocks[0] as { data?: unknown }).data).toBe("string");
  });
});

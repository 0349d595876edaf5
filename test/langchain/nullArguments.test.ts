/**
 * SEP-2243: a model in strict function-calling mode sends `null` for every optional argument it
 * does not use; the client omits those before the call. Driven end to end: LangChain's
 * `tool.invoke` with a ToolCall, the toolkit, stdio, and a real server on each SDK line.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { filesStdioServer } from "../servers/files-stdio.js";

let id = 0;
async function invoke(toolkit: McpToolkit, name: string, args: Record<string, unknown>): Promise<ToolMessage> {
  const reply = await toolkit.getTool(name)!.invoke({ type: "tool_call", id: `call-${++id}`, name, args });
  expect(reply).toBeInstanceOf(ToolMessage);
  return reply as ToolMessage;
}

/** What the server received, as it echoed it back. */
const receivedBy = (message: ToolMessage): unknown => JSON.parse(message.content as string);

describe.each(["v1", "v2"] as const)("null for optional arguments, over stdio, %s SDK server", (sdk) => {
  // One server process for the block: the tools echo, so the tests cannot disturb each other.
  let toolkit: McpToolkit;
  beforeAll(async () => {
    const server = { ...filesStdioServer(sdk), ...(sdk === "v2" ? { era: "auto" as const } : {}) };
    toolkit = await McpToolkit.connect({ servers: { files: server }, retry: { retries: 0 } });
  });
  afterAll(() => toolkit?.close());

  it("omits null optionals, as server-filesystem's read_text_file gets them from a strict-mode model", async () => {
    // The v2 server speaks 2026-07-28 over stdio; the v1 server the 2025 revisions.
    expect(toolkit.protocolEra("files")).toBe(sdk === "v2" ? "modern" : "legacy");
    const message = await invoke(toolkit, "read_text_file", { path: "/tmp/a.txt", head: null, tail: null });
    expect(message.status).toBe("success");
    expect(receivedBy(message)).toEqual({ path: "/tmp/a.txt" });
  });

  it("omits nulls inside array items and nested objects the schema describes, and keeps a null the schema allows", async () => {
    const edit = await invoke(toolkit, "edit_file", { path: "/a", edits: [{ oldText: "x", newText: "y", replaceAll: null }], dryRun: null });
    expect(edit.status).toBe("success");
    expect(receivedBy(edit)).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });

    const write = await invoke(toolkit, "write_file", { path: "/a", content: "c", note: null, options: { mode: null, append: true } });
    expect(write.status).toBe("success");
    expect(receivedBy(write)).toEqual({ path: "/a", content: "c", note: null, options: { append: true } });

    const search = await invoke(toolkit, "search_files", { path: "/", pattern: "*.ts", excludePatterns: null });
    expect(receivedBy(search)).toEqual({ path: "/", pattern: "*.ts" });
  });

  it("reaches the server from inside createAgent, where LangGraph's ToolNode runs the tool", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "read_text_file", args: { path: "/etc/hosts", head: null, tail: null }, id: "tc-0" }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: toolkit.getTools() });
    const result = await agent.invoke({ messages: [{ role: "user", content: "read it" }] });
    const message = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(message.status).toBe("success");
    expect(receivedBy(message)).toEqual({ path: "/etc/hosts" });
  });

  it("still refuses null for a required argument, in one line naming the field, without calling the server", async () => {
    const message = await invoke(toolkit, "read_text_file", { path: null, head: null });
    expect(message.status).toBe("error");
    const artifact = message.artifact as McpToolErrorJSON;
    expect(artifact.reason).toBe("invalid_arguments");
    expect(artifact.message).toBe("Invalid arguments: 'path' must be a string (got null).");
    expect(artifact.outcome).toBe("not_sent");
  });
});

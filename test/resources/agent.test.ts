/**
 * An agent (`createAgent`, a scripted model) reads what it needs: it lists the resources, reads
 * one, reads a URI that is not there (one readable line, and the run goes on), and reads a 5 MB
 * resource in parts. Then the same tools over the reference server, server-everything, on stdio.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";
import { bigText, BIG_LENGTH, serve } from "./servers.js";

const cleanups = closeAfterEach();

function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
}

describe("an agent with the resource tools", () => {
  it("lists, reads, meets a missing URI as one line and goes on, and reads 5 MB in parts", async () => {
    const server = await serve("v2", "resources");
    cleanups.push(server.close);
    const toolkit = await McpToolkit.connect({ servers: { docs: { transport: "http", url: server.url.href } }, resources: { tools: true }, warnings: "silent" });
    cleanups.push(() => toolkit.close());
    const model = fakeModel()
      .respondWithTools([{ name: "list_mcp_resources", args: {}, id: "t1" }])
      .respondWithTools([{ name: "read_mcp_resource", args: { uri: "test://static/hello" }, id: "t2" }])
      .respondWithTools([{ name: "read_mcp_resource", args: { uri: "test://static/missing" }, id: "t3" }])
      .respondWithTools([{ name: "read_mcp_resource", args: { uri: "test://static/big" }, id: "t4" }])
      .respond((messages: BaseMessage[]) => {
        // The model reads the note and asks for the next part at the offset it names.
        const note = /offset (\d+)\.\]$/.exec(String(toolMessages(messages).at(-1)!.content));
        return new AIMessage({ content: "", tool_calls: [{ name: "read_mcp_resource", args: { uri: "test://static/big", offset: Number(note![1]) }, id: "t5" }] });
      })
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: toolkit.getTools() });
    const result = await agent.invoke({ messages: [{ role: "user", content: "read the docs" }] });
    const [list, hello, missing, part1, part2] = toolMessages(result.messages);
    expect(String(list!.content)).toContain('uri "test://static/big"');
    expect(hello!.content).toContain("Hello, resources.");
    expect(missing!.status).toBe("error");
    expect(missing!.content).toMatch(/^Error: Tool 'read_mcp_resource' failed \(resource_not_found\): [^\n]*call list_mcp_resources[^\n]*$/);
    const text = bigText();
    expect(String(part1!.content)).toContain(`characters="0-20000 of ${BIG_LENGTH}"`);
    expect(String(part2!.content)).toContain(`characters="20000-40000 of ${BIG_LENGTH}"`);
    expect(String(part2!.content)).toContain(text.slice(20_000, 40_000));
    expect(String(result.messages.at(-1)!.content)).toBe("done");
  });
});

describe("server-everything's resources (stdio)", () => {
  it("are listed (resources and templates, every page) and read, through the app API and the model's tools", async () => {
    const toolkit = await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, resources: { tools: true }, warnings: "silent" });
    cleanups.push(() => toolkit.close());
    const { resources, templates, failures } = await toolkit.resources.list();
    expect(failures).toEqual([]);
    expect(resources.length).toBeGreaterThan(0);
    expect(templates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(["demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"]));
    const first = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"))!;
    const docs = await toolkit.resources.read("everything", first.uri);
    expect(docs[0]!.metadata).toMatchObject({ server: "everything", uri: first.uri });
    expect(docs[0]!.pageContent.length).toBeGreaterThan(0);
    const read = toolkit.getTools().find((t) => t.name === "read_mcp_resource")!;
    const message = (await read.invoke({ type: "tool_call", id: "e1", name: "read_mcp_resource", args: { uri: "demo://resource/dynamic/text/{resourceId}", variables: { resourceId: "7" } } })) as ToolMessage;
    expect(message.status).toBe("success");
    expect(String(message.content)).toMatch(/^<mcp-resource server="everything" uri="demo:\/\/resource\/dynamic\/text\/7" mimeType="text\/plain">\nResource 7: This is a plaintext resource/);
    const blob = (await read.invoke({ type: "tool_call", id: "e2", name: "read_mcp_resource", args: { uri: "demo://resource/dynamic/blob/3" } })) as ToolMessage;
    expect(blob.status).toBe("success");
  });
});

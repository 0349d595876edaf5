/**
 * Exposed tool names are unique: model providers refuse a request whose tools share a name, and
 * the whole model call fails. Names that clash once made safe (`read.file`, `read_file`) get a
 * stable suffix, reported in `tools_changed`.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { exposedNames, suffixOf } from "../../src/langchain/toolNames.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";

const cleanups = closeAfterEach();

const tool = (name: string): Tool => ({ name, inputSchema: { type: "object", properties: {} } });

/** A real server listing these tool names in this order; each call answers with the MCP name it reached. */
async function namesServer(names: readonly string[]) {
  const server = new Server({ name: "names", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: names.map(tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: `ran ${request.params.name}` }] }));
  const connected = await connectInMemory(server);
  cleanups.push(connected.close);
  return connected.client;
}

describe("exposedNames", () => {
  it("gives two MCP names that are one name once made safe a suffix each, the same whatever the order", () => {
    const a = { server: "files", tool: tool("read.file") };
    const b = { server: "files", tool: tool("read_file") };
    const forward = exposedNames([a, b], new Set(), true).map((n) => n.name);
    const backward = exposedNames([b, a], new Set(), true).map((n) => n.name);
    expect(forward).toEqual([`files__read_file_${suffixOf("files", "read.file")}`, `files__read_file_${suffixOf("files", "read_file")}`]);
    expect(backward).toEqual([forward[1], forward[0]]);
    expect(new Set(forward).size).toBe(2);
  });

  it("without the prefix, gives both clashing tools the server prefix, whatever the order", () => {
    const a = { server: "one", tool: tool("read.file") };
    const b = { server: "two", tool: tool("read_file") };
    expect(exposedNames([a, b], new Set(), false)).toEqual([
      { name: "one__read_file", renamed: true },
      { name: "two__read_file", renamed: true },
    ]);
    expect(exposedNames([b, a], new Set(), false).map((n) => n.name)).toEqual(["two__read_file", "one__read_file"]);
  });

  it("keeps names within 64 characters and unique when a long name is cut, and never reuses a name given out", () => {
    const long = "x".repeat(70);
    const names = exposedNames([{ server: "s", tool: tool(`${long}a`) }, { server: "s", tool: tool(`${long}b`) }], new Set(), false);
    expect(names.every((n) => n.name.length <= 64 && /^[A-Za-z0-9_-]+$/.test(n.name))).toBe(true);
    expect(names[0]!.name).not.toBe(names[1]!.name);

    const taken = new Set(["files__read_file"]);
    const [late] = exposedNames([{ server: "files", tool: tool("read.file") }], taken, true);
    expect(late).toEqual({ name: `files__read_file_${suffixOf("files", "read.file")}`, renamed: true });
  });

  it("names a server's tool listed twice twice, still uniquely", () => {
    const names = exposedNames([{ server: "s", tool: tool("a") }, { server: "s", tool: tool("a") }], new Set(), false).map((n) => n.name);
    expect(new Set(names).size).toBe(2);
  });
});

describe("a toolkit over a server whose tool names clash once prefixed", () => {
  it.each([
    ["read.file first", ["read.file", "read_file", "list"]],
    ["read_file first", ["read_file", "list", "read.file"]],
  ])("exposes unique, order-independent names that reach the right tool, and reports the renames (%s)", async (_order, listed) => {
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({ servers: { files: { client: await namesServer(listed) } }, prefixToolNames: true, onEvent: (e) => events.push(e) });
    cleanups.push(() => toolkit.close());
    const dotted = `files__read_file_${suffixOf("files", "read.file")}`;
    const underscored = `files__read_file_${suffixOf("files", "read_file")}`;
    const names = toolkit.getTools().map((t) => t.name);
    expect(names.sort()).toEqual(["files__list", dotted, underscored].sort());

    for (const [name, mcpName] of [[dotted, "read.file"], [underscored, "read_file"], ["files__list", "list"]] as const) {
      const reply = (await toolkit.getTool(name)!.invoke({ type: "tool_call", id: name, name, args: {} })) as ToolMessage;
      expect(reply.content).toBe(`ran ${mcpName}`);
      expect(toolkit.getTool(name)!.metadata.mcpToolName).toBe(mcpName);
    }
    const changed = events.filter((e) => e.type === "tools_changed");
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ serverName: "files", removed: [] });
    expect(changed[0]).toHaveProperty("renamed", expect.arrayContaining([{ name: dotted, mcpName: "read.file" }, { name: underscored, mcpName: "read_file" }]));
    expect((changed[0] as { renamed: unknown[] }).renamed).toHaveLength(2);
  });

  it("reports no tools_changed at connect when no name clashed", async () => {
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({ servers: { files: { client: await namesServer(["a", "b"]) } }, prefixToolNames: true, onEvent: (e) => events.push(e) });
    cleanups.push(() => toolkit.close());
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["files__a", "files__b"]);
    expect(events.filter((e) => e.type === "tools_changed")).toEqual([]);
  });
});

/**
 * The model's resource tools (`resources: { tools: true }`): offered only when asked, named so
 * they never clash with a server's own tools, and answering as tools do: text inside delimiters
 * naming the server and the URI, a part within the budget with a note for the next, and every
 * failure one readable, redacted line with the McpToolError as artifact.
 */
import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpToolkit, type McpToolErrorJSON, type McpToolkitConfig, type ReadArtifact } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { bigText, BIG_LENGTH, SECRET, serve, type Line } from "./servers.js";

const cleanups = closeAfterEach();

async function started(line: Line, kind: Parameters<typeof serve>[1]): Promise<string> {
  const server = await serve(line, kind);
  cleanups.push(server.close);
  return server.url.href;
}

async function connect(config: McpToolkitConfig): Promise<McpToolkit> {
  const toolkit = await McpToolkit.connect({ warnings: "silent", ...config });
  cleanups.push(() => toolkit.close());
  return toolkit;
}

let n = 0;
async function invoke(toolkit: McpToolkit, name: string, args: Record<string, unknown>): Promise<ToolMessage> {
  const tool = toolkit.getTools().find((t) => t.name === name);
  expect(tool, name).toBeDefined();
  return (await tool!.invoke({ type: "tool_call", id: `tc-${++n}`, name, args })) as ToolMessage;
}

const http = (url: string, more: Record<string, unknown> = {}) => ({ transport: "http" as const, url, headers: { "X-Api-Key": SECRET }, ...more });

describe("the resource tools are opt-in", () => {
  it("are not offered unless the configuration asks, and the server tools keep their names", async () => {
    const url = await started("v1", "none");
    const plain = await connect({ servers: { a: http(url) } });
    expect(plain.getTools().map((t) => t.name)).toEqual(["read_mcp_resource"]);
    const asked = await connect({ servers: { a: http(url) }, resources: { tools: true } });
    // Asked for, the two tools take their names first: the server's own tool gets its prefix.
    expect(asked.getTools().map((t) => t.name)).toEqual(["a__read_mcp_resource", "list_mcp_resources", "read_mcp_resource"]);
  });

  it("follow a server's own `resources.tools` over the toolkit's", async () => {
    const url = await started("v2", "resources");
    const one = await connect({ servers: { a: http(url, { resources: { tools: true } }), b: http(url) } });
    expect(one.getTools().map((t) => t.name)).toContain("list_mcp_resources");
    const message = await invoke(one, "list_mcp_resources", {});
    expect(String(message.content)).toContain('server "a"');
    expect(String(message.content)).not.toContain('server "b"');
    const none = await connect({ servers: { a: http(url, { resources: { tools: false } }) }, resources: { tools: true } });
    expect(none.getTools().map((t) => t.name)).toEqual(["ping_tool"]);
  });

  it("refuse a misspelt option at connect, naming the field", async () => {
    const url = await started("v1", "resources");
    const bad = McpToolkit.connect({ servers: { a: http(url) }, resources: { tool: true } as never });
    await expect(bad).rejects.toBeInstanceOf(McpConfigError);
    await expect(bad).rejects.toThrow(/resources\.tool: unknown option; did you mean "tools"\?/);
    await expect(McpToolkit.connect({ servers: { a: http(url, { resources: { tools: "yes" } }) } } as never)).rejects.toThrow(/servers\.a\.resources\.tools: expected true or false/);
    await expect(McpToolkit.connect({ servers: { a: http(url) }, resources: { maxReadLength: 5 } })).rejects.toThrow(/resources\.maxReadLength/);
  });
});

describe.each(["v1", "v2"] as const)("the resource tools against a %s server", (line) => {
  async function toolkit(extra: Partial<McpToolkitConfig> = {}): Promise<McpToolkit> {
    return connect({ servers: { docs: http(await started(line, "resources")) }, resources: { tools: true }, ...extra });
  }

  it("list_mcp_resources: every resource and template, metadata only", async () => {
    const message = await invoke(await toolkit(), "list_mcp_resources", {});
    expect(message.status).toBe("success");
    const text = String(message.content);
    expect(text).toContain('- server "docs", uri "test://static/hello", name "Hello": A greeting. (text/plain)');
    expect(text).toContain(`- server "docs", uri "test://static/big", name "big": Five megabytes of text. (text/plain, ${BIG_LENGTH} bytes)`);
    expect(text).toContain('- template: server "docs", uriTemplate "test://items/{id}", name "item"');
    expect(text).not.toContain("Hello, resources.");
  });

  it("list_mcp_resources: a bound on the list's length, with a note saying which offset shows the next entries", async () => {
    const paged = await connect({ servers: { paged: http(await started(line, "paged")) }, resources: { tools: true, maxListLength: 300 } });
    const first = String((await invoke(paged, "list_mcp_resources", {})).content);
    expect(first.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(300);
    expect(first).toContain("[Showing entries 1-300 of 1000. Call list_mcp_resources with offset 300 for the next ones.]");
    const last = String((await invoke(paged, "list_mcp_resources", { offset: 900 })).content);
    expect(last.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(100);
    expect(last).toContain('uri "test://many/999"');
    expect(last).not.toContain("[Showing");
  });

  it("read_mcp_resource: the text inside delimiters that name the server and the URI", async () => {
    const message = await invoke(await toolkit(), "read_mcp_resource", { uri: "test://static/hello" });
    expect(message.status).toBe("success");
    expect(message.content).toBe('<mcp-resource server="docs" uri="test://static/hello" mimeType="text/plain">\nHello, resources.\n</mcp-resource>');
    expect(message.artifact).toEqual({ server: "docs", uri: "test://static/hello", mimeType: "text/plain", range: { offset: 0, end: 17, total: 17 } });
  });

  it("read_mcp_resource: 5 MB of text in parts within the budget, each note saying how to read the next", async () => {
    const kit = await toolkit({ resources: { tools: true, maxReadLength: 100_000 } });
    const text = bigText();
    const first = await invoke(kit, "read_mcp_resource", { uri: "test://static/big" });
    const content = String(first.content);
    expect(content.length).toBeLessThan(100_500);
    expect(content).toContain(`characters="0-100000 of ${BIG_LENGTH}"`);
    expect(content).toContain(text.slice(0, 100_000));
    expect(content).toContain(`[Showing characters 0-100000 of ${BIG_LENGTH}. To read the next part, call read_mcp_resource with uri "test://static/big" and offset 100000.]`);
    const second = String((await invoke(kit, "read_mcp_resource", { uri: "test://static/big", offset: 100_000, limit: 50_000 })).content);
    expect(second).toContain(text.slice(100_000, 150_000));
    expect(second).toContain("and offset 150000, limit 50000.]");
    const last = await invoke(kit, "read_mcp_resource", { uri: "test://static/big", offset: BIG_LENGTH - 10 });
    expect(String(last.content)).toContain(text.slice(-10));
    expect(String(last.content)).not.toContain("[Showing");
    expect((last.artifact as ReadArtifact).range).toEqual({ offset: BIG_LENGTH - 10, end: BIG_LENGTH, total: BIG_LENGTH });
  });

  it("read_mcp_resource: resource_too_large for a limit past the budget, saying how to read it in parts, unsent", async () => {
    const message = await invoke(await toolkit({ resources: { tools: true, maxReadLength: 1000 } }), "read_mcp_resource", { uri: "test://static/big", limit: 5000 });
    expect(message.status).toBe("error");
    expect(message.content).toMatch(/^Error: Tool 'read_mcp_resource' failed \(resource_too_large\): A limit of 5000 characters is past the budget of 1000 .*offset 0 with limit 1000, then offset 1000.* Read it in parts/);
    expect(message.artifact).toMatchObject({ reason: "resource_too_large", outcome: "not_sent" });
  });

  it("read_mcp_resource: a missing URI is one readable line telling the model to list the resources", async () => {
    const message = await invoke(await toolkit(), "read_mcp_resource", { uri: "test://static/nowhere" });
    expect(message.status).toBe("error");
    expect(message.content).toMatch(/^Error: Tool 'read_mcp_resource' failed \(resource_not_found\): .*test:\/\/static\/nowhere.*call list_mcp_resources/);
    expect(String(message.content).split("\n")).toHaveLength(1);
    expect((message.artifact as McpToolErrorJSON)).toMatchObject({ reason: "resource_not_found", serverName: "docs", toolName: "read_mcp_resource" });
  });

  it("read_mcp_resource: expands a template with its variables (RFC 6570)", async () => {
    const message = await invoke(await toolkit(), "read_mcp_resource", { uri: "test://items/{id}", variables: { id: "a b" } });
    expect(message.content).toBe('<mcp-resource server="docs" uri="test://items/a%20b" mimeType="text/plain">\nitem a%20b\n</mcp-resource>');
  });

  it("read_mcp_resource: an image as an image block, another binary described in one line and kept in the artifact", async () => {
    const kit = await toolkit();
    const image = await invoke(kit, "read_mcp_resource", { uri: "test://static/image" });
    const blocks = image.content as { type: string; image_url?: { url: string } }[];
    expect(blocks[1]).toMatchObject({ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } });
    const pdf = await invoke(kit, "read_mcp_resource", { uri: "test://static/pdf" });
    expect(pdf.content).toContain("[binary application/pdf, 40 bytes: test://static/pdf] (kept whole in the tool message's artifact)");
    expect((pdf.artifact as ReadArtifact).blobs?.[0]).toMatchObject({ uri: "test://static/pdf", mimeType: "application/pdf" });
  });

  it("read_mcp_resource: a configured secret in the resource's text never reaches the model", async () => {
    const message = await invoke(await toolkit(), "read_mcp_resource", { uri: "test://static/secret" });
    expect(String(message.content)).not.toContain(SECRET);
    expect(String(message.content)).toContain("token=[REDACTED");
  });

  it("read_mcp_resource: finds the server of a URI by the list when several offer resources, and says which to name when none lists it", async () => {
    const kit = await connect({ servers: { docs: http(await started(line, "resources")), paged: http(await started(line, "paged")) }, resources: { tools: true } });
    const many = await invoke(kit, "read_mcp_resource", { uri: "test://many/5" });
    expect(String(many.content)).toContain('<mcp-resource server="paged" uri="test://many/5">');
    const item = await invoke(kit, "read_mcp_resource", { uri: "test://items/9" });
    expect(String(item.content)).toContain('server="docs"');
    const nowhere = await invoke(kit, "read_mcp_resource", { uri: "test://elsewhere/1" });
    expect(nowhere.content).toMatch(/^Error: Tool 'read_mcp_resource' failed \(resource_not_found\): No server lists the resource 'test:\/\/elsewhere\/1' \(servers: docs, paged\)/);
  });

});

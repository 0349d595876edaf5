/**
 * The toolkit against the reference server the conformance suite's resource and prompt server
 * scenarios pass on (test/conformance/resourceServer.ts; `npm run conformance -- --server-scenarios`
 * runs the suite against it; nothing of the suite runs here). The same resources, template and
 * prompts those scenarios ask for, read through `toolkit.resources` and `toolkit.prompts` in both
 * eras: `legacy` (2025-11-25, on a session) and `modern` (2026-07-28, stateless).
 */
import { HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { isMcpToolError, McpToolkit, type McpToolError } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { EMBEDDED_TEXT, PNG, startConformanceResourceServer, STATIC_TEXT, WATCHED, type ConformanceResourceServer } from "../conformance/resourceServer.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** The URI the suite's SEP-2164 scenario reads. */
const MISSING = "test://nonexistent-resource-for-conformance-testing";

type Era = "legacy" | "modern";

async function connect(era: Era): Promise<{ server: ConformanceResourceServer; toolkit: McpToolkit }> {
  const server = later(await startConformanceResourceServer());
  const toolkit = later(
    await McpToolkit.connect({ servers: { ref: { transport: "http", url: server.url.href, era } }, resources: { tools: true }, retry: { retries: 0 }, warnings: "silent" }),
  );
  return { server, toolkit };
}

async function failure(run: Promise<unknown>): Promise<McpToolError> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(isMcpToolError(error), String(error)).toBe(true);
  return error as McpToolError;
}

const ERAS: [Era, string, number][] = [
  ["legacy", "2025-11-25", 1],
  ["modern", "2026-07-28", 0],
];

describe.each(ERAS)("the conformance reference server, era %s (%s)", (era, revision, sessions) => {
  it("speaks the revision asked for: a 2025 session, or none in 2026-07-28", async () => {
    const { server, toolkit } = await connect(era);
    expect(toolkit.status().ref?.protocolVersion).toBe(revision);
    expect(server.sessionCount).toBe(sessions);
  });

  it("lists the resources and the template (resources-list)", async () => {
    const { toolkit } = await connect(era);
    const { resources, templates, failures } = await toolkit.resources.list();
    expect(failures).toEqual([]);
    expect(resources.map((r) => [r.uri, r.name, r.mimeType]).sort()).toEqual([
      ["test://static-binary", "static-binary", "image/png"],
      ["test://static-text", "static-text", "text/plain"],
      [WATCHED, "watched-resource", "text/plain"],
    ]);
    expect(resources.every((r) => r.server === "ref" && typeof r.description === "string")).toBe(true);
    expect(templates).toEqual([{ server: "ref", uriTemplate: "test://template/{id}/data", name: "template-data", description: "Data for an id.", mimeType: "application/json" }]);
  });

  it("reads the text resource as a Document (resources-read-text)", async () => {
    const { toolkit } = await connect(era);
    const docs = await toolkit.resources.read("ref", "test://static-text");
    expect(docs.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata }))).toEqual([
      { pageContent: STATIC_TEXT, metadata: { server: "ref", uri: "test://static-text", mimeType: "text/plain" } },
    ]);
  });

  it("reads the blob as one line, its base64 kept in metadata.blob (resources-read-binary)", async () => {
    const { toolkit } = await connect(era);
    const [doc, ...rest] = await toolkit.resources.read("ref", "test://static-binary");
    expect(rest).toEqual([]);
    const bytes = Buffer.from(PNG, "base64").length;
    expect(doc!.pageContent).toBe(`[binary image/png, ${bytes} bytes: test://static-binary]`);
    expect(doc!.metadata).toEqual({ server: "ref", uri: "test://static-binary", mimeType: "image/png", blob: PNG });
  });

  it("reads the template at test://template/123/data, directly and expanded by read_mcp_resource (resources-templates-read)", async () => {
    const { toolkit } = await connect(era);
    const [doc] = await toolkit.resources.read("ref", "test://template/123/data");
    expect(doc!.metadata).toMatchObject({ uri: "test://template/123/data", mimeType: "application/json" });
    expect(JSON.parse(doc!.pageContent)).toEqual({ id: "123", templateTest: true, data: "Data for ID: 123" });

    const read = toolkit.getTools().find((t) => t.name === "read_mcp_resource")!;
    const message = (await read.invoke({ type: "tool_call", id: "1", name: "read_mcp_resource", args: { uri: "test://template/{id}/data", variables: { id: "123" } } })) as ToolMessage;
    expect(message.status).not.toBe("error");
    const text = String(message.content);
    expect(text.split("\n")[0]).toBe('<mcp-resource server="ref" uri="test://template/123/data" mimeType="application/json">');
    expect(text).toContain('"data":"Data for ID: 123"');
  });

  it("resource_not_found for an unknown URI: -32602 with data.uri (SEP-2164; the v2 SDK sends the same in 2025)", async () => {
    const { toolkit } = await connect(era);
    const error = await failure(toolkit.resources.read("ref", MISSING));
    expect(error).toMatchObject({ reason: "resource_not_found", kind: "protocol", outcome: "not_sent", transient: false, code: -32602, serverName: "ref", data: { uri: MISSING } });
    expect(error.message).toContain(MISSING);
  });

  it("lists the prompts with their arguments (prompts-list)", async () => {
    const { toolkit } = await connect(era);
    const { prompts, failures } = await toolkit.prompts.list();
    expect(failures).toEqual([]);
    expect(prompts.map((p) => p.name).sort()).toEqual(["test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_simple_prompt"]);
    expect(prompts.every((p) => p.serverName === "ref" && typeof p.description === "string")).toBe(true);
    expect(prompts.find((p) => p.name === "test_prompt_with_arguments")!.arguments).toEqual([
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ]);
  });

  it("gets the simple prompt and the one with its arguments substituted (prompts-get-simple, prompts-get-with-args)", async () => {
    const { toolkit } = await connect(era);
    const simple = await toolkit.prompts.get("ref", "test_simple_prompt", {});
    expect(simple.map((m) => [m.constructor, m.content])).toEqual([[HumanMessage, "This is a simple prompt for testing."]]);
    const withArgs = await toolkit.prompts.get("ref", "test_prompt_with_arguments", { arg1: "hello", arg2: "world" });
    expect(withArgs.map((m) => [m.constructor, m.content])).toEqual([[HumanMessage, "Prompt with arguments: arg1='hello', arg2='world'"]]);
  });

  it("turns the embedded resource and the image into standard content blocks (prompts-get-embedded-resource, prompts-get-with-image)", async () => {
    const { toolkit } = await connect(era);
    const embedded = await toolkit.prompts.get("ref", "test_prompt_with_embedded_resource", { resourceUri: "test://example-resource" });
    expect(embedded).toHaveLength(2);
    expect(embedded[0]!.contentBlocks).toEqual([
      { type: "text-plain", mimeType: "text/plain", text: EMBEDDED_TEXT, data: EMBEDDED_TEXT, metadata: { uri: "test://example-resource" } },
    ]);
    expect(embedded[1]!.content).toBe("Please process the embedded resource above.");

    const image = await toolkit.prompts.get("ref", "test_prompt_with_image", {});
    expect(image).toHaveLength(2);
    expect(image[0]!.contentBlocks).toEqual([{ type: "image", mimeType: "image/png", data: PNG }]);
    expect(image[1]!.content).toBe("Please analyze the image above.");
  });
});

describe("the reference server's 2025 subscriptions (resources-subscribe, resources-unsubscribe)", () => {
  it("tells a subscribed session when the resource changes, and stops after unsubscribe", async () => {
    const server = later(await startConformanceResourceServer());
    const client = new Client({ name: "subscriber", version: "1.0.0" });
    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", async (n) => void updates.push(n.params.uri));
    await client.connect(new StreamableHTTPClientTransport(server.url));
    cleanups.push(() => client.close());
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

    await client.subscribeResource({ uri: WATCHED });
    await server.touch(WATCHED);
    await expect.poll(() => updates).toEqual([WATCHED]);
    expect(await client.readResource({ uri: WATCHED })).toMatchObject({ contents: [{ text: "version 2" }] });

    await client.unsubscribeResource({ uri: WATCHED });
    await server.touch(WATCHED);
    await client.readResource({ uri: WATCHED });
    expect(updates).toEqual([WATCHED]);
    await expect(client.subscribeResource({ uri: "test://nowhere" })).rejects.toMatchObject({ code: -32602, data: { uri: "test://nowhere" } });
  });
});

/**
 * Real MCP servers offering resources, built on both SDK lines with the same resources and the
 * same hand-made failures, served over streamable HTTP by the fixtures of test/servers:
 * - static resources (text, a configured secret in text, 5 MB of text, an image, a PDF, an answer
 *   with no contents) and templates (`test://items/{id}`; `test://old/{id}` answering -32002 as
 *   older servers do; `test://new/{id}` answering -32602 with `data.uri` as 2026-07-28 says);
 * - a low-level server listing 1,000 resources over 10 pages, with no templates method (-32601);
 * - a server that declares the resources capability but answers no resources method (-32601);
 * - a server with no resources capability at all;
 * - a server whose resources/list fails.
 */
import { McpServer as V1McpServer, ResourceTemplate as V1Template } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, McpError, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpServer as V2McpServer, ProtocolError, ResourceTemplate as V2Template, Server as V2Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { HttpFixture } from "../servers/http.js";
import { V2HttpFixture } from "../servers/v2/http.js";

export const SECRET = "rsk_live_7Hq2Zp9Lm4Xv8Nc3Bt6Wd1Yf";
/** The 5 MB text resource's length, in characters (ASCII: bytes too). */
export const BIG_LENGTH = 5 * 1024 * 1024;
const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const PDF = Buffer.from("%PDF-1.4 a fake pdf for the tests\n%%EOF\n").toString("base64");

let big: string | undefined;
/** 5 MB of numbered lines: any part of it says where it is. */
export function bigText(): string {
  if (big) return big;
  const lines: string[] = [];
  let length = 0;
  for (let n = 0; length < BIG_LENGTH; n++) {
    const line = `line ${String(n).padStart(7, "0")} of the big resource\n`;
    lines.push(line);
    length += line.length;
  }
  return (big = lines.join("").slice(0, BIG_LENGTH));
}

type Register = (name: string, uri: string, meta: Record<string, unknown>, read: (uri: URL) => unknown) => void;
type RegisterTemplate = (name: string, template: string, read: (uri: URL, variables: Record<string, string | string[]>) => unknown) => void;

/** The same resources on a server of either line. */
function addResources(add: Register, addTemplate: RegisterTemplate, fail: (code: number, message: string, data?: unknown) => Error): void {
  const text = (uri: URL, body: string, mimeType = "text/plain") => ({ contents: [{ uri: uri.href, mimeType, text: body }] });
  add("hello", "test://static/hello", { title: "Hello", description: "A greeting.", mimeType: "text/plain" }, (uri) => text(uri, "Hello, resources."));
  add("secret", "test://static/secret", { description: "Text holding a configured secret." }, (uri) => text(uri, `token=${SECRET} and more`));
  add("big", "test://static/big", { description: "Five megabytes of text.", mimeType: "text/plain", size: BIG_LENGTH }, (uri) => text(uri, bigText()));
  add("image", "test://static/image", { mimeType: "image/png" }, (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: PNG_1PX }] }));
  add("pdf", "test://static/pdf", { mimeType: "application/pdf" }, (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/pdf", blob: PDF }] }));
  add("empty", "test://static/empty", { description: "Answers with no contents (the spec does not allow it)." }, () => ({ contents: [] }));
  addTemplate("item", "test://items/{id}", (uri, { id }) => text(uri, `item ${String(id)}`));
  addTemplate("old", "test://old/{id}", (uri) => {
    throw fail(-32002, `Resource ${uri.href} not found`);
  });
  addTemplate("new", "test://new/{id}", (uri) => {
    throw fail(-32602, `Resource ${uri.href} not found`, { uri: uri.href });
  });
}

/** The resource server on the v1 SDK. */
export function buildV1Resources(): V1McpServer {
  const server = new V1McpServer({ name: "resources-v1", version: "1.0.0" });
  server.registerTool("ping_tool", { description: "A tool beside the resources.", inputSchema: { text: z.string().optional() } }, async () => ({ content: [{ type: "text", text: "pong" }] }));
  addResources(
    (name, uri, meta, read) => server.registerResource(name, uri, meta, async (u) => read(u) as never),
    (name, template, read) => server.registerResource(name, new V1Template(template, { list: undefined }), {}, async (u, v) => read(u, v) as never),
    (code, message, data) => new McpError(code, message, data),
  );
  return server;
}

/** The resource server on the v2 SDK. */
export function buildV2Resources(): V2McpServer {
  const server = new V2McpServer({ name: "resources-v2", version: "2.0.0" });
  server.registerTool("ping_tool", { description: "A tool beside the resources.", inputSchema: z.object({ text: z.string().optional() }) }, async () => ({ content: [{ type: "text", text: "pong" }] }));
  addResources(
    (name, uri, meta, read) => server.registerResource(name, uri, meta, async (u) => read(u) as never),
    (name, template, read) => server.registerResource(name, new V2Template(template, { list: undefined }), {}, async (u, v) => read(u, v as Record<string, string | string[]>) as never),
    (code, message, data) => new ProtocolError(code, message, data),
  );
  return server;
}

/** 1,000 resources over 10 pages (cursor = the next index); no templates method, so -32601 for it. */
const PAGE = 100;
const TOTAL = 1000;
function page(cursor: string | undefined): { resources: { uri: string; name: string }[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : Number(cursor);
  const resources = Array.from({ length: Math.min(PAGE, TOTAL - start) }, (_, i) => ({ uri: `test://many/${start + i}`, name: `many ${start + i}` }));
  return start + PAGE < TOTAL ? { resources, nextCursor: String(start + PAGE) } : { resources };
}

export function buildV1Paginated(): V1Server {
  const server = new V1Server({ name: "paged-v1", version: "1.0.0" }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => page(request.params?.cursor));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({ contents: [{ uri: request.params.uri, text: `read ${request.params.uri}` }] }));
  return server;
}

export function buildV2Paginated(): V2Server {
  const server = new V2Server({ name: "paged-v2", version: "2.0.0" }, { capabilities: { resources: {} } });
  server.setRequestHandler("resources/list", async (request) => page(request.params?.cursor));
  server.setRequestHandler("resources/read", async (request) => ({ contents: [{ uri: request.params.uri, text: `read ${request.params.uri}` }] }));
  return server;
}

/** Declares resources and answers none of their methods: -32601 to every resources/* request. */
export function buildV1Unanswered(): V1Server {
  return new V1Server({ name: "unanswered-v1", version: "1.0.0" }, { capabilities: { resources: {} } });
}

export function buildV2Unanswered(): V2Server {
  return new V2Server({ name: "unanswered-v2", version: "2.0.0" }, { capabilities: { resources: {} } });
}

/** A server with tools and no resources capability. */
export function buildV1NoResources(): V1McpServer {
  const server = new V1McpServer({ name: "tools-only-v1", version: "1.0.0" });
  server.registerTool("read_mcp_resource", { description: "A server tool that takes the resource tool's name." }, async () => ({ content: [{ type: "text", text: "the server's own" }] }));
  return server;
}

export function buildV2NoResources(): V2McpServer {
  const server = new V2McpServer({ name: "tools-only-v2", version: "2.0.0" });
  server.registerTool("read_mcp_resource", { description: "A server tool that takes the resource tool's name." }, async () => ({ content: [{ type: "text", text: "the server's own" }] }));
  return server;
}

/** A server whose resources/list fails with an internal error. */
export function buildV1Failing(): V1Server {
  const server = new V1Server({ name: "failing-v1", version: "1.0.0" }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    throw new McpError(-32603, "the index is rebuilding");
  });
  return server;
}

export type Line = "v1" | "v2";

/** What every test of both lines starts: a server of `line` over streamable HTTP, by kind. */
export async function serve(line: Line, kind: "resources" | "paged" | "unanswered" | "none"): Promise<{ url: URL; close: () => Promise<void>; posts: () => number }> {
  if (line === "v1") {
    const build = { resources: buildV1Resources, paged: buildV1Paginated, unanswered: buildV1Unanswered, none: buildV1NoResources }[kind];
    const fixture = await new HttpFixture({ build: () => build() }).start();
    return { url: fixture.url, close: () => fixture.close(), posts: () => fixture.posts };
  }
  const build = { resources: buildV2Resources, paged: buildV2Paginated, unanswered: buildV2Unanswered, none: buildV2NoResources }[kind];
  const fixture = await new V2HttpFixture({ build: () => build() as never }).start();
  return { url: fixture.url, close: () => fixture.close(), posts: () => fixture.posts };
}

/**
 * The tests' way to start the servers above and connect a toolkit to them, each closed by
 * `cleanups` after the test: every server by its name, each request with the secret as `X-Api-Key`.
 */
export function resourceHarness(cleanups: (() => Promise<void>)[]) {
  return {
    async connect(servers: Record<string, URL>, extra: Record<string, unknown> = {}, events: McpEvent[] = []): Promise<McpToolkit> {
      const toolkit = await McpToolkit.connect({
        servers: Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { transport: "http" as const, url: url.href, headers: { "X-Api-Key": SECRET } }])),
        onEvent: (e) => events.push(e),
        warnings: "silent",
        ...extra,
      });
      cleanups.push(() => toolkit.close());
      return toolkit;
    },
    async started(line: Line, kind: Parameters<typeof serve>[1]): Promise<URL> {
      const server = await serve(line, kind);
      cleanups.push(server.close);
      return server.url;
    },
  };
}

/**
 * Each resource failure gets its reason end to end, against real servers on both SDK lines, read
 * through both client lines: the toolkit's own (v2, `@modelcontextprotocol/client`) and a v1 SDK
 * client the application holds (`client`), whose errors are McpError rather than ProtocolError.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { isMcpToolError, McpToolkit, type McpToolError, type ServerConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { serve, type Line } from "./servers.js";

const cleanups = closeAfterEach();

type ClientLine = "own" | "v1 client";

/** A toolkit over one server of `line`, reached by the toolkit's own client or by a v1 client we hand it. */
async function toolkitOn(line: Line, kind: Parameters<typeof serve>[1], via: ClientLine): Promise<McpToolkit> {
  const server = await serve(line, kind);
  cleanups.push(server.close);
  let config: ServerConfig = { transport: "http", url: server.url.href };
  if (via === "v1 client") {
    const client = new Client({ name: "app", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    cleanups.push(() => client.close());
    config = { client };
  }
  const toolkit = await McpToolkit.connect({ servers: { docs: config }, retry: { retries: 0 }, warnings: "silent" });
  cleanups.push(() => toolkit.close());
  return toolkit;
}

async function failure(run: Promise<unknown>): Promise<McpToolError> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(isMcpToolError(error), String(error)).toBe(true);
  return error as McpToolError;
}

const cases: [Line, ClientLine][] = [
  ["v1", "own"],
  ["v2", "own"],
  ["v1", "v1 client"],
  ["v2", "v1 client"],
];

describe.each(cases)("resource reasons: a %s server, through the %s", (line, via) => {
  it("resource_not_found: a URI the server does not have (its own not-found answer), permanent and not sent", async () => {
    const toolkit = await toolkitOn(line, "resources", via);
    const error = await failure(toolkit.resources.read("docs", "test://static/nothing-here"));
    expect(error).toMatchObject({ reason: "resource_not_found", kind: "protocol", transient: false, outcome: "not_sent", code: -32602, serverName: "docs" });
    expect(error.message).toContain("test://static/nothing-here");
  });

  it("resource_not_found: -32602 with data.uri (2026-07-28)", async () => {
    const toolkit = await toolkitOn(line, "resources", via);
    const error = await failure(toolkit.resources.read("docs", "test://new/7"));
    expect(error).toMatchObject({ reason: "resource_not_found", outcome: "not_sent", code: -32602, data: { uri: "test://new/7" } });
  });

  it("resource_not_found: -32002 from an older server (the v2 SDK sends -32602 for it on the wire)", async () => {
    const toolkit = await toolkitOn(line, "resources", via);
    const error = await failure(toolkit.resources.read("docs", "test://old/7"));
    expect(error).toMatchObject({ reason: "resource_not_found", outcome: "not_sent", transient: false });
    expect(error.code).toBe(line === "v1" ? -32002 : -32602);
  });

  it("capability_missing: -32601 on resources/* from a server that declares resources but answers none of their methods", async () => {
    const toolkit = await toolkitOn(line, "unanswered", via);
    const error = await failure(toolkit.resources.read("docs", "test://x"));
    expect(error).toMatchObject({ reason: "capability_missing", outcome: "not_sent", transient: false, code: -32601 });
    expect(error.message).toMatch(/^Server 'docs' offers no resources/);
  });

  it("capability_missing: a server without the resources capability is refused unsent, and a list of every server leaves it out", async () => {
    const toolkit = await toolkitOn(line, "none", via);
    const error = await failure(toolkit.resources.read("docs", "test://x"));
    expect(error).toMatchObject({ reason: "capability_missing", outcome: "not_sent" });
    expect(error.message).toBe("Server 'docs' offers no resources (it declared no resources capability).");
    expect(await toolkit.resources.list()).toEqual({ resources: [], templates: [], failures: [] });
    const named = await toolkit.resources.list("docs");
    expect(named.failures.map((f) => [f.server, f.error.reason])).toEqual([["docs", "capability_missing"]]);
  });

  it("invalid_result: an answer with no contents (the server ran the read)", async () => {
    const toolkit = await toolkitOn(line, "resources", via);
    const error = await failure(toolkit.resources.read("docs", "test://static/empty"));
    expect(error).toMatchObject({ reason: "invalid_result", outcome: "executed", transient: false });
  });
});

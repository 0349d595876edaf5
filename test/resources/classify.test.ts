/**
 * How a resource request's errors are read, from both SDK lines' classes: the method decides
 * what -32601, -32602 and -32002 mean, and without it only the unambiguous shapes count, so a
 * tool call's errors keep their meaning.
 */
import { ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/client";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";

const read = { method: "resources/read", serverName: "docs" };

describe("resource errors, by the method they answered", () => {
  it.each([
    ["v1 -32602 with data.uri", new McpError(-32602, "Resource not found", { uri: "test://a" })],
    ["v1 -32002 (older servers)", new McpError(-32002, "Resource not found")],
    ["v1 -32602 'Resource x not found' with no data (v1 McpServer)", new McpError(-32602, "MCP error -32602: Resource test://a not found")],
    ["v2 ResourceNotFoundError", new ResourceNotFoundError("test://a")],
    ["v2 -32002 with data.uri", new ProtocolError(-32002, "gone", { uri: "test://a" })],
  ])("%s on resources/read is resource_not_found, permanent, not sent", (_, error) => {
    expect(normalize(error, read)).toMatchObject({ reason: "resource_not_found", kind: "protocol", transient: false, outcome: "not_sent", serverName: "docs" });
  });

  it("reads the unambiguous shapes without the method: -32002 with data.uri, -32602 whose data is exactly { uri }", () => {
    expect(normalize(new McpError(-32002, "gone", { uri: "test://a" })).reason).toBe("resource_not_found");
    expect(normalize(new ResourceNotFoundError("test://a")).reason).toBe("resource_not_found");
    expect(normalize(new McpError(-32602, "bad", { uri: "test://a", field: "x" })).reason).toBe("invalid_params");
    expect(normalize(new McpError(-32002, "server-defined")).reason).toBe("server_error");
  });

  it("-32601 on resources/* is capability_missing naming the server; on a tool call it stays method_not_found", () => {
    const error = normalize(new ProtocolError(-32601, "Method not found"), { method: "resources/list", serverName: "docs" });
    expect(error).toMatchObject({ reason: "capability_missing", outcome: "not_sent", code: -32601 });
    expect(error.message).toBe("Server 'docs' offers no resources (it answered resources/list with: Method not found).");
    expect(normalize(new ProtocolError(-32601, "Method not found"), { serverName: "docs" }).reason).toBe("method_not_found");
  });

  it("a -32602 that is no missing resource stays invalid_params on a read", () => {
    expect(normalize(new McpError(-32602, "uri must be absolute"), read).reason).toBe("invalid_params");
  });
});

describe("a tool call's errors", () => {
  it("keep their meaning: a tool's -32602 with data { uri } is invalid_params, its -32002 a server error", () => {
    expect(normalize(new McpError(-32602, "bad uri", { uri: "test://a" }), { toolName: "fetch", serverName: "web" }).reason).toBe("invalid_params");
    expect(normalize(new McpError(-32002, "gone", { uri: "test://a" }), { toolName: "fetch", serverName: "web" }).reason).toBe("server_error");
  });
});

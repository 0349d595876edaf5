/**
 * What a prompts/* failure is, from the errors of both SDK lines as a client meets them: v1's
 * McpError, v2's ProtocolError and SdkError. The method decides (`context.method`).
 */
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/index.js";

const LINES = [
  ["v1 McpError", (code: number, message: string) => new McpError(code, `MCP error ${code}: ${message}`)],
  ["v2 ProtocolError", (code: number, message: string) => new ProtocolError(code, message)],
] as const;

describe.each(LINES)("a %s answering prompts/get", (_line, make) => {
  const get = { method: "prompts/get", mcpName: "greet", serverName: "s", toolName: "greet" };

  it("-32602 naming the prompt asked for is prompt_not_found, unsent", () => {
    expect(normalize(make(-32602, "Prompt greet not found"), get)).toMatchObject({ reason: "prompt_not_found", kind: "protocol", outcome: "not_sent", transient: false, code: -32602 });
    expect(normalize(make(-32602, "Prompt greet disabled"), get).reason).toBe("prompt_not_found");
  });

  it("-32602 for a missing argument, or naming another prompt, is invalid_params", () => {
    expect(normalize(make(-32602, "Invalid arguments for prompt greet: name: Required"), get).reason).toBe("invalid_params");
    expect(normalize(make(-32602, "Prompt other not found"), get).reason).toBe("invalid_params");
  });

  it("-32601 is capability_missing on prompts/* with one clear line, and method_not_found elsewhere", () => {
    const error = normalize(make(-32601, "Method not found"), { ...get, method: "prompts/list" });
    expect(error).toMatchObject({ reason: "capability_missing", outcome: "not_sent", transient: false });
    expect(error.message).toBe("Server 's' offers no prompts (it answered prompts/list with: Method not found).");
    expect(normalize(make(-32601, "Method not found"), { serverName: "s" }).reason).toBe("method_not_found");
    expect(normalize(make(-32602, "Prompt greet not found"), { serverName: "s" }).reason).toBe("invalid_params");
  });
});

it("a v2 client's own refusal of a server without prompts is capability_missing", () => {
  const refusal = new SdkError(SdkErrorCode.CapabilityNotSupported, "Server does not support prompts (required for prompts/get)");
  expect(normalize(refusal, { method: "prompts/get" })).toMatchObject({ reason: "capability_missing", outcome: "not_sent" });
});

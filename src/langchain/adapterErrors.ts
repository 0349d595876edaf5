import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { fromResult } from "../errors/fromResult.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { isRecord, messageOf, normalize, type NormalizeContext } from "../errors/normalize.js";

/**
 * Normalizes errors from other MCP adapters. `@langchain/mcp-adapters` rethrows failures as
 * a `ToolException` whose message holds `String(originalError)` and, mostly, no `cause`: the
 * cause is used where it exists, and the code or the isError text is read back from the
 * message where it does not.
 */
export function normalizeForeign(error: unknown, context: NormalizeContext = {}): McpToolError {
  if (!isRecord(error) || error.name !== "ToolException") return normalize(error, context);
  if (error.cause !== undefined) return normalize(error.cause, context).with({ message: stripAdapterPrefix(messageOf(error)) });
  const message = messageOf(error);

  // "MCP tool 'x' on server 's' returned an error: <text>": an isError result.
  const domain = /^MCP tool '[^']*' on server '[^']*' returned an error: ([\s\S]*)$/.exec(message);
  if (domain) {
    const classified = fromResult({ isError: true, content: [{ type: "text", text: domain[1] ?? "" }] }, context);
    return classified ? classified.with({ cause: error }) : normalize(error, context);
  }
  // "Error calling tool x: McpError: MCP error -32602: …": the JSON-RPC code survives in the text.
  const rpc = /MCP error (-?\d+): ([\s\S]*)$/.exec(message);
  if (rpc) return normalize(new McpError(Number(rpc[1]), stripRepeatedPrefix(rpc[2] ?? "")), context).with({ cause: error });
  const inner = /^Error calling tool [^:]+: (?:\w*Error: )?([\s\S]*)$/.exec(message);
  if (inner) return normalize(new Error(inner[1]), context).with({ cause: error });
  return normalize(error, context);
}

function stripAdapterPrefix(message: string): string {
  return message.replace(/^Error calling tool [^:]+: /, "");
}

function stripRepeatedPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+:\s*)+/, "");
}

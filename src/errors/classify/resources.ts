import type { Classification, NormalizeContext } from "./context.js";
import { isRecord } from "./util.js";

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
/** What servers built on older SDKs answer a read of a URI they do not have. */
const RESOURCE_NOT_FOUND = -32002;

// v1's McpServer: "Resource file:///x not found" (or "… disabled"), with no data.
const RESOURCE_X_MISSING = /^Resource\s+\S+\s+(?:not found|disabled)\b|^Resource not found\b/i;

/**
 * A JSON-RPC error answering a `resources/*` request, or one that says by its own shape that a
 * resource is missing:
 * - -32601 on `resources/*`: the server offers no resources (`capability_missing`, one clear line
 *   naming the server rather than "Method not found");
 * - -32602 with `data.uri` (the 2026-07-28 spec), -32002 (older servers), or on `resources/read` a
 *   -32602 whose text says the resource is not found (v1 servers send no data): `resource_not_found`.
 *   Without the method (an error classified on its own, no tool named), only the unambiguous shapes
 *   count: -32002 with `data.uri`, and -32602 whose data is exactly `{ uri }` (as the v2 SDK reads it).
 * `undefined` for everything else.
 */
export function fromResourceRequest(code: number, text: string, data: unknown, ctx: NormalizeContext): Classification | undefined {
  const method = ctx.method;
  const onResources = method !== undefined && method.startsWith("resources/");
  const uri = isRecord(data) && typeof data.uri === "string" ? data.uri : undefined;
  if (onResources && code === METHOD_NOT_FOUND) {
    const server = ctx.serverName ? `Server '${ctx.serverName}'` : "The server";
    return { reason: "capability_missing", message: `${server} offers no resources (it answered ${method} with: ${text}).` };
  }
  const read = method === "resources/read";
  // A tool call (a tool named, no method) keeps its own reading of -32602 and -32002.
  if (method === undefined && (ctx.toolName !== undefined || ctx.mcpName !== undefined)) return undefined;
  const missing =
    (code === RESOURCE_NOT_FOUND && (read || uri !== undefined)) ||
    (code === INVALID_PARAMS && ((read && (uri !== undefined || RESOURCE_X_MISSING.test(text))) || (uri !== undefined && Object.keys(data as object).length === 1)));
  if (!missing) return undefined;
  const where = ctx.serverName ? ` on server '${ctx.serverName}'` : "";
  return { reason: "resource_not_found", message: uri && !text.includes(uri) ? `${text} (uri: ${uri}${where})` : `${text}${where ? ` (${where.trim()})` : ""}` };
}

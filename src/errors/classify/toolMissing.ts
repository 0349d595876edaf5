import type { NormalizeContext } from "./context.js";

// How SDK servers and fastmcp word a tools/call for a tool they do not have (or have disabled):
// v1 and v2 McpServer "Tool x not found" / "Tool x disabled", fastmcp "Unknown tool: x". A name
// may come quoted.
const TOOL_X_MISSING = /^Tool\s+['"`]?([^\s'"`]+?)['"`]?\s+(?:not found|disabled)\b/i;
const UNKNOWN_TOOL = /^Unknown tool\b[:\s]*(?:['"`]?([^\s'"`]+?)['"`]?(?=[\s.,;!]|$))?/i;

/**
 * Does this text say that the tool called is missing from the server? Only then is it
 * `tool_not_found` (not sent, so the list is read again and the call sent once more): a tool that
 * ran and reports "Tool docker not found on the build host" is talking about something else, and
 * sending it again would run it twice.
 *
 * The called tool is the context's `mcpName` (its name on the server), else its `toolName`. With
 * neither known, as when a caller classifies a result on its own, any tool named will do.
 */
export function namesMissingTool(text: string, context: Pick<NormalizeContext, "mcpName" | "toolName">): boolean {
  const match = TOOL_X_MISSING.exec(text) ?? UNKNOWN_TOOL.exec(text);
  if (!match) return false;
  const called = context.mcpName ?? context.toolName;
  if (called === undefined) return true;
  return match[1] === called;
}

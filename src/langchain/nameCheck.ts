/**
 * The check `McpToolkit.connect` makes once its first servers are in: names in the configuration
 * that name nothing there is (unmatchedNames.ts), and `coalesce` on a tool that may write
 * (sharingCheck.ts). Kept out of McpToolkit, which only says when it runs.
 */
import type { McpToolkitConfig } from "../config/index.js";
import type { Connection } from "../mcp/session/Connection.js";
import type { McpTool } from "./McpTool.js";
import { refuseSharedWrites } from "./sharingCheck.js";
import type { ToolRuntime } from "./toolCall.js";
import { unmatchedError, unmatchedNames, type UnmatchedName } from "./unmatchedNames.js";

/**
 * Warns of each unmatched name through `warn`, or under `strict` throws the one error that lists
 * them all; a `coalesce` on a tool that may write always throws. Servers still `pending` are not
 * judged: they listed nothing yet.
 */
export function checkNames(
  config: McpToolkitConfig,
  connections: ReadonlyMap<string, Connection>,
  pending: readonly string[],
  tools: readonly McpTool[],
  runtimes: Iterable<ToolRuntime>,
  warn: (unmatched: UnmatchedName) => void,
): void {
  const waiting = new Set(pending);
  const listed = new Map([...connections].filter(([name]) => !waiting.has(name)).map(([name, c]) => [name, c.tools]));
  const offered = tools.map((t) => ({ exposedName: t.name, serverName: t.metadata.serverName ?? "", mcpName: t.metadata.mcpToolName ?? t.name }));
  const unmatched = unmatchedNames(config, listed, offered);
  refuseSharedWrites(config, runtimes);
  if (config.strict && unmatched.length > 0) throw unmatchedError(unmatched);
  for (const found of unmatched) warn(found);
}

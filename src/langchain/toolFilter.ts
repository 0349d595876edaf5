/**
 * Which tools the model is offered: a server's `exposeTools` and `toolFilter`, then the toolkit's
 * `filter`. A tool not offered is still known to the toolkit, so it can answer as a fallback.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolkitConfig, ToolPolicy } from "../config/index.js";
import { matchingPolicies } from "../policy/resolve.js";

/**
 * Patterns as the keys of a `tools` object, so that an allow or deny list matches names exactly
 * as the toolkit's per-tool policies do (a name, `<server>/<tool>`, or a glob with `*`), with
 * one matcher. Made once per list: the matcher compiles a `tools` object's globs once.
 */
const asKeys = new WeakMap<readonly string[], Record<string, ToolPolicy>>();

function matchesAny(patterns: readonly string[], serverName: string, tool: Tool): boolean {
  let keys = asKeys.get(patterns);
  if (!keys) {
    keys = Object.fromEntries(patterns.map((p) => [p, {}]));
    asKeys.set(patterns, keys);
  }
  // The tool has no exposed name yet (names are given to offered tools only): its own name stands in.
  return matchingPolicies(keys, { exposedName: tool.name, serverName, mcpName: tool.name }).length > 0;
}

/** Is the model offered this tool of this server? */
export function isOffered(config: McpToolkitConfig, serverName: string, tool: Tool): boolean {
  const server = config.servers[serverName];
  if (server?.exposeTools === false) return false;
  const { allow, deny } = server?.toolFilter ?? {};
  if (allow && !matchesAny(allow, serverName, tool)) return false;
  if (deny && matchesAny(deny, serverName, tool)) return false;
  if (!config.filter) return true;
  try {
    return Boolean(config.filter(tool, serverName));
  } catch {
    // Fail closed: a filter that cannot decide must not offer a tool it may have meant to hide.
    return false;
  }
}

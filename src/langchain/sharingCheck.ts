/**
 * Shared reads are for reads: `coalesce: true` on a tool the toolkit offers that is not known to
 * only read (a trusted `readOnlyHint: true`, or the policy's `readOnly: true`) is a configuration
 * error at `connect()`, naming the `tools` key that asked for it. Two writes that look alike are two
 * writes; merging them silently would run one. A glob that matches writes too is refused as well:
 * say `coalesce: false` for those, or name the reads. (resolve.ts never lets such a tool share,
 * so a tool a server lists later, after connect, is simply not shared.)
 */
import { McpConfigError, type McpToolkitConfig } from "../config/index.js";
import { matchingPolicies } from "../policy/resolve.js";
import type { ToolRuntime } from "./toolCall.js";

/** Throws the McpConfigError of the first offered tool that asks to `coalesce` and may write. */
export function refuseSharedWrites(config: McpToolkitConfig, offered: Iterable<ToolRuntime>): void {
  const tools = config.tools;
  if (!tools) return;
  for (const { identity, policy } of offered) {
    if (policy.coalesce) continue;
    const decides = matchingPolicies(tools, identity).findLast((layer) => layer.coalesce !== undefined);
    if (decides?.coalesce !== true) continue;
    const key = Object.keys(tools).find((k) => tools[k] === decides);
    throw new McpConfigError(
      `tools.${key}.coalesce`,
      `the tool '${identity.exposedName}' (server '${identity.serverName}') is not known to only read, and a call that may write is never shared with another: ` +
        `set \`readOnly: true\` for it if it only reads (or \`trustAnnotations: true\` on its server, if the server marks it \`readOnlyHint: true\`), or \`coalesce: false\``,
    );
  }
}

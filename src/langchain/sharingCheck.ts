/**
 * Shared reads and hedged calls are for reads: `coalesce: true` or a `hedge` on a tool the toolkit offers that is not known to
 * only read (a trusted `readOnlyHint: true`, or the policy's `readOnly: true`) is a configuration
 * error at `connect()`, naming the `tools` key that asked for it. Two writes that look alike are two
 * writes; merging them silently would run one. A glob that matches writes too is refused as well:
 * say `coalesce: false` for those, or name the reads. (resolve.ts never lets such a tool share
 * or hedge, so a tool a server lists later, after connect, is simply not shared or hedged.)
 */
import { McpConfigError, type McpToolkitConfig } from "../config/index.js";
import { matchingPolicies } from "../policy/resolve.js";
import type { ToolRuntime } from "./toolCall.js";

/** What a read-only tool may ask for, and what it would do to a write. */
const READS_ONLY = {
  coalesce: "a call that may write is never shared with another",
  hedge: "two calls that may write, sent at once, race (even under one idempotency key)",
} as const;

/** Throws the McpConfigError of the first offered tool that asks to `coalesce` or `hedge` and may write. */
export function refuseSharedWrites(config: McpToolkitConfig, offered: Iterable<ToolRuntime>): void {
  const tools = config.tools;
  if (!tools) return;
  for (const { identity, policy } of offered) {
    if (policy.readOnly) continue;
    for (const [field, why] of Object.entries(READS_ONLY) as [keyof typeof READS_ONLY, string][]) {
      const decides = matchingPolicies(tools, identity).findLast((layer) => layer[field] !== undefined);
      if (!decides?.[field]) continue;
      const key = Object.keys(tools).find((k) => tools[k] === decides);
      const off = field === "coalesce" ? "`coalesce: false`" : "remove `hedge`";
      throw new McpConfigError(
        `tools.${key}.${field}`,
        `the tool '${identity.exposedName}' (server '${identity.serverName}') is not known to only read, and ${why}: ` +
          `set \`readOnly: true\` for it if it only reads (or \`trustAnnotations: true\` on its server, if the server marks it \`readOnlyHint: true\`), or ${off}`,
      );
    }
  }
}

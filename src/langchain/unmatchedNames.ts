/**
 * Tool names in the configuration that name no tool: a `toolFilter` pattern that matches none of
 * its server's tools (the server then offers nothing, or hides nothing), or a `tools` policy key
 * that matches no tool of any server (the policy is never applied). A typo in a tool's name is
 * otherwise silent, where a typo in an option's name is named with the key it meant.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolkitConfig } from "../config/index.js";
import { nearest } from "../config/fields.js";
import { toolMatcher } from "../policy/resolve.js";

export interface UnmatchedName {
  /** Where the name stands in the configuration, e.g. `tools.serach` or `servers.files.toolFilter.allow[0]`. */
  field: string;
  /** One line: what matched nothing, and the listed tool it probably meant. */
  message: string;
}

/**
 * The names in `config` that match no tool of `listed` (each connected server's tools, by server).
 * A name about a server not connected yet (an optional one still failing) is not judged: its
 * tools are unknown. `exposedNames` are the names the model is offered (prefixed or not).
 */
export function unmatchedNames(config: McpToolkitConfig, listed: ReadonlyMap<string, readonly Tool[]>, exposedNames: readonly string[]): UnmatchedName[] {
  const out: UnmatchedName[] = [];
  // Each tool as a key sees it, made once: by its server and name, and by the name the model is offered
  // (an object per key and tool before: the bench's build section alone 29.1 ms, now 22.7-26.4 ms).
  const everyTool = [...listed].flatMap(([serverName, tools]) => tools.map((tool) => ({ serverName, mcpName: tool.name, exposedName: tool.name })));
  const offered = exposedNames.map((name) => ({ serverName: "", mcpName: name, exposedName: name }));
  const allKnown = listed.size === Object.keys(config.servers).length;
  for (const [serverName, server] of Object.entries(config.servers)) {
    const tools = listed.get(serverName);
    if (!tools || !("toolFilter" in server) || !server.toolFilter) continue;
    for (const list of ["allow", "deny"] as const) {
      (server.toolFilter[list] ?? []).forEach((pattern, i) => {
        const matches = toolMatcher(pattern);
        if (tools.some((tool) => matches({ serverName, mcpName: tool.name, exposedName: tool.name }))) return;
        out.push(unmatched(`servers.${serverName}.toolFilter.${list}[${i}]`, pattern, `server '${serverName}' lists no tool it matches`, tools.map((t) => t.name)));
      });
    }
  }
  for (const key of Object.keys(config.tools ?? {})) {
    const server = key.includes("/") ? key.slice(0, key.indexOf("/")) : undefined;
    // A key for a server whose tools are not known yet, or (unqualified) while any server's are not, is not judged.
    if (server ? !listed.has(server) : !allKnown) continue;
    // Compiled once per key: 200 glob keys over 1,000 tools compiled 200,000 patterns (the bench's
    // build section went from 25 ms to about 100 ms with this check until then).
    const matches = toolMatcher(key);
    const hit = everyTool.some(matches) || offered.some(matches);
    if (!hit) out.push(unmatched(`tools.${key}`, key, "no server lists a tool it matches: its policy is never applied", [...exposedNames, ...everyTool.map((t) => `${t.serverName}/${t.mcpName}`)]));
  }
  return out;
}

function unmatched(field: string, pattern: string, why: string, known: readonly string[]): UnmatchedName {
  const meant = pattern.includes("*") ? undefined : nearest(pattern, [...new Set(known)]);
  return { field, message: `'${pattern}' matches no tool: ${why}${meant ? `; did you mean "${meant}"?` : "."}` };
}

import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * The names the model sees for newly connected tools: the MCP name, or `<server>__<tool>`
 * when `prefixAll` is set or the name clashes (between the new tools, or with a name already
 * given out, which never changes).
 */
export function exposedNames(incoming: readonly { server: string; tool: Tool }[], taken: Set<string>, prefixAll: boolean): string[] {
  const counts = new Map<string, number>();
  for (const { tool } of incoming) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return incoming.map(({ server, tool }) => {
    const clash = (counts.get(tool.name) ?? 0) > 1 || taken.has(safeName(tool.name));
    const name = prefixAll || clash ? safeName(`${server}__${tool.name}`) : safeName(tool.name);
    taken.add(name);
    return name;
  });
}

/** LangChain and model APIs accept `[A-Za-z0-9_-]{1,64}` as a tool name. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

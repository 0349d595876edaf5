import { platform } from "../platform/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** LangChain and model APIs accept `[A-Za-z0-9_-]{1,64}` as a tool name. */
const MAX_NAME = 64;

/** The name a tool is offered under, and whether a clash changed it from the usual one. */
export interface ExposedName {
  name: string;
  /** A clash gave it the server prefix (without `prefixToolNames`) or the suffix. */
  renamed: boolean;
}

/**
 * The names the model sees for newly connected tools. Model providers refuse a request whose
 * tools share a name, so every name is unique:
 * 1. the MCP name, made safe (`[A-Za-z0-9_-]`, at most 64 characters), or `<server>__<tool>`
 *    when `prefixAll` is set or the safe name clashes (between the new tools, or with a name
 *    already given out, which never changes);
 * 2. a name still shared after that (`read.file` and `read_file` are both `read_file`, a long
 *    name cut at 64, a prefix that reads like another server's) gets `_` and the first six hex
 *    digits of the SHA-256 of the server name, a NUL and the MCP name, on every tool that shares
 *    it: the same tools get the same names whatever order the servers list them in.
 */
export function exposedNames(incoming: readonly { server: string; tool: Tool }[], taken: Set<string>, prefixAll: boolean): ExposedName[] {
  const plain = incoming.map(({ tool }) => safeName(tool.name));
  const plainCount = countOf(plain);
  const usual = incoming.map(({ server, tool }, i) => (prefixAll ? safeName(`${server}__${tool.name}`) : plain[i]!));
  const base = incoming.map(({ server, tool }, i) => {
    const clash = (plainCount.get(plain[i]!) ?? 0) > 1 || taken.has(plain[i]!);
    return prefixAll || clash ? safeName(`${server}__${tool.name}`) : plain[i]!;
  });
  const baseCount = countOf(base);
  return incoming.map(({ server, tool }, i) => {
    const shared = (baseCount.get(base[i]!) ?? 0) > 1 || taken.has(base[i]!);
    let name = shared ? withSuffix(base[i]!, suffixOf(server, tool.name)) : base[i]!;
    // Only a server listing one name twice, or six hex digits colliding, gets this far.
    for (let n = 2; taken.has(name); n++) name = withSuffix(base[i]!, `${suffixOf(server, tool.name)}_${n}`);
    taken.add(name);
    return { name, renamed: name !== usual[i] };
  });
}

/** The suffix a clashing tool gets: stable, from its server and MCP name alone. */
export function suffixOf(server: string, mcpName: string): string {
  return platform.sha256Hex(`${server}\u0000${mcpName}`).slice(0, 6);
}

function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, MAX_NAME - suffix.length - 1)}_${suffix}`;
}

function countOf(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_NAME);
}

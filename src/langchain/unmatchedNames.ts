/**
 * Names in the configuration that name nothing there is:
 * - a `toolFilter` pattern that matches none of its server's tools (the server then offers nothing, or hides nothing);
 * - a `tools` key whose server part names no server (`fats/*`), or that matches no tool (`*\/slep`):
 *   its policy is never applied;
 * - a fallback server (a server's `fallback`, a `tools` policy's) that lists none of the tools
 *   that fall back to it: the fallback never runs;
 * - a `tools` policy's `idempotencyKey` that is no input property of the tools it is for: the key
 *   goes where the server does not look, and the toolkit repeats the call as if it were keyed.
 *
 * A typo in such a name is otherwise silent, where a typo in an option's name is named with the
 * key it meant. (A fallback naming no server at all is refused by the schema.)
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpConfigError, type McpToolkitConfig } from "../config/index.js";
import { nearest } from "../config/fields.js";
import { nameMatcher, toolMatcher, type ToolIdentity } from "../policy/resolve.js";

export interface UnmatchedName {
  /** Where the name stands in the configuration, e.g. `tools.serach` or `servers.files.toolFilter.allow[0]`. */
  field: string;
  /** One line: what matched nothing, and the name it probably meant. */
  message: string;
}

/** A tool as a pattern sees it. */
type Named = Omit<ToolIdentity, "annotations">;

/** What the names are checked against. */
interface Known {
  config: McpToolkitConfig;
  /** Every configured server's name. */
  servers: readonly string[];
  /** Each connected server's tools. */
  listed: ReadonlyMap<string, readonly Tool[]>;
  /** Each listed tool by its server and name (a key may name a tool the model is not offered). */
  everyTool: readonly Named[];
  /** The tools the model is offered, under the names it sees. */
  offered: readonly Named[];
}

/**
 * The names in `config` that name nothing of `listed` (each connected server's tools, by server)
 * or of `offered` (the tools the model is offered, under their exposed names; unset, every
 * listed tool under its own name, as the doctor, which builds no tools, sees them). A name about a
 * server not connected yet (an optional one still failing) is not judged: its tools are unknown.
 * A server part that names no configured server is judged at once.
 */
export function unmatchedNames(config: McpToolkitConfig, listed: ReadonlyMap<string, readonly Tool[]>, offered?: readonly Named[]): UnmatchedName[] {
  // Each tool as a key sees it, made once: by its server and name, and by the name the model is offered
  // (an object per key and tool before: the bench's build section alone 29.1 ms, now 22.7-26.4 ms).
  const everyTool = [...listed].flatMap(([serverName, tools]) => tools.map((tool) => ({ serverName, mcpName: tool.name, exposedName: tool.name })));
  const known: Known = { config, servers: Object.keys(config.servers), listed, everyTool, offered: offered ?? everyTool };
  return [...filterMisses(known), ...serverFallbackMisses(known), ...policyKeyMisses(known)];
}

function filterMisses({ config, listed }: Known): UnmatchedName[] {
  const out: UnmatchedName[] = [];
  for (const [serverName, server] of Object.entries(config.servers)) {
    const tools = listed.get(serverName);
    if (!tools || !("toolFilter" in server) || !server.toolFilter) continue;
    const names = tools.map((t) => t.name);
    for (const list of ["allow", "deny"] as const) {
      (server.toolFilter[list] ?? []).forEach((pattern, i) => {
        const matches = toolMatcher(pattern);
        if (names.some((name) => matches({ serverName, mcpName: name, exposedName: name }))) return;
        const meant = meantName(pattern, [serverName], () => names, names);
        out.push(miss(`servers.${serverName}.toolFilter.${list}[${i}]`, `'${pattern}' matches no tool: server '${serverName}' lists no tool it matches`, meant));
      });
    }
  }
  return out;
}

/** A server's `fallback` that lists none of the server's tools. */
function serverFallbackMisses(known: Known): UnmatchedName[] {
  const out: UnmatchedName[] = [];
  for (const [serverName, server] of Object.entries(known.config.servers)) {
    const own = known.listed.get(serverName)?.map((t) => t.name);
    if (server.fallback === undefined || !own?.length) continue;
    const found = fallbackMiss(known, server.fallback, own, [serverName]);
    if (found) out.push({ field: `servers.${serverName}.fallback`, message: found });
  }
  return out;
}

/** Each `tools` key: its server and tool parts, then the fallback and key property its policy names. */
function policyKeyMisses(known: Known): UnmatchedName[] {
  const out: UnmatchedName[] = [];
  for (const [key, policy] of Object.entries(known.config.tools ?? {})) {
    const servers = serversOf(key, known.servers);
    // Compiled once per key: 200 glob keys over 1,000 tools compiled 200,000 patterns (the bench's
    // build section went from 25 ms to about 100 ms with this check until then).
    const matches = toolMatcher(key);
    if (!known.everyTool.some(matches) && !known.offered.some(matches)) {
      const found = keyMiss(key, servers, known);
      if (found) out.push(found);
      continue;
    }
    const fallback = typeof policy.fallback === "string" ? policy.fallback : undefined;
    const property = typeof policy.idempotencyKey === "string" ? policy.idempotencyKey : undefined;
    // A key some of whose tools are not known yet is not judged on what they are.
    if ((fallback === undefined && property === undefined) || !servers.every((s) => known.listed.has(s))) continue;
    const tools = toolsMatching(matches, known);
    if (fallback !== undefined) {
      const from = tools.filter((t) => t.serverName !== fallback);
      const found = from.length > 0 ? fallbackMiss(known, fallback, from.map((t) => t.mcpName), [...new Set(from.map((t) => t.serverName))]) : undefined;
      if (found) out.push({ field: `tools.${key}.fallback`, message: found });
    }
    if (property !== undefined) {
      const found = keyPropertyMiss(property, tools);
      if (found) out.push({ field: `tools.${key}.idempotencyKey`, message: found });
    }
  }
  return out;
}

/** Why a `tools` key that matches no known tool names nothing, or undefined while that is not known. */
function keyMiss(key: string, servers: readonly string[], known: Known): UnmatchedName | undefined {
  let why: string;
  if (servers.length === 0) {
    const part = key.slice(0, key.indexOf("/"));
    const none = part.includes("*") ? `no server's name matches '${part}'` : `there is no server '${part}'`;
    why = `${none} (servers: ${listOf(known.servers)}), so its policy is never applied`;
  } else if (servers.every((s) => known.listed.has(s))) {
    why = `${key.includes("/") && servers.length === 1 ? `server '${servers[0]}' lists no tool it matches` : "no server lists a tool it matches"}: its policy is never applied`;
  } else return undefined;
  const plain = [...known.offered.map((t) => t.exposedName), ...known.everyTool.map((t) => `${t.serverName}/${t.mcpName}`)];
  const meant = meantName(key, known.servers, (server) => known.listed.get(server)?.map((t) => t.name), plain);
  return miss(`tools.${key}`, `'${key}' matches no tool: ${why}`, meant);
}

/**
 * Why a fallback to `to` never runs: it lists none of `names`, the tools that fall back to it
 * (from the servers `from`). Undefined when it lists one, or its tools are not known yet.
 */
function fallbackMiss(known: Known, to: string, names: readonly string[], from: readonly string[]): string | undefined {
  const theirs = known.listed.get(to);
  if (!theirs) return undefined;
  const wanted = new Set(names);
  if (theirs.some((t) => wanted.has(t.name))) return undefined;
  // The servers that list one of the tools: the fallback probably meant one of them.
  const others = [...known.listed].filter(([s, tools]) => s !== to && !from.includes(s) && tools.some((t) => wanted.has(t.name))).map(([s]) => s);
  const near = nearest(to, others) ?? (others.length === 1 ? others[0] : undefined);
  const what = wanted.size === 1 ? `no tool '${names[0]}'` : `none of the ${wanted.size} tools that fall back to it (${listOf([...wanted])})`;
  const hint = near ? `; did you mean "${near}"?` : others.length > 0 ? `; servers that do: ${listOf(others)}.` : ".";
  return `server '${to}' lists ${what}: the fallback never runs${hint}`;
}

/** Why a policy's `idempotencyKey` names no input property of its tools, or undefined when one has it. */
function keyPropertyMiss(property: string, tools: readonly (Named & { tool: Tool })[]): string | undefined {
  const propertiesOf = (tool: Tool) => Object.keys((tool.inputSchema?.properties as Record<string, unknown> | undefined) ?? {});
  if (tools.length === 0 || tools.some(({ tool }) => propertiesOf(tool).includes(property))) return undefined;
  const meant = nearest(property, [...new Set(tools.flatMap(({ tool }) => propertiesOf(tool)))]);
  const whose = tools.length === 1 ? `tool '${tools[0]!.serverName}/${tools[0]!.mcpName}'` : `any of its ${tools.length} tools`;
  return `'${property}' is no input property of ${whose}: the key goes where the server does not look, and the call is repeated as if keyed${meant ? `; did you mean "${meant}"?` : "."}`;
}

/** The listed tools a key matches, by their own names or the ones the model sees, each once. */
function toolsMatching(matches: (tool: Named) => boolean, known: Known): (Named & { tool: Tool })[] {
  const found = new Map<string, Named & { tool: Tool }>();
  for (const named of [...known.everyTool.filter(matches), ...known.offered.filter(matches)]) {
    const tool = known.listed.get(named.serverName)?.find((t) => t.name === named.mcpName);
    if (tool) found.set(`${named.serverName}/${named.mcpName}`, { ...named, tool });
  }
  return [...found.values()];
}

/** The servers whose tools a key may match: the one its server part names, those it matches as a glob, or (no server part) every one. */
function serversOf(key: string, servers: readonly string[]): readonly string[] {
  const slash = key.indexOf("/");
  return slash < 0 ? servers : servers.filter(nameMatcher(key.slice(0, slash)));
}

/**
 * The name a pattern probably meant: with a server part (`fats/*`, `*\/slep`), that part and the
 * tool part each replaced by the nearest name there is when it names nothing (a part with `*`
 * is kept); without one, the nearest of `plain`.
 */
function meantName(pattern: string, servers: readonly string[], toolsOf: (server: string) => readonly string[] | undefined, plain: readonly string[]): string | undefined {
  const slash = pattern.indexOf("/");
  if (slash < 0) return pattern.includes("*") ? undefined : nearest(pattern, [...new Set(plain)]);
  let server = pattern.slice(0, slash);
  let candidates = servers.filter(nameMatcher(server));
  if (candidates.length === 0) {
    const near = server.includes("*") ? undefined : nearest(server, servers);
    if (near === undefined) return undefined;
    [server, candidates] = [near, [near]];
  }
  let tool = pattern.slice(slash + 1);
  if (!tool.includes("*")) {
    const names = [...new Set(candidates.flatMap((s) => toolsOf(s) ?? []))];
    if (!names.includes(tool)) tool = nearest(tool, names) ?? tool;
  }
  const meant = `${server}/${tool}`;
  return meant === pattern ? undefined : meant;
}

/**
 * The error `connect()` rejects with under `strict`: every name on a line of its own, so one run
 * shows them all. `field` is the first's.
 */
export function unmatchedError(unmatched: readonly UnmatchedName[]): McpConfigError {
  const [first, ...rest] = unmatched;
  if (!first) throw new TypeError("unmatchedError needs a name");
  return new McpConfigError(first.field, [first.message, ...rest.map((u) => `  ${u.field}: ${u.message}`)].join("\n"));
}

function miss(field: string, what: string, meant: string | undefined): UnmatchedName {
  return { field, message: `${what}${meant ? `; did you mean "${meant}"?` : "."}` };
}

/** Names for a message: the first few, and how many more. */
function listOf(names: readonly string[], most = 5): string {
  return names.length <= most ? names.join(", ") : `${names.slice(0, most).join(", ")} and ${names.length - most} more`;
}

/**
 * Doctor reads a configuration file past its mistakes. The toolkit refuses a file with one
 * misspelt key, as it should; doctor is asked what works and what to fix, so it names each
 * mistake and still checks every server the file describes well enough to start.
 */
import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { McpToolkitConfig } from "../config/index.js";
import { parseJsonc } from "../config/expand.js";
import { isObject } from "../config/fields.js";
import { loadMcpConfig, type LoadMcpConfigOptions } from "../config/load.js";
import { McpConfigError } from "../config/validate.js";

/** A mistake in the file: the field, what is wrong with it, and the server left unchecked because of it. */
export interface ConfigProblem {
  /** The dotted path of the field in the file, as in `mcpServers.files.comand`. */
  field: string;
  problem: string;
  /** The server that could not be checked: its entry is unusable without the field. */
  skippedServer?: string;
}

/** More mistakes than this in one file: the file is reported as wrong, as the toolkit would. */
const MAX_PROBLEMS = 50;

/**
 * Loads the file as `loadMcpConfig` does; where it refuses, drops what it refused (a misspelt
 * key, a value that cannot work; a server whose entry stays unusable) and loads again. A problem that names no field of
 * the file (it cannot be read, it is not JSON, it has no servers at all) is thrown.
 */
export async function loadLeniently(path: string, options: LoadMcpConfigOptions): Promise<{ config: McpToolkitConfig; problems: ConfigProblem[] }> {
  // Each load warns anew: only the warnings of the load that succeeds are passed on.
  let heard: string[] = [];
  const load = async (source: string | Record<string, unknown>, opts: LoadMcpConfigOptions) => {
    heard = [];
    const config = await loadMcpConfig(source, { ...opts, onWarning: (w) => heard.push(w) });
    const warn = options.onWarning ?? ((w: string) => process.emitWarning(w, "McpConfigWarning"));
    for (const w of heard) warn(w);
    return config;
  };
  let refused: McpConfigError;
  try {
    return { config: await load(path, options), problems: [] };
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    refused = error;
  }
  const file = resolve(path);
  let document: unknown;
  try {
    document = parseJsonc(await readFile(file, "utf8"));
  } catch {
    throw refused;
  }
  // The document is loaded from memory from here on: `${workspaceFolder}` still means the file's.
  const again: LoadMcpConfigOptions = { ...options, workspaceFolder: options.workspaceFolder ?? workspaceOf(file) };
  const problems: ConfigProblem[] = [];
  let label = file;
  for (;;) {
    const problem = dropRefused(document, refused, label, problems);
    if (!problem || problems.length >= MAX_PROBLEMS) throw refused;
    if (problem.skippedServer !== undefined && noServersLeft(document)) return { config: { servers: {} } as McpToolkitConfig, problems };
    try {
      return { config: await load(document as Record<string, unknown>, again), problems };
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      refused = error;
      label = "config";
    }
  }
}

/**
 * Removes from the document what `error` refused, and records why: a key it names (unknown, or
 * with a value that cannot work) goes alone, and its default applies; a problem with a server's
 * entry as a whole (no `command` or `url`) takes the server with it. `undefined` when the error
 * names nothing that can be removed.
 */
function dropRefused(document: unknown, error: McpConfigError, label: string, problems: ConfigProblem[]): ConfigProblem | undefined {
  const prefix = `${label}: `;
  if (!error.field.startsWith(prefix)) return undefined;
  const field = error.field.slice(prefix.length);
  const head = `Invalid MCP toolkit configuration: ${error.field}: `;
  const problem = error.message.startsWith(head) ? error.message.slice(head.length) : error.message;
  // The servers themselves are no field to drop: a file without them is wrong as a whole.
  if (field === "mcpServers" || field === "servers") return undefined;
  const path = pathIn(document, field);
  const server = serverOf(document, field);
  // A field inside an entry goes alone; a problem with the entry as a whole takes the server.
  if (path.found && !(server && field === `${server.key}.${server.name}`)) {
    delete (path.parent as Record<string, unknown>)[path.key];
    const recorded = { field, problem };
    problems.push(recorded);
    return recorded;
  }
  if (!server) return undefined;
  delete server.servers[server.name];
  // The server's own earlier mistake (a misspelt `command`) is what left it unusable.
  const earlier = problems.find((p) => p.field.startsWith(`${server.key}.${server.name}.`) && p.skippedServer === undefined);
  if (earlier) {
    earlier.skippedServer = server.name;
    return earlier;
  }
  const recorded = { field, problem, skippedServer: server.name };
  problems.push(recorded);
  return recorded;
}

/** Walks a dotted field name through the document, matching whole keys (a key may hold a dot). */
function pathIn(document: unknown, field: string): { found: true; parent: object; key: string } | { found: false } {
  let node = document;
  let rest = field;
  for (;;) {
    if (!isObject(node)) return { found: false };
    const key = Object.keys(node)
      .filter((k) => rest === k || rest.startsWith(`${k}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (key === undefined) return { found: false };
    if (rest === key) return { found: true, parent: node, key };
    node = node[key];
    rest = rest.slice(key.length + 1);
  }
}

function serverOf(document: unknown, field: string): { key: string; name: string; servers: Record<string, unknown> } | undefined {
  if (!isObject(document)) return undefined;
  for (const key of ["mcpServers", "servers"]) {
    const servers = document[key];
    if (!isObject(servers) || !field.startsWith(`${key}.`)) continue;
    const rest = field.slice(key.length + 1);
    const name = Object.keys(servers)
      .filter((n) => rest === n || rest.startsWith(`${n}.`) || rest.startsWith(`${n}[`))
      .sort((a, b) => b.length - a.length)[0];
    if (name !== undefined) return { key, name, servers };
  }
  return undefined;
}

function noServersLeft(document: unknown): boolean {
  if (!isObject(document)) return false;
  const servers = document.mcpServers ?? document.servers;
  return isObject(servers) && Object.keys(servers).length === 0;
}

/** VS Code keeps `mcp.json` in the workspace's `.vscode/`; other tools beside their files (as loadMcpConfig reads it). */
function workspaceOf(file: string): string {
  const dir = dirname(file);
  return basename(dir) === ".vscode" ? dirname(dir) : dir;
}

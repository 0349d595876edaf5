import { platform } from "../platform/index.js";
import { expandDeep, parseJsonc, readEnvFile, type ExpandContext } from "./expand.js";
import { isObject, nearest } from "./fields.js";
import { IGNORED_TOP_KEYS, mapServer } from "./formats.js";
import type { McpToolkitConfig } from "./schema.js";
import { McpConfigError, validateConfig } from "./validate.js";

/** Options for {@link loadMcpConfig}. */
export interface LoadMcpConfigOptions {
  /** Where `${VAR}` and `${env:VAR}` are looked up. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Receives what the file asks for that has no meaning here (a disabled server, the adapters'
   * `maxAttempts`, VS Code's `inputs`). The server still works without it.
   * @default process.emitWarning
   */
  onWarning?: (message: string) => void;
  /** `${workspaceFolder}` and relative `envFile` paths. @default the folder of the file (its parent, for a file in `.vscode/`) */
  workspaceFolder?: string;
}

/**
 * Reads a configuration file (or an object of the same shape) into an `McpToolkitConfig`:
 *
 * - Claude Desktop, Claude Code and Cursor: `{ "mcpServers": { name: { command, args, env } | { url, headers, type? } } }`
 * - VS Code: `{ "servers": { name: { "type": "stdio" | "http" | "sse", … } }, "inputs": [] }` (comments allowed)
 * - `@langchain/mcp-adapters`: `{ mcpServers: { name: { transport, …, restart | reconnect } }, prefixToolNameWithServerName, … }`
 * - ours: `{ servers: { name: { transport, … } } }`
 *
 * Our own options (`retry`, `breaker`, `timeoutMs`, `tools`, `errors`, …) may sit beside the
 * servers, and ours per server (`trustAnnotations`, `timeoutMs`, `fallback`, …) beside each
 * server's fields. `${VAR}`, `${env:VAR}` and `${VAR:-default}` are read from the environment.
 * Rejects with an `McpConfigError` naming the file, the server and the field: for a variable
 * that is not set, an unknown transport, or an unknown key (with the nearest known one).
 */
export async function loadMcpConfig(source: string | URL | Record<string, unknown>, options: LoadMcpConfigOptions = {}): Promise<McpToolkitConfig> {
  let label = "config";
  let folder = options.workspaceFolder ?? platform.cwd();
  let document: unknown = source;
  if (typeof source === "string" || source instanceof URL) {
    const files = platform.files;
    if (!files) throw new McpConfigError(String(source), "reading a configuration file needs Node (or Bun, Deno); here, pass loadMcpConfig the configuration object");
    const file = files.path(source);
    label = file;
    folder = options.workspaceFolder ?? files.workspaceOf(file);
    let text: string;
    try {
      text = await files.read(file);
    } catch (error) {
      throw new McpConfigError(label, `cannot read the file: ${(error as Error).message}`);
    }
    try {
      document = parseJsonc(text);
    } catch (error) {
      throw new McpConfigError(label, `not valid JSON: ${(error as Error).message}`);
    }
  }
  return fromDocument(document, label, folder, options);
}

function fromDocument(document: unknown, label: string, folder: string | undefined, options: LoadMcpConfigOptions): McpToolkitConfig {
  const fail: (field: string, problem: string) => never = (field, problem) => {
    throw new McpConfigError(`${label}: ${field}`, problem);
  };
  const warn = options.onWarning ?? ((message: string) => platform.warn(message, "McpConfigWarning"));
  if (!isObject(document)) fail("(top level)", "expected an object with `mcpServers` or `servers`");
  if (document.mcpServers !== undefined && document.servers !== undefined) fail("servers", "the file has both `mcpServers` and `servers`; keep one");
  const key = document.mcpServers !== undefined ? "mcpServers" : "servers";
  const entries = document[key];
  if (!isObject(entries)) {
    const misspelt = Object.keys(document).find((k) => nearest(k, ["mcpServers", "servers"]));
    if (misspelt) fail(misspelt, `unknown option; did you mean "${nearest(misspelt, ["mcpServers", "servers"])}"?`);
    fail(key, "expected an object of servers by name");
  }

  const context: ExpandContext = { env: options.env ?? platform.env(), workspaceFolder: folder };
  const readEnv = (file: string): Record<string, string> => {
    const files = platform.files;
    if (!files) throw new Error("reading a dotenv file needs Node (or Bun, Deno); put the variables in `env` here");
    return readEnvFile(files.readSync(files.path(file, folder)));
  };
  const servers: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(entries)) {
    const where = (field: string | (string | number)[]) => [key, name, ...(Array.isArray(field) ? field : field ? [field] : [])].map(String).join(".");
    const expanded = expandDeep(raw, context, (path, error) => fail(where(path), error.message));
    const { server, warnings } = mapServer(expanded, readEnv, (field, problem) => fail(where(field), problem));
    for (const warning of warnings) warn(`${label}: ${where("")}: ${warning}`);
    if (server) servers[name] = server;
  }

  const config: Record<string, unknown> = { servers };
  for (const [k, value] of Object.entries(document)) {
    if (k === key) continue;
    if (Object.hasOwn(IGNORED_TOP_KEYS, k)) {
      if (IGNORED_TOP_KEYS[k]) warn(`${label}: ${k}: ignored (${IGNORED_TOP_KEYS[k]})`);
    } else if (k === "prefixToolNameWithServerName") config.prefixToolNames = value;
    else if (k === "defaultToolTimeout") config.timeoutMs = value;
    else if (k === "throwOnLoadError") config.onConnectionError = value === false ? "skip" : "throw";
    else if (k === "onConnectionError" && value === "ignore") config.onConnectionError = "skip";
    else config[k] = value;
  }
  try {
    validateConfig(config);
  } catch (error) {
    // The schema speaks of `servers.<name>`; the file may call them `mcpServers`.
    if (error instanceof McpConfigError) fail(error.field.replace(/^servers(?=\.|$)/, key), error.message.slice(error.message.indexOf(`${error.field}: `) + error.field.length + 2));
    throw error;
  }
  return config;
}

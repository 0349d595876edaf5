/**
 * How the server entries of other tools' files map onto ours. Each fact is a table: the
 * transport names, the keys renamed, the keys that mean nothing to us (reported, never
 * dropped in silence). Any other key goes through to the schema, which names it.
 */
import { isObject, nearest } from "./fields.js";
import { SERVER_KEYS } from "./schema.js";

/** Every spelling of a transport we have met, and ours for it. */
export const TRANSPORTS: Readonly<Record<string, "stdio" | "http" | "sse">> = {
  stdio: "stdio",
  http: "http",
  "streamable-http": "http",
  streamableHttp: "http",
  streamable_http: "http",
  sse: "sse",
};

/**
 * Keys of other tools' server entries that have no meaning here, and why. They are reported
 * as warnings: the server still works, without that feature.
 */
export const IGNORED_SERVER_KEYS: Readonly<Record<string, string>> = {
  encoding: "the stdio encoding is always UTF-8 here",
  stderr: "stderr is always captured (its last lines go into errors)",
  outputHandling: "results are converted by the toolkit's own rules",
  autoApprove: "tool approval belongs to the agent, not the connection",
  alwaysAllow: "tool approval belongs to the agent, not the connection",
  dev: "VS Code's watch-and-debug mode has no counterpart here",
  gallery: "VS Code's gallery metadata is not used",
  version: "VS Code's gallery metadata is not used",
  description: "descriptions come from the server's tool list",
};

/** Top-level keys of other formats, and what they become here. */
export const IGNORED_TOP_KEYS: Readonly<Record<string, string>> = {
  inputs: "VS Code's prompts for inputs are not shown; use ${env:NAME} instead of ${input:…}",
  additionalToolNamePrefix: "only `prefixToolNames` (the server's name) is supported",
  useStandardContentBlocks: "results are converted by the toolkit's own rules",
  outputHandling: "results are converted by the toolkit's own rules",
  $schema: "",
};

/** What a server entry may hold: our keys, other formats' keys that are mapped, and the ignored ones. */
const ENTRY_KEYS: readonly string[] = [
  ...SERVER_KEYS,
  ...["type", "serverUrl", "disabled", "restart", "defaultToolTimeout", "envFile", "automaticSSEFallback"],
  ...Object.keys(IGNORED_SERVER_KEYS),
];

/** The result of mapping one server entry. */
export interface MappedServer {
  /** Our server config, not yet validated; undefined for a disabled server. */
  server: Record<string, unknown> | undefined;
  warnings: string[];
}

/**
 * One server entry of any format as ours: `type` or `transport` (or, without either, a
 * `command` means stdio and a `url` HTTP), the adapters' `restart`/`reconnect` objects as our
 * `reconnect`, `defaultToolTimeout` as `timeoutMs`, VS Code's `envFile` merged under `env`.
 * `fail(field, problem)` throws, naming the field within the entry.
 */
export function mapServer(entry: unknown, readEnv: (file: string) => Record<string, string>, fail: (field: string, problem: string) => never): MappedServer {
  if (!isObject(entry)) fail("", "expected an object describing the server");
  const warnings: string[] = [];
  if (entry.disabled === true) return { server: undefined, warnings: ["disabled: the server is skipped"] };
  // An SDK client you connected (our format, given as an object) has no transport to map.
  if ("client" in entry) return { server: entry, warnings };
  // Named before the keys are read: a misspelt `comand` would otherwise read as no command at all.
  for (const key of Object.keys(entry)) {
    const meant = ENTRY_KEYS.includes(key) ? undefined : nearest(key, ENTRY_KEYS);
    if (meant) fail(key, `unknown option; did you mean "${meant}"?`);
  }
  const out: Record<string, unknown> = {};
  const given = entry.transport ?? entry.type;
  const field = entry.transport !== undefined ? "transport" : "type";
  if (entry.transport !== undefined && entry.type !== undefined && entry.transport !== entry.type) fail("type", `says ${JSON.stringify(entry.type)} but transport says ${JSON.stringify(entry.transport)}`);
  const url = entry.url ?? entry.serverUrl;
  let transport: "stdio" | "http" | "sse";
  if (given === undefined) transport = entry.command !== undefined ? "stdio" : url !== undefined ? "http" : fail("", "expected a `command` (a local server) or a `url` (a remote one)");
  else if (typeof given === "string" && Object.hasOwn(TRANSPORTS, given)) transport = TRANSPORTS[given]!;
  else fail(field, `expected "stdio", "http", "streamable-http" or "sse", got ${JSON.stringify(given)}`);
  out.transport = transport;

  for (const [key, value] of Object.entries(entry)) {
    if (key === "type" || key === "transport" || key === "disabled") continue;
    if (key === "serverUrl") out.url = value;
    else if (key === "restart" || (key === "reconnect" && isObject(value) && ("maxAttempts" in value || "delayMs" in value))) {
      out.reconnect = mapReconnect(value, key, warnings, fail);
    } else if (key === "defaultToolTimeout") out.timeoutMs = value;
    else if (key === "envFile") out.env = { ...readEnvFileOrFail(value, readEnv, fail), ...(isObject(entry.env) ? entry.env : {}) };
    else if (key === "env" && out.env !== undefined) continue;
    else if (key === "automaticSSEFallback") {
      if (value === false) warnings.push("automaticSSEFallback: false is not supported; an HTTP server that answers 400, 404 or 405 is tried over SSE");
    } else if (Object.hasOwn(IGNORED_SERVER_KEYS, key)) warnings.push(`${key}: ignored (${IGNORED_SERVER_KEYS[key]})`);
    else out[key] = value;
  }
  return { server: out, warnings };
}

/** The adapters' `{ enabled, maxAttempts, delayMs }` as our `{ enabled, minDelayMs }`. */
function mapReconnect(value: unknown, key: string, warnings: string[], fail: (field: string, problem: string) => never): Record<string, unknown> {
  if (!isObject(value)) fail(key, "expected an object such as { enabled: true, delayMs: 1000 }");
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "delayMs") out.minDelayMs = v;
    else if (k === "maxAttempts") warnings.push(`${key}.maxAttempts: ignored (reconnection is retried before each call, with backoff up to reconnect.maxDelayMs)`);
    else out[k] = v;
  }
  return out;
}

function readEnvFileOrFail(file: unknown, readEnv: (file: string) => Record<string, string>, fail: (field: string, problem: string) => never): Record<string, string> {
  if (typeof file !== "string") fail("envFile", "expected the path of a dotenv file");
  try {
    return readEnv(file);
  } catch (error) {
    return fail("envFile", `cannot read ${file}: ${(error as Error).message}`);
  }
}

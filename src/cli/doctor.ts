import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_CLIENT_INFO, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import { loadMcpConfig, type LoadMcpConfigOptions } from "../config/load.js";
import { collectSecrets } from "../config/secrets.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { Reason } from "../errors/reasons.js";
import { hintFor, safeMessage, type ModelTextOptions } from "../errors/text.js";
import { Connection } from "../mcp/Connection.js";

/** What doctor found out about one server. */
export interface ServerDiagnosis {
  name: string;
  transport: "stdio" | "http" | "sse" | "client";
  /** The command line or the URL, secrets redacted. */
  target: string;
  ok: boolean;
  /** How long connecting took (or failing to), ms. */
  connectMs: number;
  /** The protocol version the server and the client agreed on. */
  protocolVersion?: string;
  server?: { name: string; version: string };
  tools?: {
    count: number;
    readOnly: string[];
    idempotent: string[];
    /** Does the configuration trust these annotations (`trustAnnotations`)? Untrusted, retries ignore them. */
    annotationsTrusted: boolean;
  };
  error?: {
    reason: Reason;
    kind: McpToolError["kind"];
    transient: boolean;
    /** The message the model would read, cleaned and redacted. */
    message: string;
    /** The hint the model would read after it. */
    hint: string;
    /** What a person can do about it. */
    remedy: string;
  };
}

export interface DoctorReport {
  source: string;
  ok: boolean;
  servers: ServerDiagnosis[];
  /** What the configuration asks for that has no meaning here. */
  warnings: string[];
}

/** Options for {@link runDoctor}. */
export interface DoctorOptions extends Pick<LoadMcpConfigOptions, "env"> {
  /** How long each server may take to connect, unless its configuration says. @default 10000 */
  connectTimeoutMs?: number;
}

/** What a person can do about a server that fails to connect, by reason. */
const REMEDIES: Partial<Record<Reason, string>> = {
  spawn_failed: "Install the command, or give its absolute path: the agent's PATH may differ from your shell's.",
  connection_closed: "The process started and exited: run the command yourself to read its error.",
  connection_refused: "Nothing listens there: start the server, or correct the host and port.",
  dns_failure: "Check the host name in the URL.",
  network_timeout: "The server did not answer in time: check that it is up, or raise connectTimeoutMs.",
  tls_error: "The certificate is not trusted: point NODE_EXTRA_CA_CERTS at its CA file, or correct the URL (https vs http).",
  unauthorized: "Check the credentials in `headers` (or the environment variable they come from).",
  forbidden: "The credentials lack a permission or scope: ask for the one the message names.",
  unexpected_response: "Something answered, but not an MCP server: check the URL's path (often /mcp) and any proxy in front.",
  http_error: "The server rejected the request: check the URL's path and the transport (`http` or `sse`).",
  service_unavailable: "The server is up but unavailable: try again later.",
};

/** Connects to every server in a configuration file (any format `loadMcpConfig` reads), makes no tool call, and reports. */
export async function runDoctor(source: string | McpToolkitConfig, options: DoctorOptions = {}): Promise<DoctorReport> {
  const warnings: string[] = [];
  const config = typeof source === "string" ? await loadMcpConfig(source, { ...(options.env ? { env: options.env } : {}), onWarning: (w) => warnings.push(w) }) : source;
  const secrets = collectSecrets(config);
  const text: ModelTextOptions = { secrets: secrets.secrets, words: secrets.words, ...(config.errors?.redact ? { patterns: config.errors.redact } : {}) };
  const servers = await Promise.all(Object.entries(config.servers).map(([name, server]) => diagnose(name, server, config, text, options.connectTimeoutMs ?? 10_000)));
  return { source: typeof source === "string" ? source : "config", ok: servers.every((s) => s.ok), servers, warnings };
}

async function diagnose(name: string, server: ServerConfig, config: McpToolkitConfig, text: ModelTextOptions, connectTimeoutMs: number): Promise<ServerDiagnosis> {
  const transport = "client" in server ? "client" : server.transport;
  const target = safeMessage(targetOf(server), { ...text, maxLength: 200 });
  const connection = new Connection(name, { connectTimeoutMs, ...server }, config.clientInfo ?? DEFAULT_CLIENT_INFO);
  const started = performance.now();
  try {
    const lease = await connection.lease();
    const connectMs = Math.round(performance.now() - started);
    const version = connection.protocolVersion;
    const info = lease.client.getServerVersion();
    return {
      name,
      transport,
      target,
      ok: true,
      connectMs,
      ...(version ? { protocolVersion: version } : {}),
      ...(info ? { server: { name: info.name, version: info.version } } : {}),
      tools: toolsOf(connection.tools, server.trustAnnotations === true),
    };
  } catch (thrown) {
    const error = normalize(thrown, { serverName: name });
    return {
      name,
      transport,
      target,
      ok: false,
      connectMs: Math.round(performance.now() - started),
      error: {
        reason: error.reason,
        kind: error.kind,
        transient: error.transient,
        message: safeMessage(error.message, text),
        hint: hintFor(error),
        remedy: REMEDIES[error.reason] ?? hintFor(error),
      },
    };
  } finally {
    await connection.close();
  }
}

function targetOf(server: ServerConfig): string {
  if ("client" in server) return "a connected client";
  if (server.transport === "stdio") return [server.command, ...(server.args ?? [])].join(" ");
  return String(server.url);
}

function toolsOf(tools: Tool[], trusted: boolean): NonNullable<ServerDiagnosis["tools"]> {
  const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
  const idempotent = tools.filter((t) => t.annotations?.idempotentHint === true && t.annotations.readOnlyHint !== true).map((t) => t.name);
  return { count: tools.length, readOnly, idempotent, annotationsTrusted: trusted };
}

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_CLIENT_INFO, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import type { LoadMcpConfigOptions } from "../config/load.js";
import { redactionOf } from "../config/secrets.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { Reason } from "../errors/reasons.js";
import { Redactor } from "../errors/redactor.js";
import { hintFor, safeMessage } from "../errors/text.js";
import { Connection } from "../mcp/session/Connection.js";
import { nodeOnly } from "../nodeOnly/index.js";
import { unmatchedNames } from "../langchain/unmatchedNames.js";
import { loadLeniently, type ConfigProblem } from "./lenientLoad.js";
import { remedyFor } from "./remedies.js";

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
  /** The file's mistakes (a misspelt key), each with its field; doctor checks every server it can despite them. */
  problems: ConfigProblem[];
}

/** Options for {@link runDoctor}. */
export interface DoctorOptions extends Pick<LoadMcpConfigOptions, "env"> {
  /** How long each server may take to connect, unless its entry sets `connectTimeoutMs`. @default 10000 */
  connectTimeoutMs?: number;
}

/** How long each server may take to connect when neither doctor's caller nor its entry says. */
export const DEFAULT_DOCTOR_TIMEOUT_MS = 10_000;

/** Connects to every server in a configuration file (any format `loadMcpConfig` reads), makes no tool call, and reports. */
export async function runDoctor(source: string | McpToolkitConfig, options: DoctorOptions = {}): Promise<DoctorReport> {
  const warnings: string[] = [];
  const { config, problems } = typeof source === "string" ? await loadLeniently(source, { ...(options.env ? { env: options.env } : {}), onWarning: (w) => warnings.push(w) }) : { config: source, problems: [] };
  // The toolkit's one redaction, made from the configuration as the toolkit makes it.
  const redactor = new Redactor(redactionOf(config));
  const listed = new Map<string, Tool[]>();
  const servers = await Promise.all(Object.entries(config.servers).map(([name, server]) => diagnose(name, server, config, redactor, options.connectTimeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS, listed)));
  // Tool names that name no tool the servers listed, as the toolkit warns of them at connect.
  for (const { field, message } of unmatchedNames(config, listed)) warnings.push(redactor.text(`${field}: ${message}`));
  // A configuration mistake's text leaves through the same redaction.
  const told = problems.map((p) => ({ ...p, problem: redactor.text(p.problem) }));
  return { source: typeof source === "string" ? source : "config", ok: problems.length === 0 && servers.every((s) => s.ok), servers, warnings, problems: told };
}

async function diagnose(name: string, server: ServerConfig, config: McpToolkitConfig, redactor: Redactor, defaultTimeoutMs: number, listed: Map<string, Tool[]>): Promise<ServerDiagnosis> {
  const transport = "client" in server ? "client" : server.transport;
  const text = redactor.options;
  const target = safeMessage(targetOf(server), { ...text, maxLength: 200 });
  const connectTimeoutMs = server.connectTimeoutMs ?? defaultTimeoutMs;
  const connection = new Connection(name, { ...server, connectTimeoutMs }, config.clientInfo ?? DEFAULT_CLIENT_INFO, undefined, nodeOnly);
  const started = performance.now();
  // A timed-out connect rejects only once what it started has stopped (a stdio process gets
  // seconds to exit): the time reported is the connect's own, which ended at its deadline.
  let deadlineAt: number | undefined;
  const deadline = setTimeout(() => (deadlineAt = performance.now()), connectTimeoutMs);
  try {
    const lease = await connection.lease();
    const connectMs = Math.round(performance.now() - started);
    const version = connection.protocolVersion;
    const info = lease.client.getServerVersion();
    listed.set(name, connection.tools);
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
    // The one redaction every error gets on its way out of the library.
    const error = redactor.error(normalize(thrown, { serverName: name }));
    const ended = error.reason === "network_timeout" && deadlineAt !== undefined ? deadlineAt : performance.now();
    return {
      name,
      transport,
      target,
      ok: false,
      connectMs: Math.round(ended - started),
      error: {
        reason: error.reason,
        kind: error.kind,
        transient: error.transient,
        message: error.message,
        hint: hintFor(error),
        remedy: remedyFor(error.reason, { transport, target, connectTimeoutMs, data: error.data, ...("command" in server ? { program: safeMessage(server.command, { ...text, maxLength: 100 }) } : {}) }),
      },
    };
  } finally {
    clearTimeout(deadline);
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

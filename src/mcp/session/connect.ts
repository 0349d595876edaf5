/**
 * Opening a server's transport: the right one for its config (streamable HTTP falling back to
 * the older SSE transport), in the protocol era its config asks for, closed again if connecting
 * fails, and the whole connect bounded by a timeout that stops what it opened before it rejects.
 */
import { Client, SdkHttpError, type PriorDiscovery, type Transport } from "@modelcontextprotocol/client";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpConfigError, type EraSetting, type ServerConfig, type StdioServerConfig } from "../../config/index.js";
import { TransportFallbackError } from "../../errors/classify/fallback.js";
import { jsonRpcErrorIn } from "../../errors/classify/http.js";
import type { InputHandler } from "../../config/input.js";
import { answerRequests, inputCapabilities } from "../call/input.js";
import { McpToolError } from "../../errors/McpToolError.js";
import { withDeadline } from "../../policy/abort.js";
import type { ClientRequests } from "../call/ClientRequests.js";
import { sseTransport, streamableTransport, type StderrTail, type TransportProbe } from "../transport/transports.js";
import type { NodeTransports } from "../transport/nodeTransports.js";

/** Set when a connect ran out of time, so the attempt still running installs nothing. */
export interface ConnectAttempt {
  abandoned: boolean;
  /** The requests of the client this attempt opens (set by the source that opens one): why a failed connect failed. */
  requests?: ClientRequests;
}

/** The transport a connect is opening, so that a timeout can close it. */
export interface PendingTransport {
  transport?: Transport;
}

/**
 * Bounds a connect: the SDK's initialize can wait forever on a pipe that broke mid-handshake.
 * A connect that runs out of time, or whose `signal` aborts (the toolkit closing), has stopped
 * what it started (`stop`: a process, a socket) before it rejects, so a caller that gives up
 * and exits leaves no orphan behind.
 */
export async function withConnectTimeout<T>(
  ms: number,
  serverName: string,
  signal: AbortSignal | undefined,
  connect: (attempt: ConnectAttempt) => Promise<T>,
  stop: () => Promise<unknown>,
): Promise<T> {
  const attempt: ConnectAttempt = { abandoned: false };
  let expired = false;
  const timedOut = () => {
    expired = true;
    return McpToolError.of("network_timeout", `Connecting to server '${serverName}' took longer than ${ms} ms.`, { serverName });
  };
  try {
    return await withDeadline(ms, signal, () => connect(attempt), timedOut);
  } catch (error) {
    // Ended from outside (the deadline, the close): the attempt still running installs nothing.
    if (expired || signal?.aborted) {
      attempt.abandoned = true;
      await stop();
    }
    throw error;
  }
}

/**
 * How a connect chooses the era: `auto` probes with `server/discover` and falls back to
 * `initialize`; `legacy` runs `initialize` only; `modern` requires 2026-07-28. A `prior`
 * verdict (the era learnt by the last connect) skips the probe.
 */
export interface EraChoice {
  era: EraSetting;
  prior?: PriorDiscovery;
}

/**
 * Builds the toolkit's client for one connect, negotiating as `choice` says, declaring and
 * answering the input requests `input` handles.
 */
export function newClient(
  clientInfo: { name: string; version: string },
  choice: EraChoice,
  probeTimeoutMs: number,
  input?: { handler: InputHandler | undefined; serverName: string },
): Client {
  const mode = choice.era === "modern" ? { pin: MODERN_VERSION } : choice.era;
  const client: Client = new Client(clientInfo, {
    capabilities: inputCapabilities(input?.handler),
    ...(mode === "legacy" ? {} : { versionNegotiation: { mode, probe: { timeoutMs: probeTimeoutMs } } }),
  });
  if (input) answerRequests(client, input.handler, input.serverName);
  return client;
}

/** The revision `era: "modern"` pins. */
export const MODERN_VERSION = "2026-07-28";

/** Connects `client` over the transport `config` names; on failure nothing is left open. */
export async function connectTransport(
  client: Client,
  config: Exclude<ServerConfig, { client: unknown }>,
  probe: TransportProbe,
  stderr: StderrTail,
  stdio: NodeTransports["stdioTransport"],
  pending: PendingTransport,
  choice: EraChoice,
  newLegacyClient: () => Client,
): Promise<{ client: Client; transport: Transport }> {
  const prior = choice.prior ? { prior: choice.prior } : {};
  if (config.transport === "stdio") return { client, transport: await connectOrClose(client, stdioOf(stdio, config, probe, stderr), pending, prior) };
  if (config.transport === "sse") {
    const legacy = newLegacyClient();
    return { client: legacy, transport: await connectOrClose(legacy, sseTransport(config, probe), pending, {}) };
  }
  try {
    return { client, transport: await connectOrClose(client, streamableTransport(config, probe), pending, prior) };
  } catch (error) {
    // Servers that only speak the older SSE transport answer a streamable POST with 4xx. One that
    // answers with a JSON-RPC error (a modern-only endpoint's -32022) speaks MCP here: no fallback.
    const status = httpStatusOf(error);
    if (status === undefined || ![400, 404, 405].includes(status)) throw error;
    if (jsonRpcErrorIn(messageOf(error).replace(/^(Streamable HTTP error: )?Error POSTing to endpoint:\s*/, ""))) throw error;
    // The SSE transport belongs to the 2025 era: its client never probes.
    const legacy = newLegacyClient();
    try {
      return { client: legacy, transport: await connectOrClose(legacy, sseTransport(config, probe), pending, {}) };
    } catch (fallback) {
      // Both failures are kept: the first (a 404) may say the path is wrong, the second why SSE did not work either.
      throw new TransportFallbackError(error, fallback);
    }
  }
}

/** The HTTP status a streamable transport's error carries: v1's `code`, v2's `data.status`. */
function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError) return error.code;
  if (error instanceof SdkHttpError) {
    const status = (error.data as { status?: unknown } | undefined)?.status;
    return typeof status === "number" ? status : undefined;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Connects, and on failure closes the transport so no process or socket is left behind. */
async function connectOrClose(client: Client, transport: Transport, pending: PendingTransport, options: { prior?: PriorDiscovery }): Promise<Transport> {
  pending.transport = transport;
  try {
    await client.connect(transport, options);
    return transport;
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  } finally {
    pending.transport = undefined;
  }
}

/** A stdio server's transport, where the runtime can start one (nodeOnly/runtimeCheck.ts refuses it earlier elsewhere). */
function stdioOf(open: NodeTransports["stdioTransport"], config: StdioServerConfig, probe: TransportProbe, stderr: StderrTail): Transport {
  if (!open) throw new McpConfigError("command", "stdio servers start a process, which needs Node (or Bun, Deno): reach this server over HTTP here");
  return open(config, probe, stderr);
}

/**
 * Opening a server's transport: the right one for its config (streamable HTTP falling back to
 * the older SSE transport), closed again if connecting fails, and the whole connect bounded by
 * a timeout that stops what it opened before it rejects.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerConfig } from "../config/index.js";
import { jsonRpcErrorIn } from "../errors/classify/http.js";
import { McpToolError } from "../errors/McpToolError.js";
import { sseTransport, stdioTransport, streamableTransport, type StderrTail, type TransportProbe } from "./transports.js";

/** Set when a connect ran out of time, so the attempt still running installs nothing. */
export interface ConnectAttempt {
  abandoned: boolean;
}

/** The transport a connect is opening, so that a timeout can close it. */
export interface PendingTransport {
  transport?: Transport;
}

/**
 * Bounds a connect: the SDK's initialize can wait forever on a pipe that broke mid-handshake.
 * A connect that runs out of time has stopped what it started (`stop`: a process, a socket)
 * before it rejects, so a caller that gives up and exits leaves no orphan behind.
 */
export async function withConnectTimeout<T>(ms: number, serverName: string, connect: (attempt: ConnectAttempt) => Promise<T>, stop: () => Promise<unknown>): Promise<T> {
  const attempt: ConnectAttempt = { abandoned: false };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      attempt.abandoned = true;
      const error = McpToolError.of("network_timeout", `Connecting to server '${serverName}' took longer than ${ms} ms.`, { serverName });
      void stop().then(() => reject(error));
    }, ms);
  });
  // Once abandoned, the attempt's own end (the transport we closed under it) is not the news: the timeout is.
  const running = connect(attempt).catch((error: unknown) => (attempt.abandoned ? expired : Promise.reject(error)));
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connects `client` over the transport `config` names; on failure nothing is left open. */
export async function connectTransport(
  client: Client,
  config: Exclude<ServerConfig, { client: unknown }>,
  probe: TransportProbe,
  stderr: StderrTail,
  pending: PendingTransport,
): Promise<Transport> {
  if (config.transport === "stdio") return connectOrClose(client, stdioTransport(config, probe, stderr), pending);
  if (config.transport === "sse") return connectOrClose(client, sseTransport(config, probe), pending);
  try {
    return await connectOrClose(client, streamableTransport(config, probe), pending);
  } catch (error) {
    // Servers that only speak the older SSE transport answer a streamable POST with 4xx. One that
    // answers with a JSON-RPC error (a modern-only endpoint's -32022) speaks MCP here: no fallback.
    if (!(error instanceof StreamableHTTPError) || ![400, 404, 405].includes(error.code ?? 0)) throw error;
    if (jsonRpcErrorIn(error.message.replace(/^Streamable HTTP error: Error POSTing to endpoint:\s*/, ""))) throw error;
    return connectOrClose(client, sseTransport(config, probe), pending);
  }
}

/** Connects, and on failure closes the transport so no process or socket is left behind. */
async function connectOrClose(client: Client, transport: Transport, pending: PendingTransport): Promise<Transport> {
  pending.transport = transport;
  try {
    await client.connect(transport);
    return transport;
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  } finally {
    pending.transport = undefined;
  }
}

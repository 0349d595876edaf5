import type { Attributes } from "@opentelemetry/api";
import { SEMCONV } from "./attributes.js";

/** What telemetry reads of a server's connection (the toolkit's `Connection` has these). */
export interface ConnectionView {
  readonly sessionId?: string | undefined;
  /** The server's URL, for HTTP servers. */
  readonly url?: string | undefined;
  /** False only for a pipe (stdio): there a break loses the whole connection. */
  readonly breaksArePerRequest: boolean;
}

/**
 * The protocol version the server and client agreed on. The SDK keeps it on HTTP transports
 * only (`transport.protocolVersion`); a connection that exposes `protocolVersion` itself is
 * read first, so stdio gains it as soon as the connection records it.
 */
export function negotiatedVersion(connection: ConnectionView): string | undefined {
  const own = (connection as { protocolVersion?: unknown }).protocolVersion;
  if (typeof own === "string") return own;
  // The connection keeps its live transport in a field of that name (pinned by the telemetry test).
  const version = (connection as { transport?: { protocolVersion?: unknown } }).transport?.protocolVersion;
  return typeof version === "string" ? version : undefined;
}

/** `mcp.session.id`, `mcp.protocol.version`, `network.*` and `server.*` for a connection. */
export function serverAttributes(connection: ConnectionView | undefined): Attributes {
  if (!connection) return {};
  const out: Attributes = {};
  const session = connection.sessionId;
  if (session) out[SEMCONV.MCP_SESSION_ID] = session;
  const version = negotiatedVersion(connection);
  if (version) out[SEMCONV.MCP_PROTOCOL_VERSION] = version;
  const url = connection.url;
  if (url) {
    // The conventions: `tcp` for HTTP, `pipe` for stdio.
    out[SEMCONV.NETWORK_TRANSPORT] = "tcp";
    out[SEMCONV.NETWORK_PROTOCOL_NAME] = "http";
    try {
      const parsed = new URL(url);
      out[SEMCONV.SERVER_ADDRESS] = parsed.hostname.replace(/^\[|\]$/g, "");
      out[SEMCONV.SERVER_PORT] = Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
    } catch {
      // A URL the connection accepted always parses; nothing to add if it somehow does not.
    }
  } else if (!connection.breaksArePerRequest) {
    out[SEMCONV.NETWORK_TRANSPORT] = "pipe";
  }
  return out;
}

/**
 * The two SDK lines' clients behind one small surface. The toolkit's own connections use the v2
 * client (`@modelcontextprotocol/client`); a user may hand us a client of either line, and most
 * of the difference is one argument: v1's `callTool(params, resultSchema, options)` against
 * v2's `callTool(params, options)`.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyClient, ProtocolEra } from "../../config/clients.js";

// Named by the `client` option, so the configuration holds them; the rest of mcp/ reads them here.
export type { AnyClient, ProtocolEra };

/** One `notifications/progress` of a call (or of the task that runs it). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool call passes to the SDK besides its params. */
export interface CallOptions {
  signal?: AbortSignal;
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  onprogress?: (progress: unknown) => void;
  /** Passed to the transport's `send` as given; marks the call's requests (see requestScope). */
  onresumptiontoken?: (token: string) => void;
  /** v2, 2026-07-28: hand an `input_required` answer back instead of fulfilling it inside the SDK. */
  allowInputRequired?: boolean;
  /** v2: the tool's definition, for a client that never listed it (its output check and header mirroring). */
  toolDefinition?: Tool;
  /** v2: HTTP headers for this request alone (a `beforeToolCall`'s), sent by the transport with its POST. */
  headers?: Record<string, string>;
}

/** Is this a v2 client? Read by shape, so a second bundled copy of either SDK is recognised too. */
export function isV2Client(client: AnyClient): client is V2Client {
  return typeof (client as Partial<V2Client>).getProtocolEra === "function";
}

/** A tools/call's params: the tool, its arguments, and (2026-07-28) the answers to the server's input requests. */
export type CallParams = { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } & Record<string, unknown>;

export function callToolWith(client: AnyClient, params: CallParams, options: CallOptions): Promise<CallToolResult> {
  if (isV2Client(client)) return client.callTool(params, options as Parameters<V2Client["callTool"]>[1]) as Promise<CallToolResult>;
  return client.callTool(params, undefined, options) as Promise<CallToolResult>;
}

/** The era the client negotiated; a v1 client only speaks the 2025 revisions. */
export function eraOf(client: AnyClient): ProtocolEra | undefined {
  return isV2Client(client) ? client.getProtocolEra() : "legacy";
}

/** The protocol version the client and server agreed on. */
export function protocolVersionOf(client: AnyClient): string | undefined {
  if (isV2Client(client)) return client.getNegotiatedProtocolVersion();
  // v1 keeps it only on transports that take it (HTTP); its stdio transport drops it.
  const version = (client.transport as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return typeof version === "string" ? version : undefined;
}

export function transportOf(client: AnyClient): Transport | undefined {
  return client.transport as Transport | undefined;
}

/** A stdio transport of either SDK line (read as the v2 SDK reads it: it has a stderr and a pid). */
export function isStdioTransport(transport: unknown): boolean {
  return typeof transport === "object" && transport !== null && "stderr" in transport && "pid" in transport;
}

/** Every tool the server lists, across pages. */
export async function listAllTools(client: AnyClient): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  // v2 walks the pages itself (bounded) and keeps the list for its output-schema checks.
  if (isV2Client(client)) return (await client.listTools()).tools as Tool[];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

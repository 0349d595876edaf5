/**
 * The catalog's format: a server's tool list as plain JSON that outlives the connection that read
 * it, as `toolkit.catalog()` exports it, `McpToolkit.connect({ catalog })` takes it and a fleet
 * shares it on Redis (fleet/catalogStore.ts). How a connection reads and uses a listing is
 * mcp/session/catalogCache.ts's; what the data is, and when a value is one, is this file's.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { isObject } from "./fields.js";
import type { ProtocolEra } from "./clients.js";
import type { ServerConfig } from "./servers.js";

/** The catalog format this version writes and reads. A catalog in another is ignored (the servers are listed). */
export const CATALOG_VERSION = 1;

/** One server's tools as `toolkit.catalog()` exports them. */
export interface ServerCatalog {
  /** The tools, as the server listed them. */
  tools: Tool[];
  /** When they were listed, in milliseconds since the epoch (the request's start). */
  listedAt: number;
  /**
   * How long the list holds from `listedAt`, in milliseconds: the server's `ttlMs` (2026-07-28),
   * or the server config's `catalogTtlMs` when the result carries none; at most 24 hours. 0: the
   * entry is stale at once and a toolkit given it lists the server as usual.
   */
  ttlMs: number;
  /** Did the server give `ttlMs` itself (2026-07-28), rather than the config's `catalogTtlMs` standing in? */
  ttlFromServer?: boolean;
  /** The result's `cacheScope`; `"private"` when it says none. A private list is kept for one set of credentials. */
  cacheScope: "public" | "private";
  /** The protocol version the listing connection spoke. */
  protocolVersion?: string;
  /** The era it spoke: a toolkit started from the entry connects in it without probing. */
  era?: ProtocolEra;
  /** The 2026-07-28 `server/discover` result: a connect from it sends no request of its own. */
  discover?: Record<string, unknown>;
  /**
   * A digest of how the toolkit reached the server (transport, URL or command, headers, env): an
   * entry is used only by a server config with the same digest. Never a secret itself, nor a fast
   * hash of one: scrypt's (mcp/serverIdentity.ts), so a dictionary cannot cheaply recover a
   * password from an exported catalog.
   */
  identity: string;
}

/** Every server's tools, as `toolkit.catalog()` exports them and `McpToolkit.connect({ catalog })` takes them. */
export interface ToolkitCatalog {
  /** The format; see `CATALOG_VERSION`. */
  version: number;
  /** By server name. */
  servers: Record<string, ServerCatalog>;
}

/** Where a fleet keeps each server's catalog entry (fleet/catalogStore.ts); never rejects. */
export interface SharedCatalogs {
  /** The entry Redis holds for the server, with its remaining ttl as Redis counts it; undefined when none or Redis is away. */
  read(name: string, server: ServerConfig): Promise<ServerCatalog | undefined>;
  /** Keeps the entry for its remaining ttl; one that ran out removes the key. Not awaited by anyone. */
  write(name: string, server: ServerConfig, entry: ServerCatalog, remainingMs: number): void;
}

/** `value` as a catalog entry, or undefined when it is not one (hand-edited, or another format). */
export function asServerCatalog(value: unknown): ServerCatalog | undefined {
  if (!isObject(value)) return undefined;
  const { tools, listedAt, ttlMs, cacheScope, protocolVersion, era, discover, identity } = value;
  if (!Array.isArray(tools) || !tools.every((t) => isObject(t) && typeof t.name === "string")) return undefined;
  if (!Number.isFinite(listedAt) || !Number.isFinite(ttlMs) || typeof identity !== "string") return undefined;
  if (cacheScope !== "public" && cacheScope !== "private") return undefined;
  if (protocolVersion !== undefined && typeof protocolVersion !== "string") return undefined;
  if (era !== undefined && era !== "modern" && era !== "legacy") return undefined;
  if (discover !== undefined && !isObject(discover)) return undefined;
  return value as unknown as ServerCatalog;
}

/** The entries of a catalog in this format; none for anything else. */
export function catalogEntries(catalog: unknown): Record<string, unknown> {
  if (!isObject(catalog) || catalog.version !== CATALOG_VERSION || !isObject(catalog.servers)) return {};
  return catalog.servers;
}

/**
 * A server's tool list as data that outlives the connection that read it: when it was listed,
 * how long it holds (the 2026-07-28 result's `ttlMs`, else the server's `catalogTtlMs`), who
 * may share it (`cacheScope`) and the protocol era learnt on the way. A toolkit can start from
 * it without listing (langchain/catalog.ts), and a fleet can share it on Redis
 * (fleet/catalogStore.ts). Everything here is plain JSON, so it survives a file or a key.
 */
import { MAX_CACHE_TTL_MS, type DiscoverResult, type PriorDiscovery } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { EraSetting } from "../../config/index.js";
import { eraOf, isV2Client, listAllTools, protocolVersionOf, type AnyClient, type ProtocolEra } from "./clients.js";

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

/** A listing as a connection keeps it: a catalog entry without the identity, which the config gives. */
export type Listing = Omit<ServerCatalog, "identity">;

/**
 * Lists the server's tools, with how long the list holds. `fallbackTtlMs` applies when the
 * result carries no `ttlMs` (the 2025 revisions). The v2 client is told to fetch: whether a
 * list still holds is decided here, and the SDK's own cache would answer a relist after a
 * `tool_not_found` with the very list that was stale.
 */
export async function readListing(client: AnyClient, fallbackTtlMs: number): Promise<Listing> {
  const listedAt = Date.now();
  const facts = { listedAt, ...eraFacts(client) };
  if (!isV2Client(client) || !client.getServerCapabilities()?.tools) return { tools: await listAllTools(client), ttlMs: boundedTtl(fallbackTtlMs), cacheScope: "private", ...facts };
  const result = await client.listTools(undefined, { cacheMode: "refresh" });
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  return {
    tools: result.tools as Tool[],
    ttlMs: boundedTtl(typeof ttlMs === "number" ? ttlMs : fallbackTtlMs),
    ...(typeof ttlMs === "number" ? { ttlFromServer: true } : {}),
    cacheScope: cacheScope === "public" ? "public" : "private",
    ...facts,
  };
}

/** How much longer a listing holds, in ms; 0 once stale. A `listedAt` in the future never lengthens it. */
export function remainingMs(listing: Listing, now = Date.now()): number {
  return Math.max(0, Math.min(listing.ttlMs, listing.listedAt + listing.ttlMs - now));
}

/**
 * The era verdict a connect may start from, when it agrees with the server's `era` setting:
 * a 2026-07-28 entry with its discover result connects with no request; a 2025 one skips the
 * `server/discover` probe. A server that changed since answers -32022, and the connection
 * renegotiates once, as after any upgrade under it.
 */
export function priorFor(listing: Listing, setting: EraSetting): PriorDiscovery | undefined {
  if (listing.era === "modern" && listing.discover && setting !== "legacy") return { kind: "modern", discover: listing.discover as unknown as DiscoverResult };
  if (listing.era === "legacy" && setting !== "modern") return { kind: "legacy" };
  return undefined;
}

/** `value` as a catalog entry, or undefined when it is not one (hand-edited, or another format). */
export function asServerCatalog(value: unknown): ServerCatalog | undefined {
  if (!isRecord(value)) return undefined;
  const { tools, listedAt, ttlMs, cacheScope, protocolVersion, era, discover, identity } = value;
  if (!Array.isArray(tools) || !tools.every((t) => isRecord(t) && typeof t.name === "string")) return undefined;
  if (!Number.isFinite(listedAt) || !Number.isFinite(ttlMs) || typeof identity !== "string") return undefined;
  if (cacheScope !== "public" && cacheScope !== "private") return undefined;
  if (protocolVersion !== undefined && typeof protocolVersion !== "string") return undefined;
  if (era !== undefined && era !== "modern" && era !== "legacy") return undefined;
  if (discover !== undefined && !isRecord(discover)) return undefined;
  return value as unknown as ServerCatalog;
}

/** The entries of a catalog in this format; none for anything else. */
export function catalogEntries(catalog: unknown): Record<string, unknown> {
  if (!isRecord(catalog) || catalog.version !== CATALOG_VERSION || !isRecord(catalog.servers)) return {};
  return catalog.servers;
}

function eraFacts(client: AnyClient): Pick<Listing, "protocolVersion" | "era" | "discover"> {
  const protocolVersion = protocolVersionOf(client);
  const era = eraOf(client);
  const discover = isV2Client(client) && era === "modern" ? client.getDiscoverResult() : undefined;
  return {
    ...(protocolVersion ? { protocolVersion } : {}),
    ...(era ? { era } : {}),
    ...(discover ? { discover: JSON.parse(JSON.stringify(discover)) as Record<string, unknown> } : {}),
  };
}

/** A server cannot pin a list for longer than the SDK's own cache honours (24 h), nor below 0. */
function boundedTtl(ms: number): number {
  return Number.isFinite(ms) ? Math.min(MAX_CACHE_TTL_MS, Math.max(0, Math.floor(ms))) : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

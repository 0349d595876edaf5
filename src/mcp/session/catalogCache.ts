/**
 * A server's tool list as data that outlives the connection that read it: when it was listed,
 * how long it holds (the 2026-07-28 result's `ttlMs`, else the server's `catalogTtlMs`), who
 * may share it (`cacheScope`) and the protocol era learnt on the way. A toolkit can start from
 * it without listing (langchain/catalog.ts), and a fleet can share it on Redis
 * (fleet/catalogStore.ts). Its format, plain JSON that survives a file or a key, is
 * config/catalog.ts's; reading one from a client, and starting a connect from it, is here.
 */
import { MAX_CACHE_TTL_MS, type DiscoverResult, type PriorDiscovery } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ServerCatalog } from "../../config/catalog.js";
import type { EraSetting } from "../../config/index.js";
import { eraOf, isV2Client, listAllTools, protocolVersionOf, type AnyClient } from "./clients.js";

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

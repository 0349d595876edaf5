/**
 * A toolkit's tool catalog: exported as plain data (`toolkit.catalog()`), taken at connect
 * (`McpToolkit.connect({ catalog })`) or from the fleet's Redis (`sharedState`), and written
 * back there after every listing. A server started from a fresh entry is offered to the model
 * with no request at all; its first call connects it. Entries are checked here, once: the
 * format, the server's identity (its URL or command and credentials), the ttl, the scope.
 */
import type { McpToolkitConfig, ServerConfig } from "../config/index.js";
import { asServerCatalog, CATALOG_VERSION, catalogEntries, remainingMs, type Listing, type ServerCatalog, type ToolkitCatalog } from "../mcp/session/catalogCache.js";
import type { Connection } from "../mcp/session/Connection.js";
import { credentialHash, identitiesReady } from "../mcp/session/serverIdentity.js";

/** Where a fleet keeps each server's catalog entry (fleet/catalogStore.ts); never rejects. */
export interface SharedCatalogs {
  /** The entry Redis holds for the server, with its remaining ttl as Redis counts it; undefined when none or Redis is away. */
  read(name: string, server: ServerConfig): Promise<ServerCatalog | undefined>;
  /** Keeps the entry for its remaining ttl; one that ran out removes the key. Not awaited by anyone. */
  write(name: string, server: ServerConfig, entry: ServerCatalog, remainingMs: number): void;
}

/**
 * Seeds each server's connection from a fresh entry, `config.catalog`'s first, else the
 * fleet's; and, with a fleet, keeps every listing read from now on there (stdio servers'
 * excepted). Servers left unseeded connect and list as usual.
 */
export async function startFromCatalogs(connections: ReadonlyMap<string, Connection>, config: McpToolkitConfig, shared: SharedCatalogs | undefined): Promise<void> {
  const given = catalogEntries(config.catalog);
  await Promise.all(
    [...connections].map(async ([name, connection]) => {
      const server = config.servers[name];
      if (!server || "client" in server) return;
      // Each process runs its own stdio server, perhaps another version of it: never shared.
      const fleet = server.transport === "stdio" ? undefined : shared;
      // The identity costs a deliberately slow hash (serverIdentity.ts): only where an entry is read or kept.
      if (!fleet && given[name] === undefined) return;
      await identitiesReady([server]);
      const identity = credentialHash(server);
      if (fleet) connection.catalog.onListed = (listing) => keep(fleet, name, server, { ...listing, identity });
      const entry = usable(given[name], identity) ?? (fleet ? usable(await fleet.read(name, server), identity, server) : undefined);
      if (entry) connection.seed(entry);
    }),
  );
}

/** Every listed server's entry (a `client` you connected has none), as JSON-safe copies. */
export function exportCatalog(connections: ReadonlyMap<string, Connection>, config: McpToolkitConfig): ToolkitCatalog {
  const servers: Record<string, ServerCatalog> = {};
  for (const [name, connection] of connections) {
    const server = config.servers[name];
    const listing = connection.catalog.listing;
    if (!server || "client" in server || !listing) continue;
    servers[name] = structuredClone({ ...listing, identity: credentialHash(server) });
  }
  return { version: CATALOG_VERSION, servers };
}

/**
 * An entry this server may start from: well formed, listed under the same identity, not run
 * out. From Redis (`shared` given) a private list is also refused where the identity cannot
 * tell the caller apart (see `shareable`).
 */
function usable(value: unknown, identity: string, shared?: ServerConfig): Listing | undefined {
  const entry = asServerCatalog(value);
  if (!entry || entry.identity !== identity || remainingMs(entry) <= 0) return undefined;
  if (shared && !shareable(shared, entry)) return undefined;
  return entry;
}

/** A listing that may not be shared, or that ran out, clears what Redis holds: it is no longer the server's list. */
function keep(shared: SharedCatalogs, name: string, server: ServerConfig, entry: ServerCatalog): void {
  shared.write(name, server, entry, shareable(server, entry) ? remainingMs(entry) : 0);
}

/**
 * A `private` list must not reach another authorization context (2026-07-28 `cacheScope`). The
 * key's identity hashes the headers and env a server is reached with, so there it is one
 * context; an `authProvider`'s tokens are not in the hash, so such a server shares only
 * `public` lists.
 */
function shareable(server: ServerConfig, entry: ServerCatalog): boolean {
  return entry.cacheScope === "public" || !("authProvider" in server && server.authProvider !== undefined);
}

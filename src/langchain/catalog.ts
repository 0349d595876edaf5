/**
 * A toolkit's tool catalog: exported as plain data (`toolkit.catalog()`), taken at connect
 * (`McpToolkit.connect({ catalog })`) or from the fleet's Redis (`sharedState`), and written
 * back there after every listing. A server started from a fresh entry is offered to the model
 * with no request at all; its first call connects it. Entries are checked here, once: the
 * format, the server's identity (its URL or command and credentials), the ttl, the scope.
 */
import { DEFAULT_SERVER_OPTIONS, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
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
export async function startFromCatalogs(
  connections: ReadonlyMap<string, Connection>,
  config: McpToolkitConfig,
  shared: SharedCatalogs | undefined,
  /** Told why an entry of `config.catalog` is not used (a `warning` event). */
  warn: (field: string, message: string) => void = () => {},
): Promise<void> {
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
      const maxAgeMs = server.catalogMaxAgeMs ?? DEFAULT_SERVER_OPTIONS.catalogMaxAgeMs;
      const why = given[name] === undefined ? undefined : unusable(given[name], identity, maxAgeMs);
      if (why) warn(`catalog.servers.${name}`, `The catalog's entry for server '${name}' is not used, ${why}; the server is listed as usual.`);
      const entry = (why ? undefined : asServerCatalog(given[name])) ?? (fleet ? usable(await fleet.read(name, server), identity, server) : undefined);
      if (entry) connection.seed(why ? entry : { ...entry, ttlMs: heldFor(entry, maxAgeMs) });
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
 * How long an entry handed to `connect({ catalog })` holds: its server's own ttl where it gave
 * one (0 included), else the longer of the config's ttl and `catalogMaxAgeMs`.
 */
function heldFor(entry: Listing, maxAgeMs: number): number {
  return entry.ttlFromServer === true ? entry.ttlMs : Math.max(entry.ttlMs, maxAgeMs);
}

/** Why an entry handed to `connect({ catalog })` cannot be used by this server, or undefined when it can. */
function unusable(value: unknown, identity: string, maxAgeMs: number): string | undefined {
  const entry = asServerCatalog(value);
  if (!entry) return "as it is not a catalog entry of this version (export it again with toolkit.catalog())";
  if (entry.identity !== identity) return "as the server's URL or command, headers or environment changed since it was exported";
  if (remainingMs({ ...entry, ttlMs: heldFor(entry, maxAgeMs) }) > 0) return undefined;
  const age = Math.round((Date.now() - entry.listedAt) / 60_000);
  return entry.ttlFromServer === true
    ? `as the server said its list holds ${entry.ttlMs} ms, and it was listed ${age} min ago`
    : `as it was listed ${age} min ago, longer ago than the server's catalogMaxAgeMs (${maxAgeMs} ms)`;
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

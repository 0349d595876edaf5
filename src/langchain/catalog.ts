/**
 * A toolkit's tool catalog: exported as plain data (`toolkit.catalog()`), taken at connect
 * (`McpToolkit.connect({ catalog })`) or from the fleet's Redis (`sharedState`), and written
 * back there after every listing. A server started from a fresh entry is offered to the model
 * with no request at all; its first call connects it. Entries are checked here, once: the
 * format, the server's identity (its URL or command and credentials), the ttl, the scope.
 */
import { DEFAULT_SERVER_OPTIONS, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import { asServerCatalog, CATALOG_VERSION, catalogEntries, type ServerCatalog, type SharedCatalogs, type ToolkitCatalog } from "../config/catalog.js";
import { remainingMs, type Listing } from "../mcp/session/catalogCache.js";
import type { Connection } from "../mcp/session/Connection.js";
import { credentialHash, identitiesReady } from "../mcp/session/serverIdentity.js";

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
      // A catalog handed over may outlive its server's silence (catalogMaxAgeMs); Redis holds an entry for its own ttl only.
      const fromGiven = given[name] === undefined ? undefined : judged(given[name], identity, server.catalogMaxAgeMs ?? DEFAULT_SERVER_OPTIONS.catalogMaxAgeMs);
      if (fromGiven && "why" in fromGiven) warn(`catalog.servers.${name}`, `The catalog's entry for server '${name}' is not used, ${fromGiven.why}; the server is listed as usual.`);
      const fromFleet = fromGiven && "entry" in fromGiven ? undefined : fleet ? judged(await fleet.read(name, server), identity, 0, server) : undefined;
      const use = fromGiven && "entry" in fromGiven ? fromGiven : fromFleet && "entry" in fromFleet ? fromFleet : undefined;
      if (use) connection.seed(use.entry);
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

/**
 * The entry this server may start from, held for `heldFor`: well formed, listed under the same
 * identity, not run out; or why not. From Redis (`shared` given) a private list is also refused
 * where the identity cannot tell the caller apart (see `shareable`).
 */
function judged(value: unknown, identity: string, maxAgeMs: number, shared?: ServerConfig): { entry: Listing } | { why: string } {
  const entry = asServerCatalog(value);
  if (!entry) return { why: "as it is not a catalog entry of this version (export it again with toolkit.catalog())" };
  if (entry.identity !== identity) return { why: "as the server's URL or command, headers or environment changed since it was exported" };
  if (shared && !shareable(shared, entry)) return { why: "as its list is private to other credentials" };
  const held = { ...entry, ttlMs: heldFor(entry, maxAgeMs) };
  if (remainingMs(held) > 0) return { entry: held };
  const age = Math.round((Date.now() - entry.listedAt) / 60_000);
  if (entry.ttlFromServer === true) return { why: `as the server said its list holds ${entry.ttlMs} ms, and it was listed ${age} min ago` };
  if (maxAgeMs === 0) return { why: `as its list was to hold ${entry.ttlMs} ms (catalogTtlMs), and it was listed ${age} min ago` };
  return { why: `as it was listed ${age} min ago, longer ago than the server's catalogMaxAgeMs (${maxAgeMs} ms)` };
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

/**
 * Each server's tool catalog on Redis, one key per server (keys.ts: `…:{name:hash}:catalog`),
 * holding `{ version, entry }` as JSON and expiring with the listing's ttl (PX). Redis alone
 * counts the time left: a reader takes the key's PTTL as the entry's remaining ttl, so the
 * clocks of the process that wrote it and the one that reads it never meet.
 */
import { createHash } from "node:crypto";
import type { ServerConfig } from "../config/index.js";
import { CATALOG_VERSION, type ServerCatalog, type SharedCatalogs } from "../config/catalog.js";
import { catalogKey } from "./keys.js";
import type { Script } from "./scripts.js";
import type { Store } from "./Store.js";

function lua(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** KEYS: the catalog key. Answers { value, PTTL }, or {} when there is none. */
const GET = lua(`
local value = redis.call('GET', KEYS[1])
if not value then return {} end
return { value, redis.call('PTTL', KEYS[1]) }
`);

/** KEYS: the catalog key. ARGV: the value, its ttl in ms; a ttl of 0 removes the key. */
const PUT = lua(`
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return {}
`);

export class CatalogStore implements SharedCatalogs {
  constructor(
    private readonly store: Store,
    private readonly keyPrefix: string,
  ) {}

  async read(name: string, server: ServerConfig): Promise<ServerCatalog | undefined> {
    const reply = await this.store.run(GET, [catalogKey(this.keyPrefix, name, server)], []);
    const [value, pttl] = reply ?? [];
    if (typeof value !== "string" || !(Number(pttl) > 0)) return undefined;
    try {
      const stored = JSON.parse(value) as { version?: unknown; entry?: ServerCatalog };
      if (stored.version !== CATALOG_VERSION || typeof stored.entry !== "object" || stored.entry === null) return undefined;
      // Restated on this process's clock: what is left is what Redis says is left.
      return { ...stored.entry, listedAt: Date.now() + Number(pttl) - stored.entry.ttlMs };
    } catch {
      // Not ours, or cut: as if there were none.
      return undefined;
    }
  }

  write(name: string, server: ServerConfig, entry: ServerCatalog, remainingMs: number): void {
    const value = remainingMs > 0 ? JSON.stringify({ version: CATALOG_VERSION, entry }) : "";
    void this.store.run(PUT, [catalogKey(this.keyPrefix, name, server)], [value, Math.floor(remainingMs)]);
  }
}

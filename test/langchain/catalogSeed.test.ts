/**
 * Which ttl a seeded entry keeps: a catalog handed to connect() may be used past its server's
 * silence (catalogMaxAgeMs), but an entry read from the fleet's Redis holds for its own ttl only.
 * The store is a stub (its Redis side has its own tests in test/fleet/catalog.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { McpToolkitConfig, ServerConfig } from "../../src/index.js";
import type { SharedCatalogs } from "../../src/config/catalog.js";
import { startFromCatalogs } from "../../src/langchain/catalog.js";
import { Connection } from "../../src/mcp/session/Connection.js";
import { credentialHash, identitiesReady } from "../../src/mcp/session/serverIdentity.js";

const server: ServerConfig = { transport: "http", url: "http://127.0.0.1:1/mcp" };

async function seededTtl(from: "given" | "fleet"): Promise<number | undefined> {
  await identitiesReady([server]);
  const entry = { tools: [{ name: "echo", inputSchema: { type: "object" } }], listedAt: Date.now() - 1_000, ttlMs: 5_000, cacheScope: "public" as const, identity: credentialHash(server) };
  const fleet: SharedCatalogs = { read: async () => (from === "fleet" ? entry : undefined), write: () => {} } as unknown as SharedCatalogs;
  const connection = new Connection("s", server, { name: "t", version: "0" });
  try {
    const config = { servers: { s: server }, ...(from === "given" ? { catalog: { version: 1, servers: { s: entry } } } : {}) } as McpToolkitConfig;
    await startFromCatalogs(new Map([["s", connection]]), config, fleet);
    return connection.catalog.fresh()?.ttlMs;
  } finally {
    await connection.close();
  }
}

describe("a seeded catalog entry whose server gave no ttl", () => {
  it("handed to connect() holds for catalogMaxAgeMs (1 hour by default)", async () => {
    expect(await seededTtl("given")).toBe(3_600_000);
  });

  it("read from the fleet's Redis holds for its own ttl only", async () => {
    expect(await seededTtl("fleet")).toBe(5_000);
  });
});

/**
 * The catalog cache on a real redis-server (Unix socket, temp dir): a toolkit with
 * `sharedState` writes each listing under the server's key with the listing's ttl, and the
 * next toolkit starts from it without asking the server anything. Counts requests by method at
 * a real v2 server over HTTP; no assertion measures time.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpToolkitConfig, type ServerConfig } from "../../src/index.js";
import { catalogKey } from "../../src/fleet/keys.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startCatalogServer, type CatalogServer } from "../servers/v2/catalog.js";
import { v2StdioCommand } from "../servers/v2/stdio.js";
import { RedisProcess, redisServerFound } from "./redis.js";

const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared catalog tests are skipped (apt-get install redis-server; CI installs it).");

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe.skipIf(skip)("the tool catalog kept on Redis", () => {
  let redis: RedisProcess;
  let client: Redis;
  let run = 0;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
    client = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
    client.on("error", () => undefined);
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  /** A toolkit config sharing state under a prefix of its own test. */
  function config(servers: Record<string, ServerConfig>, keyPrefix: string, extra: Partial<McpToolkitConfig> = {}): McpToolkitConfig {
    return { servers, sharedState: { redis: client, keyPrefix }, ...extra };
  }

  const http = (server: CatalogServer, extra: Partial<ServerConfig> = {}) => ({ transport: "http", url: server.url.href, ...extra }) as ServerConfig;
  const stored = async (key: string) => {
    const value = await client.get(key);
    return value === null ? undefined : (JSON.parse(value) as { version: number; entry: { tools: { name: string }[]; ttlMs: number } });
  };

  it("writes a listing under the server's key with its ttl, and a second toolkit starts from it without a request", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 4, ttlMs: 30_000 }));
    const first = later(await McpToolkit.connect(config({ s: http(server) }, prefix)));
    const key = catalogKey(prefix, "s", http(server));
    expect(key).toMatch(new RegExp(`^${prefix}:\\{s:[0-9a-f]{16}\\}:catalog$`));
    await eventually(async () => expect(await client.exists(key)).toBe(1));
    const pttl = await client.pttl(key);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(30_000);
    expect(await stored(key)).toMatchObject({ version: 1, entry: { ttlMs: 30_000 } });
    expect((await stored(key))!.entry.tools.map((t) => t.name)).toEqual(first.getTools().map((t) => t.name));

    server.methods.clear();
    const second = later(await McpToolkit.connect(config({ s: http(server) }, prefix)));
    expect(second.getTools().map((t) => t.name)).toEqual(first.getTools().map((t) => t.name));
    expect(server.methods.size).toBe(0);
    expect((await replyOf(second.getTool("tool_4"), { text: "shared" })).content).toBe("tool_4: shared");
    expect(server.count("tools/list")).toBe(0);
  });

  it("keeps the list a tool_not_found read, and removes the key when the server's new ttl is 0", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 2, ttlMs: 30_000 }));
    const key = catalogKey(prefix, "s", http(server));
    later(await McpToolkit.connect(config({ s: http(server) }, prefix)));
    await eventually(async () => expect(await client.exists(key)).toBe(1));

    server.names.delete("tool_2");
    const toolkit = later(await McpToolkit.connect(config({ s: http(server) }, prefix)));
    expect((await replyOf(toolkit.getTool("tool_2"), { text: "x" })).error).toMatchObject({ reason: "tool_not_found" });
    await eventually(async () => expect((await stored(key))?.entry.tools.map((t) => t.name)).toEqual(["echo", "tool_1"]));

    server.ttlMs = 0;
    server.names.delete("tool_1");
    expect((await replyOf(toolkit.getTool("tool_1"), { text: "x" })).error).toMatchObject({ reason: "tool_not_found" });
    await eventually(async () => expect(await client.exists(key)).toBe(0));
  });

  it("keys a server by its credentials: another token reads nothing of it", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 1, ttlMs: 30_000 }));
    const one = http(server, { headers: { authorization: "Bearer one" } });
    later(await McpToolkit.connect(config({ s: one }, prefix)));
    await eventually(async () => expect(await client.exists(catalogKey(prefix, "s", one))).toBe(1));
    expect(JSON.stringify(await client.keys(`${prefix}:*`))).not.toContain("Bearer");

    server.methods.clear();
    later(await McpToolkit.connect(config({ s: http(server, { headers: { authorization: "Bearer two" } }) }, prefix)));
    expect(server.count("tools/list")).toBe(1);
  });

  it("does not share a private list of a server whose credentials come from an authProvider", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 1, ttlMs: 30_000, cacheScope: "private" }));
    const withAuth = http(server, { authProvider: anonymousAuthProvider() });
    const toolkit = later(await McpToolkit.connect(config({ s: withAuth }, prefix)));
    expect(toolkit.catalog().servers.s).toMatchObject({ cacheScope: "private", ttlMs: 30_000 });
    // A public list of the same kind of server is written; give the write its time, then look.
    const plain = http(server);
    server.cacheScope = "public";
    later(await McpToolkit.connect(config({ p: plain }, prefix)));
    await eventually(async () => expect(await client.exists(catalogKey(prefix, "p", plain))).toBe(1));
    expect(await client.exists(catalogKey(prefix, "s", withAuth))).toBe(0);
  });

  it("never shares a stdio server's list: each process runs its own server", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 1, ttlMs: 30_000 }));
    const stdio = { transport: "stdio", ...v2StdioCommand(), era: "legacy", catalogTtlMs: 30_000 } as ServerConfig;
    const toolkit = later(await McpToolkit.connect(config({ local: stdio, remote: http(server) }, prefix)));
    expect(toolkit.catalog().servers.local).toMatchObject({ ttlMs: 30_000 });
    await eventually(async () => expect(await client.exists(catalogKey(prefix, "remote", http(server)))).toBe(1));
    expect(await client.exists(catalogKey(prefix, "local", stdio))).toBe(0);
  });

  it("lists as without Redis when Redis does not answer, within the command timeout", async () => {
    const prefix = `cat${++run}`;
    const server = later(await startCatalogServer({ tools: 1, ttlMs: 30_000 }));
    later(await McpToolkit.connect(config({ s: http(server) }, prefix)));
    await eventually(async () => expect(await client.exists(catalogKey(prefix, "s", http(server)))).toBe(1));
    server.methods.clear();
    redis.pause();
    try {
      const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, sharedState: { redis: client, keyPrefix: prefix, commandTimeoutMs: 100 } }));
      expect(server.count("tools/list")).toBe(1);
      expect((await replyOf(toolkit.getTool("echo"), { text: "ok" })).content).toBe("echo: ok");
    } finally {
      redis.resume();
    }
  });
});

/** An OAuth provider with no tokens yet, for a server that asks for none: only its presence matters here. */
function anonymousAuthProvider() {
  return {
    get redirectUrl() {
      return "http://127.0.0.1/callback";
    },
    get clientMetadata() {
      return { redirect_uris: ["http://127.0.0.1/callback"], client_name: "test" };
    },
    clientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: () => undefined,
    saveCodeVerifier: () => undefined,
    codeVerifier: () => "",
  };
}

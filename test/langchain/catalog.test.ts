/**
 * The catalog cache against real v2 servers over HTTP whose 2026-07-28 `tools/list` results
 * carry a ttl: what `toolkit.catalog()` exports, and what a toolkit started from it sends
 * (counted by JSON-RPC method at the server): nothing at connect, no listing at the first call,
 * a listing once the ttl ran out or a call finds the list changed.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent, type ServerConfig, type ToolkitCatalog } from "../../src/index.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { startCatalogServer, startMismatchServer, type CatalogServer } from "../servers/v2/catalog.js";
import { startV2Http } from "../servers/v2/http.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const http = (server: CatalogServer, extra: Partial<ServerConfig> = {}): ServerConfig => ({ transport: "http", url: server.url.href, ...extra }) as ServerConfig;

/** A cold toolkit's catalog, through JSON as a file or a key would carry it; the server's counts start again. */
async function catalogOf(servers: Record<string, ServerConfig>, ...counted: CatalogServer[]): Promise<ToolkitCatalog> {
  const toolkit = await McpToolkit.connect({ servers });
  const catalog = JSON.parse(JSON.stringify(toolkit.catalog())) as ToolkitCatalog;
  await toolkit.close();
  for (const server of counted) server.methods.clear();
  return catalog;
}

const requests = (server: CatalogServer) => [...server.methods.values()].reduce((a, b) => a + b, 0);

describe("toolkit.catalog()", () => {
  it("exports each server's listed tools with the ttl and scope the server gave, the era learnt and a format version", async () => {
    const server = later(await startCatalogServer({ tools: 3, ttlMs: 45_000, cacheScope: "public" }));
    const before = Date.now();
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) } }));
    const catalog = toolkit.catalog();
    expect(catalog.version).toBe(1);
    const entry = catalog.servers.s!;
    expect(entry.tools.map((t) => t.name)).toEqual(["echo", "tool_1", "tool_2", "tool_3"]);
    expect(entry).toMatchObject({ ttlMs: 45_000, cacheScope: "public", era: "modern", protocolVersion: "2026-07-28" });
    expect(entry.listedAt).toBeGreaterThanOrEqual(before);
    expect(entry.discover).toMatchObject({ supportedVersions: ["2026-07-28"] });
    expect(entry.identity).toMatch(/^[0-9a-f]{16}$/);
    // Plain data: a JSON round trip changes nothing.
    expect(JSON.parse(JSON.stringify(catalog))).toEqual(catalog);
  });

  it("gives a 2025-era listing the server's catalogTtlMs, and 0 without it", async () => {
    const server = later(await startCatalogServer({ ttlMs: 45_000 }));
    const toolkit = later(await McpToolkit.connect({ servers: { plain: http(server, { era: "legacy" }), kept: http(server, { era: "legacy", catalogTtlMs: 5_000 }) } }));
    const { servers } = toolkit.catalog();
    expect(servers.plain).toMatchObject({ era: "legacy", ttlMs: 0, cacheScope: "private" });
    expect(servers.kept).toMatchObject({ era: "legacy", ttlMs: 5_000 });
  });
});

describe("McpToolkit.connect({ catalog })", () => {
  it("offers the catalog's tools without a request, and the first call connects without tools/list", async () => {
    const server = later(await startCatalogServer({ tools: 5 }));
    const catalog = await catalogOf({ s: http(server) }, server);

    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, catalog }));
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["echo", "tool_1", "tool_2", "tool_3", "tool_4", "tool_5"]);
    expect(requests(server)).toBe(0);
    expect(toolkit.protocolEra("s")).toBeUndefined();

    expect((await replyOf(toolkit.getTool("tool_3"), { text: "hi" })).content).toBe("tool_3: hi");
    expect(toolkit.protocolEra("s")).toBe("modern");
    expect(server.count("tools/call")).toBe(1);
    // The entry's discover result stands in for server/discover; the list is the catalog's.
    expect(server.count("tools/list")).toBe(0);
    expect(server.count("server/discover")).toBe(0);
    expect(server.count("initialize")).toBe(0);
    // A later call reuses the connection.
    expect((await replyOf(toolkit.getTool("echo"), { text: "again" })).content).toBe("echo: again");
    expect(server.count("tools/list")).toBe(0);
  });

  it("starts a 2025-era server from the catalog too: initialize at the first call, no listing", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const config = http(server, { era: "legacy", catalogTtlMs: 60_000 });
    const catalog = await catalogOf({ s: config }, server);
    const toolkit = later(await McpToolkit.connect({ servers: { s: config }, catalog }));
    expect(requests(server)).toBe(0);
    expect((await replyOf(toolkit.getTool("tool_2"), { text: "x" })).content).toBe("tool_2: x");
    expect(server.count("initialize")).toBe(1);
    expect(server.count("tools/list")).toBe(0);
  });

  it("checks a result against the catalog's output schema, as after a listing", async () => {
    const server = later(await startMismatchServer());
    const config = { transport: "http", url: server.url.href } as const;
    const cold = later(await McpToolkit.connect({ servers: { s: config } }));
    expect((await replyOf(cold.getTool("measure"))).error).toMatchObject({ reason: "output_schema_mismatch" });
    const toolkit = later(await McpToolkit.connect({ servers: { s: config }, catalog: cold.catalog() }));
    expect((await replyOf(toolkit.getTool("measure"))).error).toMatchObject({ reason: "output_schema_mismatch" });
  });

  it("ignores an entry whose ttl ran out: the server is listed at connect", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const catalog = await catalogOf({ s: http(server) }, server);
    catalog.servers.s!.listedAt -= catalog.servers.s!.ttlMs + 1;
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, catalog }));
    expect(server.count("tools/list")).toBe(1);
    expect(toolkit.protocolEra("s")).toBe("modern");
  });

  it("lists at the first call's connect when the entry ran out after connect()", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const catalog = await catalogOf({ s: http(server) }, server);
    // Fresh for a moment only: connect() takes it (no request), the first call comes after it ran out.
    Object.assign(catalog.servers.s!, { listedAt: Date.now(), ttlMs: 1_500 });
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, catalog }));
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await replyOf(toolkit.getTool("echo"), { text: "late" })).content).toBe("echo: late");
    expect(server.count("tools/list")).toBe(1);
    // The new listing, with the server's own ttl, is what the toolkit exports now.
    expect(toolkit.catalog().servers.s!.ttlMs).toBe(60_000);
  });

  it("lists again when a call answers tool_not_found, and the tool leaves getTools()", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const catalog = await catalogOf({ s: http(server) }, server);
    server.names.delete("tool_2");
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, catalog, onEvent: (e) => events.push(e) }));
    expect(toolkit.getTool("tool_2")).toBeDefined();

    const reply = await replyOf(toolkit.getTool("tool_2"), { text: "x" });
    expect(reply.error).toMatchObject({ reason: "tool_not_found", outcome: "not_sent" });
    expect(server.count("tools/list")).toBe(1);
    expect(toolkit.getTool("tool_2")).toBeUndefined();
    expect(events).toContainEqual({ type: "tools_changed", serverName: "s", added: [], removed: ["tool_2"] });
    expect(toolkit.catalog().servers.s!.tools.map((t) => t.name)).toEqual(["echo", "tool_1"]);
  });

  it("does not list again at a reconnect within the ttl of the last listing", async () => {
    // A 2025 session the server forgets: the toolkit re-initializes; catalogTtlMs says the list still holds.
    const upstream = later(await startV2Http({ mode: "legacy-session" }));
    const proxy = later(await startFaultProxy(upstream.url));
    const events: McpEvent[] = [];
    const config = { transport: "http", url: proxy.url.href, era: "legacy", catalogTtlMs: 60_000 } as const;
    const toolkit = later(await McpToolkit.connect({ servers: { s: config }, onEvent: (e) => events.push(e) }));
    expect((await replyOf(toolkit.getTool("echo"), { text: "before" })).content).toBe("before");
    await upstream.forgetSessions();
    expect((await replyOf(toolkit.getTool("echo"), { text: "after" })).content).toBe("after");
    expect(events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    const rpcs = (name: string) => proxy.seen.filter((r) => r.rpc === name).length;
    expect(rpcs("initialize")).toBe(2);
    expect(rpcs("tools/list")).toBe(1);
  });

  it("asks the server, not the SDK's cache, when a tool_not_found comes within the ttl of a listing", async () => {
    const server = later(await startCatalogServer({ tools: 2, ttlMs: 60_000 }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) } }));
    server.names.delete("tool_2");
    expect((await replyOf(toolkit.getTool("tool_2"), { text: "x" })).error).toMatchObject({ reason: "tool_not_found" });
    expect(server.count("tools/list")).toBe(2);
    expect(toolkit.getTool("tool_2")).toBeUndefined();
  });

  it("lists again when the server announces a change on the stream the first call opened", async () => {
    const server = later(await startCatalogServer({ tools: 1 }));
    const catalog = await catalogOf({ s: http(server) }, server);
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server) }, catalog }));
    await replyOf(toolkit.getTool("echo"), { text: "connect" });
    // The call did not wait for the stream: it opens beside it.
    await eventually(() => expect(server.count("subscriptions/listen")).toBe(1));

    server.names.add("tool_9");
    // Told again until heard: the stream may still be opening.
    await eventually(() => {
      server.notifyToolsChanged();
      expect(toolkit.getTool("tool_9")).toBeDefined();
    });
    expect(server.count("tools/list")).toBeGreaterThanOrEqual(1);
    expect((await replyOf(toolkit.getTool("tool_9"), { text: "new" })).content).toBe("tool_9: new");
  });

  it("ignores entries for servers not configured, and lists a configured server without an entry", async () => {
    const a = later(await startCatalogServer({ tools: 1 }));
    const b = later(await startCatalogServer({ tools: 1 }));
    const catalog = await catalogOf({ a: http(a), ghost: http(b) }, a, b);
    const toolkit = later(await McpToolkit.connect({ servers: { a: http(a), b: http(b) }, catalog }));
    expect(requests(a)).toBe(0);
    expect(b.count("tools/list")).toBe(1);
    expect(toolkit.getTools().map((t) => t.name).sort()).toEqual(["a__echo", "a__tool_1", "b__echo", "b__tool_1"]);
  });

  it("ignores an entry listed under another identity (other headers) or in another format", async () => {
    const server = later(await startCatalogServer({ tools: 1 }));
    const catalog = await catalogOf({ s: http(server, { headers: { authorization: "Bearer one" } }) }, server);
    later(await McpToolkit.connect({ servers: { s: http(server, { headers: { authorization: "Bearer two" } }) }, catalog }));
    expect(server.count("tools/list")).toBe(1);

    later(await McpToolkit.connect({ servers: { s: http(server, { headers: { authorization: "Bearer one" } }) }, catalog: { ...catalog, version: 2 } }));
    expect(server.count("tools/list")).toBe(2);

    later(await McpToolkit.connect({ servers: { s: http(server, { headers: { authorization: "Bearer one" } }) }, catalog }));
    expect(server.count("tools/list")).toBe(2);
  });

  it("reports a server that is down at the first call, classified, not at connect()", async () => {
    const server = await startCatalogServer({ tools: 1 });
    const catalog = await catalogOf({ s: http(server, { reconnect: { enabled: true, minDelayMs: 10, maxDelayMs: 10 } }) }, server);
    await server.close();
    const toolkit = later(await McpToolkit.connect({ servers: { s: http(server, { reconnect: { enabled: true, minDelayMs: 10, maxDelayMs: 10 } }) }, catalog, retry: { retries: 0 } }));
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["echo", "tool_1"]);
    expect((await replyOf(toolkit.getTool("echo"), { text: "x" })).error).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
  });
});

describe("a catalog handed to connect() with default settings", () => {
  const warningsOf = (events: McpEvent[]) => events.filter((e) => e.type === "warning");

  it("starts a 2025-era server from it (its server gave no ttl) when it is younger than catalogMaxAgeMs: no listing", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const config = http(server, { era: "legacy" });
    const catalog = await catalogOf({ s: config }, server);
    expect(catalog.servers.s!.ttlMs).toBe(0);
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: config }, catalog, onEvent: (e) => events.push(e) }));
    expect(requests(server)).toBe(0);
    expect((await replyOf(toolkit.getTool("tool_1"), { text: "x" })).content).toBe("tool_1: x");
    expect(server.count("tools/list")).toBe(0);
    expect(warningsOf(events)).toEqual([]);
  });

  it("lists as usual, with a warning saying why, when the entry is older than catalogMaxAgeMs", async () => {
    const server = later(await startCatalogServer({ tools: 2 }));
    const config = http(server, { era: "legacy" });
    const catalog = await catalogOf({ s: config }, server);
    catalog.servers.s!.listedAt -= 2 * 3_600_000;
    const events: McpEvent[] = [];
    later(await McpToolkit.connect({ servers: { s: config }, catalog, onEvent: (e) => events.push(e) }));
    expect(server.count("tools/list")).toBe(1);
    expect(warningsOf(events)).toEqual([{ type: "warning", field: "catalog.servers.s", message: expect.stringMatching(/listed 120 min ago, longer ago than the server's catalogMaxAgeMs \(3600000 ms\)/) }]);
  });

  it("follows a 2026-07-28 server that says its list holds 0 ms, and says so", async () => {
    const server = later(await startCatalogServer({ tools: 1, ttlMs: 0 }));
    const catalog = await catalogOf({ s: http(server) }, server);
    const events: McpEvent[] = [];
    later(await McpToolkit.connect({ servers: { s: http(server) }, catalog, onEvent: (e) => events.push(e) }));
    expect(server.count("tools/list")).toBe(1);
    expect(warningsOf(events)[0]).toMatchObject({ field: "catalog.servers.s", message: expect.stringContaining("the server said its list holds 0 ms") });
  });

  it("warns when the entry was exported under other credentials", async () => {
    const server = later(await startCatalogServer({ tools: 1 }));
    const catalog = await catalogOf({ s: http(server, { headers: { authorization: "Bearer one" } }) }, server);
    const events: McpEvent[] = [];
    later(await McpToolkit.connect({ servers: { s: http(server, { headers: { authorization: "Bearer two" } }) }, catalog, onEvent: (e) => events.push(e) }));
    expect(warningsOf(events)[0]).toMatchObject({ field: "catalog.servers.s", message: expect.stringContaining("headers or environment changed") });
  });
});

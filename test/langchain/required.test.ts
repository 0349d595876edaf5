/**
 * Required and optional servers, against real servers: a required one that fails rejects
 * `connect()` naming it; an optional one is left out, reported by `status()` and `server_status`
 * events, retried in the background with its backoff, and joins when it comes up. `close()`
 * stops the retries with nothing left behind.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolError, type ServerStatusEvent } from "../../src/index.js";
import { activeResources, childPids, multisetExcess, sleep } from "../chaos/support.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { startV2Http } from "../servers/v2/http.js";

const cleanups = closeAfterEach();

/** A port nothing listens on: a fixture started and closed again. */
async function deadPort(): Promise<number> {
  const http = await startHttpFixture();
  await http.close();
  return http.port;
}

const statusEvents = (events: McpEvent[], server: string) => events.filter((e): e is ServerStatusEvent => e.type === "server_status" && e.serverName === server);

describe("a required server", () => {
  it("that fails to connect rejects connect() with its classified error, naming it, and the toolkit closes what it opened", async () => {
    const baseline = childPids().length;
    const port = await deadPort();
    const error = (await McpToolkit.connect({
      servers: {
        local: { transport: "stdio", ...stdioFixtureCommand() },
        remote: { transport: "http", url: `http://127.0.0.1:${port}/mcp` },
      },
    }).catch((e: unknown) => e)) as McpToolError;
    expect(error).toMatchObject({ name: "McpToolError", reason: "connection_refused", outcome: "not_sent", serverName: "remote" });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    // The stdio server that did connect was stopped.
    expect(childPids().length).toBe(baseline);
  });

  it("is required by default, and onConnectionError \"skip\" makes a server optional unless it says required: true", async () => {
    const port = await deadPort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const up = { transport: "http" as const, url: http.url.href };
    const down = { transport: "http" as const, url, reconnect: { minDelayMs: 60_000, maxDelayMs: 60_000 } };

    await expect(McpToolkit.connect({ servers: { up, down } })).rejects.toMatchObject({ serverName: "down" });
    await expect(McpToolkit.connect({ servers: { up, down: { ...down, required: true } }, onConnectionError: "skip" })).rejects.toMatchObject({ serverName: "down" });

    const skipped = await McpToolkit.connect({ servers: { up, down }, onConnectionError: "skip" });
    cleanups.push(() => skipped.close());
    expect(skipped.status().down).toMatchObject({ state: "failed", required: false });
    const optional = await McpToolkit.connect({ servers: { up, down: { ...down, required: false } } });
    cleanups.push(() => optional.close());
    expect(optional.status()).toMatchObject({ up: { state: "connected", required: true }, down: { state: "failed", required: false } });
  });
});

describe("an optional server", () => {
  it("that fails is left out and reported as data; it is retried in the background with backoff and joins when it comes up", async () => {
    const events: McpEvent[] = [];
    const remote = await startHttpFixture();
    cleanups.push(() => remote.close());
    // Its first four connects fail with a 503, then it answers: the toolkit must keep trying on its own.
    remote.failNext(503, { count: 4 });
    const toolkit = await McpToolkit.connect({
      servers: {
        local: { transport: "stdio", ...stdioFixtureCommand() },
        remote: { transport: "http", url: remote.url.href, era: "legacy", required: false, reconnect: { minDelayMs: 50, maxDelayMs: 400 } },
      },
      prefixToolNames: true,
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());

    const status = toolkit.status();
    expect(status.local).toMatchObject({ state: "connected", required: true, protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(status.local!.tools).toContain("local__echo");
    expect(status.local!.connectMs).toBeGreaterThanOrEqual(0);
    expect(status.remote).toEqual({ state: "failed", required: false, tools: [], lastError: { reason: "service_unavailable", message: expect.stringContaining("503") }, nextAttemptAt: expect.any(Number) });
    expect(toolkit.pendingServers).toEqual(["remote"]);
    expect(toolkit.getTools().some((t) => t.name.startsWith("remote__"))).toBe(false);
    expect(statusEvents(events, "local")).toMatchObject([{ state: "connected", previous: "connecting" }]);
    expect(statusEvents(events, "remote")).toMatchObject([{ state: "failed", previous: "connecting", lastError: { reason: "service_unavailable" } }]);

    // No refresh(), no getTools(): the background retries bring it in.
    await vi.waitFor(() => expect(toolkit.status().remote!.state).toBe("connected"), { timeout: 15_000, interval: 50 });
    expect(remote.posts).toBeGreaterThanOrEqual(5);
    const joined = toolkit.status().remote!;
    expect(joined.tools).toContain("remote__echo");
    expect(joined.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(joined.lastError?.reason).toBe("service_unavailable");
    expect(toolkit.pendingServers).toEqual([]);
    // The same failure again and again is told once; the recovery once.
    expect(statusEvents(events, "remote").map((e) => `${e.previous}→${e.state}`)).toEqual(["connecting→failed", "failed→connected"]);
    expect(events.filter((e) => e.type === "error" && e.serverName === "remote")).toHaveLength(1);
    expect(events.find((e) => e.type === "tools_changed" && e.serverName === "remote")).toMatchObject({ added: expect.arrayContaining(["remote__echo"]), removed: [] });
    expect(await toolkit.getTool("remote__echo")!.invoke({ text: "late" })).toBe("late");
  }, 30_000);

  it("keeps to its backoff: a server that never comes up is asked a few times a second at most, not in a loop", async () => {
    const remote = await startHttpFixture();
    cleanups.push(() => remote.close());
    remote.failNext(503, { count: 10_000 });
    // minDelayMs 0 would make a reconnect before a call immediate; in the background it must still wait.
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: remote.url.href, era: "legacy", required: false, reconnect: { minDelayMs: 0, maxDelayMs: 200 } } },
    });
    cleanups.push(() => toolkit.close());
    await sleep(1_500);
    // Waits of 100, 200, 200, … ms: about 8 attempts in 1.5 s; a loop would make thousands.
    expect(remote.posts).toBeGreaterThanOrEqual(3);
    expect(remote.posts).toBeLessThan(30);
  });

  it("on a v2 server over HTTP, with reconnection off, waits for refresh(), then reports the 2026-07-28 version", async () => {
    const v2 = await startV2Http({ mode: "modern" });
    cleanups.push(() => v2.close());
    v2.failNext(503, 1);
    const toolkit = await McpToolkit.connect({
      servers: { v2: { transport: "http", url: v2.url.href, required: false, reconnect: { enabled: false } } },
    });
    cleanups.push(() => toolkit.close());
    expect(toolkit.status().v2).toMatchObject({ state: "failed", lastError: { reason: "service_unavailable" } });
    expect(toolkit.getTools()).toEqual([]);
    const posts = v2.posts;
    await sleep(500);
    // Reconnection is off: nothing asks it again on its own.
    expect(v2.posts).toBe(posts);
    await toolkit.refresh();
    expect(toolkit.status().v2).toMatchObject({ state: "connected", protocolVersion: "2026-07-28", tools: expect.arrayContaining(["echo", "slow"]) });
    expect(toolkit.getTools().map((t) => t.name)).toContain("echo");
  }, 30_000);

  it("redacts its lastError as every error is: a server that prints its secrets and dies shows none of them", async () => {
    const DB_PASS = "correcthorsebattery";
    const events: McpEvent[] = [];
    const entry = fileURLToPath(new URL("../servers/leaky-stdio.ts", import.meta.url));
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: {
        up: { transport: "http", url: http.url.href },
        leaky: {
          transport: "stdio",
          command: process.execPath,
          args: ["--import", "tsx", entry],
          env: { DB_PASS, LEAK_AT_START: "1" },
          required: false,
          reconnect: { minDelayMs: 60_000, maxDelayMs: 60_000 },
        },
      },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    const { lastError } = toolkit.status().leaky!;
    expect(lastError?.reason).toBe("server_start_failed");
    expect(lastError?.message).toContain("[REDACTED]");
    expect(JSON.stringify(toolkit.status())).not.toContain(DB_PASS);
    expect(JSON.stringify(events)).not.toContain(DB_PASS);
    expect(statusEvents(events, "leaky")).toHaveLength(1);
  }, 30_000);

  it("stops being retried on close(): no timer, socket or request is left", async () => {
    const before = activeResources();
    const remote = await startHttpFixture();
    cleanups.push(() => remote.close());
    remote.failNext(503, { count: 10_000 });
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: remote.url.href, era: "legacy", required: false, reconnect: { minDelayMs: 100, maxDelayMs: 100 } } },
      onEvent: (e) => events.push(e),
    });
    await vi.waitFor(() => expect(remote.posts).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
    await toolkit.close();
    expect(toolkit.status().remote!.state).toBe("closed");
    expect(statusEvents(events, "remote").at(-1)).toMatchObject({ state: "closed", previous: "failed" });
    const posts = remote.posts;
    await sleep(500);
    expect(remote.posts).toBe(posts);
    await remote.close();
    await vi.waitFor(() => expect(multisetExcess(activeResources(), before)).toEqual([]), { timeout: 5_000 });
  }, 30_000);
});

/**
 * `status()` tells the truth (issue 44, item 4), against real SDK servers: a server whose calls
 * are refused their token reads `unauthorized` (the SDK's own bearer auth, the token revoked after
 * connect), one whose calls fail at a high rate reads `degraded` (503s, JSON-RPC internal errors),
 * and each returns to `connected` when its calls succeed again; a tool's `isError`, the server's
 * refusal of bad arguments and our own refusal of them never count. An optional server whose
 * process cannot start is tried a bounded number of times, then told once more and left to
 * `refresh()`: nothing waits, and `close()` has nothing to stop.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent, type ServerConfig, type ServerState, type ServerStatusEvent } from "../../src/index.js";
import { backgroundDelay, START_FAILED_MAX_ATTEMPTS } from "../../src/langchain/backgroundConnect.js";
import { DEGRADED_MIN_CALLS, HEALTH_WINDOW } from "../../src/langchain/callHealth.js";
import { startBearerServer, TOKENS, type BearerKind } from "../servers/bearer.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { buildProtocolErrorServer } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const statusEvents = (events: McpEvent[], server: string) => events.filter((e): e is ServerStatusEvent => e.type === "server_status" && e.serverName === server);
/** The state changes told for `server`, as `previous>state`. */
const changes = (events: McpEvent[], server: string) => statusEvents(events, server).map((e) => `${e.previous}>${e.state}`);

async function toolkitOf(server: ServerConfig, events: McpEvent[]): Promise<McpToolkit> {
  // No retries, and a breaker that never opens: each call is one send, and each failure reaches the status.
  return later(await McpToolkit.connect({ servers: { s: server }, retry: { retries: 0 }, breaker: { failureThreshold: 1_000 }, onEvent: (e) => events.push(e) }));
}

describe("a server whose calls are refused their credentials", () => {
  it.each<BearerKind>(["v1", "v2"])("(%s, the SDK's bearer auth, the token revoked after connect) reads unauthorized, and connected once a call succeeds again", async (kind) => {
    const bearer = later(await startBearerServer(kind));
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ transport: "http", url: bearer.url.href, headers: { Authorization: `Bearer ${TOKENS.service}` } }, events);
    const call = () => replyOf(toolkit.getTool("my_data"), { caller: "service" });
    expect((await call()).error).toBeUndefined();
    expect(toolkit.status().s!.state).toBe("connected");

    bearer.revoked.add(TOKENS.service);
    expect((await call()).error).toMatchObject({ reason: "unauthorized", serverName: "s" });
    expect(toolkit.status().s).toMatchObject({ state: "unauthorized", tools: expect.arrayContaining(["my_data"]) });
    expect(statusEvents(events, "s").at(-1)).toMatchObject({ previous: "connected", state: "unauthorized", tools: expect.arrayContaining(["my_data"]) });
    // A second refusal is no change: told once.
    await call();
    expect(changes(events, "s")).toEqual(["connecting>connected", "connected>unauthorized"]);

    bearer.revoked.delete(TOKENS.service);
    expect((await call()).error).toBeUndefined();
    expect(toolkit.status().s!.state).toBe("connected");
    expect(changes(events, "s")).toEqual(["connecting>connected", "connected>unauthorized", "unauthorized>connected"]);
  });
});

describe("a server whose calls fail at a high rate", () => {
  it("(503 for two calls in three) reads degraded once half its counted calls failed, and connected when the failures fall under half", async () => {
    const http = later(await startHttpFixture());
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ transport: "http", url: http.url.href, era: "legacy" }, events);
    const states: ServerState[] = [];
    const echo = async (fail: boolean) => {
      if (fail) http.failNext(503);
      const { error } = await replyOf(toolkit.getTool("echo"), { text: "hi" });
      expect(error?.reason).toBe(fail ? "service_unavailable" : undefined);
      states.push(toolkit.status().s!.state);
    };
    for (const fail of [true, true, false, true, true, false]) await echo(fail);
    // Under 5 counted calls nothing is judged; the 5th (4 failed of 5) makes it degraded.
    expect(states).toEqual(["connected", "connected", "connected", "connected", "degraded", "degraded"]);
    expect(toolkit.status().s).toMatchObject({ state: "degraded", tools: expect.arrayContaining(["echo"]) });
    // 4 failed of 7, 4 of 8 (half: still degraded), 4 of 9: connected.
    for (let i = 0; i < 3; i++) await echo(false);
    expect(states.slice(6)).toEqual(["degraded", "degraded", "connected"]);
    expect(changes(events, "s")).toEqual(["connecting>connected", "connected>degraded", "degraded>connected"]);
  });

  it("(JSON-RPC errors) counts -32603 internal errors but not the server's -32602 refusal of the arguments", async () => {
    const http = later(await startHttpFixture({ build: () => buildProtocolErrorServer() }));
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ transport: "http", url: http.url.href, era: "legacy" }, events);
    const raise = async (code: number) => {
      await replyOf(toolkit.getTool("raise"), { code });
      return toolkit.status().s!.state;
    };
    for (let i = 0; i < 6; i++) expect(await raise(-32602)).toBe("connected");
    // 6 answers and 5 failures: under half. The 6th failure makes it half.
    for (let i = 0; i < 5; i++) expect(await raise(-32603)).toBe("connected");
    expect(await raise(-32603)).toBe("degraded");
    expect(changes(events, "s")).toEqual(["connecting>connected", "connected>degraded"]);
  });

  it("is not what a tool's isError results, arguments refused before sending or cancelled calls make", async () => {
    const http = later(await startHttpFixture());
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ transport: "http", url: http.url.href, era: "legacy" }, events);
    for (let i = 0; i < HEALTH_WINDOW; i++) expect((await replyOf(toolkit.getTool("fail"))).error?.reason).toBe("tool_error");
    for (let i = 0; i < DEGRADED_MIN_CALLS; i++) expect((await replyOf(toolkit.getTool("echo"), { text: 5 })).error?.reason).toBe("invalid_arguments");
    for (let i = 0; i < DEGRADED_MIN_CALLS; i++) expect((await replyOf(toolkit.getTool("slow"), { ms: 5_000 }, AbortSignal.timeout(20))).error?.reason).toBe("cancelled");
    expect(toolkit.status().s!.state).toBe("connected");
    expect(changes(events, "s")).toEqual(["connecting>connected"]);
  });
});

describe("an optional server whose process cannot start", () => {
  it(`is tried ${START_FAILED_MAX_ATTEMPTS} times in a row, then told once more and no longer waits; refresh() tries it again`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-status-"));
    const tries = join(dir, "tries");
    writeFileSync(tries, "");
    // Loaded before the script: counts each start of the process, which then finds no script.
    const counter = join(dir, "count.mjs");
    writeFileSync(counter, `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(tries)}, "try\\n");\n`);
    const script = join(dir, "server.mjs");
    const started = () => readFileSync(tries, "utf8").split("\n").filter(Boolean).length;
    const events: McpEvent[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "stdio", command: process.execPath, args: ["--import", "tsx", "--import", counter, script], required: false, reconnect: { minDelayMs: 10, maxDelayMs: 20 } } },
        onEvent: (e) => events.push(e),
      }),
    );
    expect(toolkit.status().s).toMatchObject({ state: "failed", lastError: { reason: "server_start_failed" } });
    const deadline = Date.now() + 60_000;
    while (statusEvents(events, "s").every((e) => e.gaveUpAfter === undefined) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    const told = statusEvents(events, "s");
    expect(told.at(-1)).toMatchObject({ previous: "failed", state: "failed", lastError: { reason: "server_start_failed" }, gaveUpAfter: START_FAILED_MAX_ATTEMPTS });
    expect(told.at(-1)).not.toHaveProperty("nextAttemptAt");
    expect(told.map((e) => `${e.previous}>${e.state}`)).toEqual(["connecting>failed", "failed>failed"]);
    expect(started()).toBe(START_FAILED_MAX_ATTEMPTS);
    expect(toolkit.status().s).toMatchObject({ state: "failed", gaveUpAfter: START_FAILED_MAX_ATTEMPTS });
    expect(toolkit.status().s).not.toHaveProperty("nextAttemptAt");
    expect(toolkit.pendingServers).toEqual([]);

    // A person's fix: refresh() tries it once more (still broken: no wait begins), then, fixed, it joins.
    await toolkit.refresh();
    expect(started()).toBe(START_FAILED_MAX_ATTEMPTS + 1);
    expect(toolkit.pendingServers).toEqual([]);
    expect(toolkit.status().s).toMatchObject({ state: "failed", gaveUpAfter: START_FAILED_MAX_ATTEMPTS });
    writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../servers/stdio-server.ts")).href)});\n`);
    const tools = await toolkit.refresh();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(toolkit.status().s).toMatchObject({ state: "connected" });
    expect(toolkit.status().s).not.toHaveProperty("gaveUpAfter");
    expect(statusEvents(events, "s").at(-1)).toMatchObject({ previous: "failed", state: "connected" });

    const clock = stopwatch();
    await toolkit.close();
    clock.within(5_000, "close() with no background attempt left");
  }, 90_000);

  it("gets no background wait after its last try, where a failure it may recover from always does", () => {
    for (const reason of ["server_start_failed", "spawn_failed"] as const) {
      expect(backgroundDelay(undefined, START_FAILED_MAX_ATTEMPTS - 1, reason)).toBeGreaterThan(0);
      expect(backgroundDelay(undefined, START_FAILED_MAX_ATTEMPTS, reason)).toBeUndefined();
    }
    expect(backgroundDelay(undefined, 1_000, "connection_refused")).toBeGreaterThan(0);
  });
});

describe("docs/configuration.md", () => {
  it("states the rules as the code has them", () => {
    const doc = readFileSync(join(import.meta.dirname, "../../docs/configuration.md"), "utf8");
    expect(doc).toContain(`at least half of its last ${HEALTH_WINDOW} counted calls (${DEGRADED_MIN_CALLS} at the fewest)`);
    expect(doc).toContain(`${START_FAILED_MAX_ATTEMPTS} connect attempts in a row`);
  });
});

/**
 * The breaker's rates across a fleet, on a real redis-server (Unix socket, temp dir): two
 * toolkits in this process, the two workers, each with its own Redis client, put their calls in
 * one window, so the fleet's circuit opens on a rate that neither worker reaches alone (each holds
 * fewer calls than `minimumCalls`). Real SDK servers over streamable HTTP; the flaky one answers
 * 503 to 40% of its tool calls (test/servers/flaky.ts). No assertion measures time.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpToolError, McpToolkit, type BreakerOptions, type McpEvent, type McpToolkitConfig } from "../../src/index.js";
import { FleetState } from "../../src/fleet/FleetState.js";
import { serverKeys } from "../../src/fleet/keys.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startFlakyEndpoint } from "../servers/flaky.js";
import { startHttpFixture } from "../servers/http.js";
import { RedisProcess, redisServerFound } from "./redis.js";

const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared rate breaker tests are skipped (apt-get install redis-server; CI installs it).");

const cleanups = closeAfterEach();
/** Open periods out of reach: what happens while the fleet's circuit is open is the subject. */
const staysOpen = { initialHalfOpenAfterMs: 60_000, halfOpenAfterMs: 60_000 };

describe.skipIf(skip)("the breaker's rates, shared by a fleet", () => {
  let redis: RedisProcess;
  let admin: Redis;
  let run = 0;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
    admin = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
    admin.on("error", () => undefined);
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  /** Two workers of one configuration, each with its own Redis client; patient with Redis, as a loaded machine needs. */
  async function workers(config: Omit<McpToolkitConfig, "sharedState">, keyPrefix: string): Promise<McpToolkit[]> {
    return Promise.all(
      [0, 1].map(async () => {
        const client = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
        client.on("error", () => undefined);
        const events: McpEvent[] = [];
        const toolkit = await McpToolkit.connect({
          ...config,
          onEvent: (e) => events.push(e),
          sharedState: { redis: client, keyPrefix, refreshMs: 20, commandTimeoutMs: 2_000, leaseDeadlineMs: 500 },
        });
        cleanups.push(async () => {
          await toolkit.close();
          client.disconnect();
        });
        await eventually(() => expect(events).toContainEqual({ type: "shared_state", status: "available" }));
        return toolkit;
      }),
    );
  }

  /** The server's key named `name` (`window`, `tripped`…), once it exists. */
  const keyOf = async (keyPrefix: string, server: string, name: string) => (await admin.keys(`${keyPrefix}:{${server}:*}:${name}`))[0];

  it("opens for both workers on a 40% failure rate over their shared window, and the fallback answers while it is open", async () => {
    const keyPrefix = `rate${++run}`;
    const flaky = await startFlakyEndpoint();
    const backup = await startHttpFixture();
    cleanups.push(() => flaky.close(), () => backup.close());
    const breaker: BreakerOptions = { failureRate: 0.3, window: { calls: 20 }, ...staysOpen };
    const pair = await workers(
      {
        servers: {
          primary: { transport: "http", url: flaky.url.href, fallback: "backup", breaker },
          backup: { transport: "http", url: backup.url.href, exposeTools: false },
        },
        retry: { retries: 0 },
      },
      keyPrefix,
    );
    let ids = 0;
    const echo = async (worker: number) => {
      const reply = (await pair[worker]!.getTool("echo")!.invoke({ type: "tool_call", id: `c${++ids}`, name: "echo", args: { text: "x" } })) as ToolMessage;
      return (reply.artifact ?? {}) as { fallback?: { reason: string } };
    };

    // Eight calls, four from each worker, half of them failed: under minimumCalls (10), so nothing opens.
    for (let i = 0; i < 8; i++) await echo(i % 2);
    await eventually(async () => expect(await admin.llen((await keyOf(keyPrefix, "primary", "window"))!)).toBe(8));
    expect(await keyOf(keyPrefix, "primary", "tripped")).toBeUndefined();

    // Four more: the fleet's window reaches ten calls, four of them failed, and the fleet opens.
    for (let i = 8; i < 12; i++) await echo(i % 2);
    await eventually(async () => expect(await keyOf(keyPrefix, "primary", "tripped")).toBeDefined());
    // Opening emptied the window.
    expect(await keyOf(keyPrefix, "primary", "window")).toBeUndefined();
    // Neither worker's own breaker opened: six calls each are under minimumCalls.
    expect(pair.map((toolkit) => toolkit.circuitState("primary"))).toEqual(["closed", "closed"]);

    // Each worker sees the fleet open (within a refresh), and its calls go to the fallback.
    for (const worker of [0, 1]) await eventually(async () => expect((await echo(worker)).fallback?.reason).toBe("circuit_open"));
    const sent = flaky.toolCalls();
    for (let i = 0; i < 6; i++) expect((await echo(i % 2)).fallback?.reason).toBe("circuit_open");
    // The failing server was not asked while the fleet's circuit was open.
    expect(flaky.toolCalls()).toBe(sent);
  }, 30_000);

  it("opens for both workers on the slow-call rate over a shared time window", async () => {
    const keyPrefix = `rate${++run}`;
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    const pair = await workers(
      {
        servers: { remote: { transport: "http", url: http.url.href, breaker: { slowCallRate: 0.5, slowCallMs: 100, minimumCalls: 4, window: { ms: 60_000 }, ...staysOpen } } },
        retry: { retries: 0 },
        errors: { mode: "throw" },
      },
      keyPrefix,
    );
    const slow = (worker: number) => pair[worker]!.getTool("slow")!.invoke({ ms: 300 });
    // Two answered calls of 300 ms from each worker: four slow calls in the fleet's window, two in each worker's.
    expect(await Promise.all([slow(0), slow(0), slow(1), slow(1)])).toEqual(Array(4).fill("slept 300"));
    await eventually(async () => expect(await keyOf(keyPrefix, "remote", "tripped")).toBeDefined());
    expect(pair.map((toolkit) => toolkit.circuitState("remote"))).toEqual(["closed", "closed"]);

    const refusal = (worker: number) => slow(worker).then(() => undefined, (error: unknown) => (error instanceof McpToolError ? error.reason : String(error)));
    for (const worker of [0, 1]) await eventually(async () => expect(await refusal(worker)).toBe("circuit_open"));
    const ran = http.state.calls.length;
    expect(await Promise.all([refusal(0), refusal(1)])).toEqual(["circuit_open", "circuit_open"]);
    expect(http.state.calls.length).toBe(ran);
  }, 30_000);

  describe("the window in Redis", () => {
    const config = { transport: "http" as const, url: "http://127.0.0.1:9/mcp" };
    const down = McpToolError.of("service_unavailable", "HTTP 503", { status: 503 });

    /** Two processes' shared state of one server with these breaker options, the first one's id, and the server's keys. */
    async function fleetOf(breaker: BreakerOptions) {
      const keyPrefix = `window${++run}`;
      const states = [new FleetState({ redis: admin, keyPrefix }, () => undefined), new FleetState({ redis: admin, keyPrefix }, () => undefined)];
      const [a, b] = states.map((s) => s.server("upstream", config, { ...breaker, ...staysOpen }));
      for (const s of states) s.close();
      const [open, tripped, , , window] = serverKeys(keyPrefix, "upstream", config);
      await vi.waitFor(() => expect([a!.state(), b!.state()]).toEqual(["closed", "closed"]));
      return { a: a!, b: b!, member: states[0]!.member, open: open!, tripped: tripped!, window: window! };
    }

    it("keeps a count window's last calls, and opens only on failures from minProcesses processes", async () => {
      const fleet = await fleetOf({ failureRate: 0.5, minimumCalls: 2, window: { calls: 4 } });
      // One process's failures alone, at a 100% rate: its own view, not the fleet's.
      for (let i = 0; i < 6; i++) fleet.a.report("failure", down, false, false);
      await eventually(async () => expect(await admin.lrange(fleet.window, 0, -1)).toEqual(Array(4).fill(`10${fleet.member}`)));
      expect(await admin.exists(fleet.tripped)).toBe(0);
      fleet.b.report("failure", down, false, false);
      await eventually(async () => expect(await admin.exists(fleet.tripped)).toBe(1));
      // Opened by a rate: no recovery ping ends this period (see PINGED).
      expect(await admin.get(fleet.open)).toBe("rate");
      expect(await admin.exists(fleet.window)).toBe(0);
    });

    it("puts nothing in the window while the fleet is open, and starts afresh once its test closes it", async () => {
      const fleet = await fleetOf({ failureRate: 0.5, minimumCalls: 2, window: { ms: 60_000 } });
      fleet.a.report("failure", down, false, false);
      fleet.b.report("failure", down, false, true);
      await eventually(async () => expect(await admin.exists(fleet.tripped)).toBe(1));
      // The processes' timers are stopped: each learns the state from its own replies.
      await fleet.a.refresh();
      expect(fleet.a.state()).toBe("open");
      fleet.a.report("healthy", undefined, false, false);
      fleet.b.report("failure", down, false, false);
      // The open period ends; the test answers, and the fleet closes.
      await admin.del(fleet.open);
      await eventually(async () => expect(await fleet.a.lease()).toBe("test"));
      fleet.a.report("healthy", undefined, true, false);
      await eventually(async () => expect(await admin.exists(fleet.tripped)).toBe(0));
      expect(await admin.exists(fleet.window)).toBe(0);
      await fleet.b.refresh();
      expect(fleet.b.state()).toBe("closed");
      fleet.b.report("healthy", undefined, false, false);
      // A time window: one bucket's call count, nothing failed.
      await eventually(async () => expect(Object.values(await admin.hgetall(fleet.window))).toEqual(["1"]));
    });
  });
});

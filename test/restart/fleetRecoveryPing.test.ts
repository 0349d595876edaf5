/**
 * The fleet's circuit closes as soon as the server is well, too. Two toolkits (two processes'
 * worth: each its own fleet member) share a real redis-server; a gateway answers 503 to every
 * request for 20 s while 8 callers each call in a loop. The fleet's circuit opens, and its open
 * period doubles as a process breaker's does. The processes take turns (a key in Redis) to ping
 * the server, about once a second for the whole fleet; the first answer ends the fleet's open
 * period at once, so the next call of any process takes the half-open lease, and one real call
 * tests the server and closes the circuit for every process. Before, the ping ended only the
 * process's own period, and the fleet's held (8.7 and 8.6 s after the recovery, measured).
 *
 * FLEET_PING_MS=0 runs the same scenario with the pings off, to measure the old rule.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { RedisProcess } from "../fleet/redis.js";
import { startHttpFixture } from "../servers/http.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";

const cleanups: (() => Promise<void>)[] = [];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const OUTAGE_MS = 20_000;
const CALLERS = 8;
const PING_EVERY_MS = Number(process.env.FLEET_PING_MS ?? 1000);

let redis: RedisProcess;
let client: Redis;
beforeAll(async () => {
  redis = await new RedisProcess().start();
  client = new Redis({ path: redis.socket, lazyConnect: true });
  await client.connect();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  client?.disconnect();
  await redis?.stop();
});

describe("a fleet of two processes, a server that answers 503 to everything for 20 s, then recovers", () => {
  it("pings it about once a second for the whole fleet while down, and the fleet's circuit closes within a ping's interval of its recovery", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    let down = false;
    const proxy = await startFaultProxy(http.url, { outage: () => (down ? { kind: "status", when: "before", status: 503, body: "upstream unavailable" } : undefined) });
    cleanups.push(() => proxy.close());
    const events: { at: number; type: McpEvent["type"]; member: number }[] = [];
    const keyPrefix = `fleet-ping-${process.pid}-${Date.now()}`;
    const toolkits = await Promise.all(
      [0, 1].map(async (member) => {
        const toolkit = await McpToolkit.connect({
          servers: { s: { transport: "http", url: proxy.url.href } },
          breaker: { recoveryPingMs: PING_EVERY_MS },
          sharedState: { redis: client, keyPrefix, commandTimeoutMs: 2_000, leaseDeadlineMs: 500 },
          onEvent: (e) => events.push({ at: performance.now(), type: e.type, member }),
        });
        cleanups.push(() => toolkit.close());
        return toolkit;
      }),
    );
    const echoes = toolkits.map((t) => t.getTool("echo")!);

    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      expect(String(await echoes[i % 2]!.invoke({ text: "warm" }))).toBe("warm");
      times.push(performance.now() - t);
    }
    const p50 = times.sort((a, b) => a - b)[10]!;

    const seenBefore = proxy.seen.length;
    down = true;
    const downAt = performance.now();
    let upAt = Number.POSITIVE_INFINITY;
    const firstSuccess = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    let stopAt = Number.POSITIVE_INFINITY;
    const caller = (member: number) => async () => {
      while (performance.now() < stopAt) {
        if (String(await echoes[member]!.invoke({ text: "x" })) === "x" && performance.now() > upAt) {
          firstSuccess[member] = Math.min(firstSuccess[member]!, performance.now());
          if (firstSuccess.every(Number.isFinite) && stopAt === Number.POSITIVE_INFINITY) stopAt = performance.now() + 300;
        }
        await sleep(0);
      }
    };
    const callers = Promise.all([0, 1].flatMap((m) => Array.from({ length: CALLERS }, caller(m))));
    await sleep(OUTAGE_MS);
    const seenDown = proxy.seen.slice(seenBefore);
    upAt = performance.now();
    down = false;
    const deadline = setTimeout(() => (stopAt = Math.min(stopAt, performance.now())), 40_000);
    await callers;
    clearTimeout(deadline);

    const outageS = (upAt - downAt) / 1000;
    const pings = seenDown.filter((r) => r.rpc === "ping").length;
    const calls = seenDown.filter((r) => r.rpc === "tools/call").length;
    const late = firstSuccess.map((at) => at - upAt);
    console.log(`fleet, pings every ${PING_EVERY_MS} ms: outage ${outageS.toFixed(1)} s, ${pings} pings, ${calls} tools/call sent; first success per process ${late.map((l) => l.toFixed(0)).join(" and ")} ms after recovery (call p50 ${p50.toFixed(1)} ms)`);
    if (PING_EVERY_MS === 0) return;
    // About one ping a second for the fleet while down (the processes take turns), and some.
    expect(pings, "pings while down").toBeGreaterThan(outageS / 3);
    expect(pings, "pings while down").toBeLessThanOrEqual(Math.ceil(outageS) + 2);
    // Both processes succeed within a ping's interval (and the ping, the lease and the test) of the recovery.
    for (const l of late) expect(l, "first success after recovery, ms").toBeLessThanOrEqual(PING_EVERY_MS + 1000 + 10 * p50);
    expect(events.some((e) => e.type === "circuit_close" && e.at >= upAt), "a circuit closed after the recovery").toBe(true);
  }, 120_000);
});

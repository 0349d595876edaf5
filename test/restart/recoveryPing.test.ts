/**
 * A breaker that closes as soon as the server is well (issue 45, item 2). A gateway answers 503
 * to every request (tools/call, ping, initialize alike) for 20 s while 16 callers call in a loop
 * with the default settings. The circuit opens; its open period doubles from 100 ms (0.1, 0.2,
 * 0.4 … 12.8 s, each up to 1.2× with jitter), so its last tests fall 12.7–15.2 s and 25.5–30.6 s
 * into the outage. Without the recovery ping, the first success after the server is back at
 * 20 s waits for that test: 9.8 s after the recovery in the run on the old rule. With it, the
 * server is pinged about once a second while down, and the first answer ends the open period,
 * so the next call tests it and succeeds (0.4 s). A 30 s outage, the figure, can end
 * where a test of the doubling schedule falls, and let the old rule pass by chance; 20 s cannot.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { startHttpFixture } from "../servers/http.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const OUTAGE_MS = 20_000;
const CALLERS = 16;
/** The default `recoveryPingMs`. */
const PING_EVERY_MS = 1000;

describe("a server that answers 503 to everything for 20 s, then recovers, under 16 callers in a loop", () => {
  it("is pinged about once a second while down, succeeds within a ping's interval of its recovery, and retries stay within the budget", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    let down = false;
    const proxy = await startFaultProxy(http.url, {
      outage: () => (down ? { kind: "status", when: "before", status: 503, body: "upstream unavailable" } : undefined),
    });
    cleanups.push(() => proxy.close());
    const events: { at: number; type: McpEvent["type"] }[] = [];
    const toolkit = await McpToolkit.connect({ servers: { s: { transport: "http", url: proxy.url.href } }, onEvent: (e) => events.push({ at: performance.now(), type: e.type }) });
    cleanups.push(() => toolkit.close());
    const echo = toolkit.getTool("echo")!;

    // The calibration: a call's time on this machine, now.
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      expect(String(await echo.invoke({ text: "warm" }))).toBe("warm");
      times.push(performance.now() - t);
    }
    const p50 = times.sort((a, b) => a - b)[10]!;

    const seenBefore = proxy.seen.length;
    down = true;
    const downAt = performance.now();
    let upAt = Number.POSITIVE_INFINITY;
    let firstSuccessAt = Number.POSITIVE_INFINITY;
    let stopAt = Number.POSITIVE_INFINITY;
    const caller = async () => {
      while (performance.now() < stopAt) {
        const answer = String(await echo.invoke({ text: "x" }));
        if (answer === "x") {
          firstSuccessAt = Math.min(firstSuccessAt, performance.now());
          if (stopAt === Number.POSITIVE_INFINITY) stopAt = performance.now() + 500;
        }
        // A refused call answers at once: a caller that yields nothing between calls would starve the timers.
        await sleep(0);
      }
    };
    const callers = Promise.all(Array.from({ length: CALLERS }, caller));
    await sleep(OUTAGE_MS);
    const seenDown = proxy.seen.slice(seenBefore);
    upAt = performance.now();
    down = false;
    // Bound the run: a first success that never comes ends it at 40 s past the recovery.
    const deadline = setTimeout(() => (stopAt = Math.min(stopAt, performance.now())), 40_000);
    await callers;
    clearTimeout(deadline);

    const outageS = (upAt - downAt) / 1000;
    const pings = seenDown.filter((r) => r.rpc === "ping").length;
    const retries = events.filter((e) => e.type === "retry" && e.at >= downAt && e.at < upAt).length;
    const late = firstSuccessAt - upAt;
    console.log(
      `outage ${outageS.toFixed(1)} s: ${pings} pings, ${seenDown.filter((r) => r.rpc === "tools/call").length} tools/call sent, ${retries} retries; ` +
        `first success ${late.toFixed(0)} ms after recovery (call p50 ${p50.toFixed(1)} ms)`,
    );
    // At most about one ping a second while the server is down, and some: it was asked.
    expect(pings, "pings while down").toBeGreaterThan(outageS / 2);
    expect(pings, "pings while down").toBeLessThanOrEqual(Math.ceil(outageS) + 1);
    // Retries within the default budget: 500 tokens, 5 a retry.
    expect(retries, "retries while down").toBeLessThanOrEqual(100);
    // The first success comes within a ping's interval (and the ping, and the test) of the recovery.
    expect(late, "first success after recovery, ms").toBeLessThanOrEqual(PING_EVERY_MS + 500 + 10 * p50);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(events.some((e) => e.type === "circuit_close" && e.at >= upAt), "the circuit closed after the recovery").toBe(true);
  }, 90_000);
});

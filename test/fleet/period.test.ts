/**
 * The fleet's open period, on a real redis-server (Unix socket, temp dir), follows the process
 * breaker's rule (src/policy/openPeriod.ts): the first opening lasts `initialHalfOpenAfterMs`,
 * each after a failed test twice the last, up to `halfOpenAfterMs`; a refused server keeps the
 * first. Read from the `open` key's PTTL; the end of a period is made by deleting the key, so
 * no assertion waits for a timer or measures time.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { FleetState } from "../../src/fleet/FleetState.js";
import { serverKeys } from "../../src/fleet/keys.js";
import type { SharedServer } from "../../src/fleet/SharedServer.js";
import { RedisProcess, redisServerFound } from "./redis.js";

const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared open period tests are skipped (apt-get install redis-server; CI installs it).");

describe.skipIf(skip)("the fleet's open period", () => {
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

  const config = { transport: "http" as const, url: "http://127.0.0.1:9/mcp" };
  // Periods of 10 s and more: each PTTL is read at once after the report that set it, and a busy
  // machine may take seconds to get there, which must not cross into the next period's range.
  const breaker = { failureThreshold: 2, initialHalfOpenAfterMs: 10_000, halfOpenAfterMs: 30_000, halfOpenJitter: 0 };

  /** Two processes' shared state of one server, and its `open` and `tripped` keys. */
  async function fleetOf(): Promise<{ a: SharedServer; b: SharedServer; open: string; tripped: string }> {
    const keyPrefix = `period${++run}`;
    const states = [new FleetState({ redis: admin, keyPrefix }, () => undefined), new FleetState({ redis: admin, keyPrefix }, () => undefined)];
    const [a, b] = states.map((s) => s.server("upstream", config, breaker));
    for (const s of states) s.close();
    const [open, tripped] = serverKeys(keyPrefix, "upstream", config);
    await vi.waitFor(() => expect(a!.state()).toBe("closed"), { timeout: 10_000 });
    return { a: a!, b: b!, open: open!, tripped: tripped! };
  }

  /** The open period now set, in ms, once the report that sets it has landed. */
  async function periodAfter(open: string, tripped: string, openings: number): Promise<number> {
    await vi.waitFor(async () => expect(Number(await admin.get(tripped))).toBe(openings), { timeout: 10_000 });
    return admin.pttl(open);
  }

  /** Ends the open period (as its PTTL would), takes the fleet's test and fails it with `error`. */
  async function failTest(fleet: { a: SharedServer; open: string }, error: McpToolError): Promise<void> {
    await admin.del(fleet.open);
    await vi.waitFor(async () => expect(await fleet.a.lease()).toBe("test"), { timeout: 10_000 });
    fleet.a.report("failure", error, true);
  }

  it("starts at initialHalfOpenAfterMs and doubles after each failed test, up to halfOpenAfterMs", async () => {
    const fleet = await fleetOf();
    const down = McpToolError.of("service_unavailable", "HTTP 503", { status: 503 });
    fleet.a.report("failure", down, false);
    fleet.b.report("failure", down, false);
    // Before, the fleet opened for halfOpenAfterMs (30 s) at once.
    const first = await periodAfter(fleet.open, fleet.tripped, 1);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(10_000);
    expect(await admin.get(fleet.open)).toBe("open");

    await failTest(fleet, down);
    const second = await periodAfter(fleet.open, fleet.tripped, 2);
    expect(second).toBeGreaterThan(10_000);
    expect(second).toBeLessThanOrEqual(20_000);

    await failTest(fleet, down);
    const third = await periodAfter(fleet.open, fleet.tripped, 3);
    expect(third).toBeGreaterThan(20_000);
    expect(third).toBeLessThanOrEqual(30_000);
  });

  it("keeps the first period for a server that refuses the connection, and says why it is open", async () => {
    const fleet = await fleetOf();
    const refused = McpToolError.of("connection_refused", "ECONNREFUSED");
    fleet.a.report("failure", refused, false);
    fleet.b.report("failure", refused, false);
    expect(await periodAfter(fleet.open, fleet.tripped, 1)).toBeLessThanOrEqual(10_000);
    // A process that sees the port listen again may take the test before the period ends.
    expect(await admin.get(fleet.open)).toBe("refused");
    expect(await fleet.b.lease()).toBe("open");
    expect(await fleet.b.lease(true)).toBe("test");
    fleet.b.report("failure", refused, true);
    expect(await periodAfter(fleet.open, fleet.tripped, 2)).toBeLessThanOrEqual(10_000);
    await failTest(fleet, refused);
    expect(await periodAfter(fleet.open, fleet.tripped, 3)).toBeLessThanOrEqual(10_000);
  });
});

/**
 * A Redis reply that arrived in time is not a timeout, even when the event loop reads it late.
 * After a stall (a long synchronous task, a busy machine that kept the process off the CPU),
 * Node runs the timers that expired meanwhile before it reads the I/O that arrived meanwhile:
 * the command's timer used to win, and a healthy Redis was reported `unavailable`. A real
 * redis-server (its own process, so it answers while this one is blocked) and ioredis.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpEvent } from "../../src/index.js";
import { scriptRunner } from "../../src/fleet/redis.js";
import { SNAPSHOT } from "../../src/fleet/scripts.js";
import { Store } from "../../src/fleet/Store.js";
import { RedisProcess } from "./redis.js";
import { blockLoop } from "../support/blockLoop.js";

const COMMAND_TIMEOUT_MS = 100;
const KEYS = ["mcp:stall:circuit", "mcp:stall:trips", "mcp:stall:lease", "mcp:stall:gate"];

describe("a shared-state command across a stalled event loop", () => {
  let redis: RedisProcess;
  let client: Redis;
  beforeAll(async () => {
    redis = await new RedisProcess().start();
    client = new Redis({ path: redis.socket, lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it("settles with Redis's reply, and Redis stays available", async () => {
    const events: McpEvent[] = [];
    const store = new Store(scriptRunner(client), COMMAND_TIMEOUT_MS, (e) => events.push(e));
    // Calibration: a round trip now. The stall lasts the timeout and 20 round trips more, so the
    // reply is in by its end however loaded the machine is.
    const started = performance.now();
    expect(await store.run(SNAPSHOT, KEYS, [])).toBeDefined();
    const stallMs = COMMAND_TIMEOUT_MS + Math.max(400, 20 * (performance.now() - started));
    const outcomes: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = store.run(SNAPSHOT, KEYS, []);
      await blockLoop(stallMs);
      outcomes.push((await reply) !== undefined);
    }
    expect(outcomes).toEqual([true, true, true, true, true]);
    expect(events.filter((e) => e.type === "shared_state" && e.status === "unavailable")).toEqual([]);
  });
});

/**
 * A fleet of 8 worker processes against one MCP server, with and without shared state on a
 * real redis-server (on a Unix socket in a temp dir). Assertions count attempts, tests and
 * outcomes; none measures time, so a loaded machine slows them without failing them.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { FleetState } from "../../src/fleet/FleetState.js";
import { credentialHash } from "../../src/fleet/keys.js";
import { Fleet, type WorkerResult } from "./fleet.js";
import type { SharedSetup } from "./protocol.js";
import { RedisProcess, redisServerFound } from "./redis.js";
import { FleetUpstream } from "./server.js";

const WORKERS = 8;
const THRESHOLD = 3;
// Outside CI a missing redis-server skips these tests; in CI (which installs it) it fails them.
const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared-state tests are skipped (apt-get install redis-server; CI installs it).");

describe.skipIf(skip)(`a fleet of ${WORKERS} processes sharing state on Redis${skip ? " (skipped: no redis-server on PATH)" : ""}`, () => {
  let redis: RedisProcess;
  let upstream: FleetUpstream;
  let fleet: Fleet;
  let admin: Redis;
  let run = 0;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
    admin = new Redis({ path: redis.socket, lazyConnect: true, maxRetriesPerRequest: 1 });
    admin.on("error", () => undefined);
    upstream = await new FleetUpstream().start();
    fleet = await Fleet.start(WORKERS);
  });

  afterAll(async () => {
    await fleet?.close();
    admin?.disconnect();
    await upstream?.close();
    await redis?.stop();
  });

  /** Half the workers on ioredis, half on node-redis: both clients in one fleet. Fresh keys per run. */
  const shared =
    (options: SharedSetup["options"] = {}) =>
    (i: number): SharedSetup => ({ socket: redis.socket, client: i % 2 === 0 ? "ioredis" : "node-redis", options: { keyPrefix: `run${run}`, ...options } });

  // A fixed open period (the first as long as the longest), so tests count intervals.
  const config = (halfOpenAfterMs: number) => ({
    breaker: { failureThreshold: THRESHOLD, initialHalfOpenAfterMs: halfOpenAfterMs, halfOpenAfterMs, halfOpenJitter: 0 },
    // Backoffs long enough that a worker hears the fleet's reply before its next attempt.
    retry: { retries: 2, minTimeout: 200, maxTimeout: 2000, randomize: false },
  });

  async function deadRun(mode: "local" | "shared", halfOpenAfterMs: number, durationMs: number): Promise<{ attempts: number; results: WorkerResult[]; runMs: number }> {
    run++;
    upstream.mode = "up";
    await fleet.connect(upstream.url, config(halfOpenAfterMs), mode === "shared" ? shared({ leaseDeadlineMs: 1000 }) : undefined);
    upstream.mode = "down";
    upstream.deadAttempts = 0;
    const { startAt, results } = fleet.run({ paceMs: 100, durationMs });
    const out = await results;
    // Calls that wait for the circuit's test end after the last one began: the run lasts until then.
    const runMs = Math.max(durationMs, ...out.flatMap((r) => r.calls.map((c) => c.end - startAt)));
    return { attempts: upstream.deadAttempts, results: out, runMs };
  }

  it("sends at most failureThreshold + workers attempts to a dead server, where per-process breakers send workers × failureThreshold", async () => {
    const local = await deadRun("local", 60_000, 1200);
    const fleetWide = await deadRun("shared", 60_000, 1200);
    expect(local.attempts).toBeGreaterThanOrEqual(WORKERS * THRESHOLD);
    expect(fleetWide.attempts).toBeLessThanOrEqual(THRESHOLD + WORKERS);
    // Every call after the opening was refused without reaching the server.
    for (const r of fleetWide.results) expect(r.calls.at(-1)?.outcome).toBe("circuit_open");
  });

  it("lets one half-open test through per interval, for the whole fleet", async () => {
    const interval = 400;
    const durationMs = 2000;
    const { attempts, results, runMs } = await deadRun("shared", interval, durationMs);
    const tests = results.reduce((n, r) => n + (r.counts.half_open ?? 0), 0);
    expect(tests).toBeGreaterThanOrEqual(1);
    // Intervals that ended within the run (plus the one a slow machine may stretch it into).
    expect(tests).toBeLessThanOrEqual(Math.ceil(runMs / interval) + 1);
    expect(attempts).toBeLessThanOrEqual(THRESHOLD + WORKERS + tests);
  });

  async function outcomes(mode: "local" | "shared", fault?: (r: RedisProcess) => void | Promise<void>): Promise<{ outcomes: string[][]; results: WorkerResult[] }> {
    run++;
    upstream.mode = "up";
    await fleet.connect(upstream.url, config(1000), mode === "shared" ? shared({ commandTimeoutMs: 100 }) : undefined);
    const { results } = fleet.run({ paceMs: 20, calls: 30 });
    if (fault) setTimeout(() => void fault(redis), 400);
    const out = await results;
    return { outcomes: out.map((r) => r.calls.map((c) => c.outcome)), results: out };
  }

  it("gives every call the same result with Redis hung mid-run (SIGSTOP) as with no Redis", async () => {
    const alone = await outcomes("local");
    const hung = await outcomes("shared", (r) => r.pause());
    redis.resume();
    expect(hung.outcomes).toEqual(alone.outcomes);
    expect(alone.outcomes.flat()).toContain("tool_error");
    // The workers noticed: the results are the same although Redis stopped answering.
    expect(hung.results.some((r) => (r.counts["shared_state:unavailable"] ?? 0) > 0)).toBe(true);
  });

  it("puts a TTL on every key, in one Cluster slot per server, and the short-lived ones expire", async () => {
    await admin.connect().catch(() => undefined);
    // Two processes' worth of evidence opens the circuit; a 429 starts a shared wait.
    const emit = () => undefined;
    const config = { transport: "http" as const, url: upstream.url };
    const breaker = { failureThreshold: 2, halfOpenAfterMs: 300, halfOpenJitter: 0 };
    const states = [new FleetState({ redis: admin, keyPrefix: "ttl" }, emit), new FleetState({ redis: admin, keyPrefix: "ttl" }, emit)];
    const [a, b] = states.map((s) => s.server("upstream", config, breaker));
    const refused = McpToolError.of("connection_refused", "ECONNREFUSED");
    a!.report("failure", refused, false);
    b!.report("failure", refused, false);
    a!.note(400);
    await vi.waitFor(async () => expect(await admin.exists("ttl:{upstream:" + credentialHash(config) + "}:open")).toBe(1));
    for (const s of states) s.close();

    const keys = await admin.keys("ttl:*");
    expect(keys.sort()).toEqual(["open", "tripped", "wait"].map((k) => `ttl:{upstream:${credentialHash(config)}}:${k}`));
    for (const key of keys) {
      const ttl = await admin.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      // The longest is the `tripped` marker's: at least 10 s, else ten open periods.
      expect(ttl, key).toBeLessThanOrEqual(10_000);
    }
    await vi.waitFor(async () => expect(await admin.exists(keys.filter((k) => !k.endsWith(":tripped")))).toBe(0), { timeout: 5000 });
  });

  it("gives every call the same result with Redis killed mid-run as with no Redis", async () => {
    const alone = await outcomes("local");
    const killed = await outcomes("shared", (r) => r.kill());
    expect(killed.outcomes).toEqual(alone.outcomes);
    expect(killed.results.some((r) => (r.counts["shared_state:unavailable"] ?? 0) > 0)).toBe(true);
  });
});

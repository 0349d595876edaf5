/**
 * A fleet of 8 worker processes against one MCP server, with and without shared state on a
 * real redis-server (on a Unix socket in a temp dir). Assertions count attempts, tests and
 * outcomes; none measures time, so a loaded machine slows them without failing them. What does
 * take time (the tests' limits, how long Redis may take to answer before it counts as away) is
 * a multiple of how long a worker process takes to start, measured as the file is collected.
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

/**
 * The calibration: how long one worker process takes to start here and now (mostly loading its
 * bundle: CPU, which a busy machine stretches as it stretches everything the workers do). It is
 * measured before the tests are defined, since vitest fixes a test's time limit then.
 */
async function workerStartMs(): Promise<number> {
  const probe = await Fleet.start(1);
  await probe.close();
  return probe.startMs;
}
const START_MS = skip ? 0 : await workerStartMs();
/** A test's limit: the waits it schedules itself, and the CPU of 40 worker starts at this machine's speed now. */
const limit = (scheduledMs: number) => scheduledMs + 40 * START_MS;
/** How long Redis may take to answer a worker before it counts as away: a busy machine's pause is not an outage. */
const REDIS_PATIENCE_MS = Math.max(500, 2 * START_MS);

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
  }, limit(10_000));

  afterAll(async () => {
    await fleet?.close();
    admin?.disconnect();
    await upstream?.close();
    await redis?.stop();
  }, limit(10_000));

  /** Half the workers on ioredis, half on node-redis: both clients in one fleet. Fresh keys per run. */
  const shared =
    (options: SharedSetup["options"] = {}) =>
    (i: number): SharedSetup => ({ socket: redis.socket, client: i % 2 === 0 ? "ioredis" : "node-redis", options: { keyPrefix: `run${run}`, ...options } });

  /** Starts run `run + 1`; the check it returns fails once a later test has taken the fleet (this one timed out). */
  function nextRun(): () => void {
    const mine = ++run;
    return () => {
      if (run !== mine) throw new Error(`run ${mine} was overtaken by run ${run}: its test ran out of time`);
    };
  }

  // A fixed open period (the first as long as the longest), so tests count intervals.
  const config = (halfOpenAfterMs: number) => {
    // Backoffs long enough that a worker hears the fleet's reply before its next attempt: on a
    // busy machine a worker can be kept off the CPU long enough for its retry's timer to fire
    // before it reads the reply that came meanwhile, so they grow with the calibration.
    const minTimeout = Math.max(200, START_MS / 2);
    return {
      breaker: { failureThreshold: THRESHOLD, initialHalfOpenAfterMs: halfOpenAfterMs, halfOpenAfterMs, halfOpenJitter: 0 },
      retry: { retries: 2, minTimeout, maxTimeout: Math.max(2000, 4 * minTimeout), randomize: false },
    };
  };

  async function deadRun(mode: "local" | "shared", halfOpenAfterMs: number, durationMs: number): Promise<{ attempts: number; pings: number; results: WorkerResult[]; runMs: number }> {
    const stillMine = nextRun();
    upstream.mode = "up";
    const patience = { leaseDeadlineMs: REDIS_PATIENCE_MS, commandTimeoutMs: REDIS_PATIENCE_MS };
    await fleet.connect(upstream.url, config(halfOpenAfterMs), mode === "shared" ? shared(patience) : undefined);
    stillMine();
    upstream.mode = "down";
    upstream.deadAttempts = 0;
    upstream.deadPings = 0;
    const { startAt, results } = fleet.run({ paceMs: 100, durationMs });
    const out = await results;
    // Calls that wait for the circuit's test end after the last one began: the run lasts until then.
    const runMs = Math.max(durationMs, ...out.flatMap((r) => r.calls.map((c) => c.end - startAt)));
    return { attempts: upstream.deadAttempts, pings: upstream.deadPings, results: out, runMs };
  }

  it("sends at most failureThreshold + workers attempts to a dead server, where per-process breakers send workers × failureThreshold", async () => {
    const local = await deadRun("local", 60_000, 1200);
    const fleetWide = await deadRun("shared", 60_000, 1200);
    expect(local.attempts).toBeGreaterThanOrEqual(WORKERS * THRESHOLD);
    expect(fleetWide.attempts).toBeLessThanOrEqual(THRESHOLD + WORKERS);
    // Every call after the opening was refused without reaching the server.
    for (const r of fleetWide.results) expect(r.calls.at(-1)?.outcome).toBe("circuit_open");
  }, limit(20_000));

  it("lets one half-open test through per interval, for the whole fleet", async () => {
    const interval = 400;
    const durationMs = 2000;
    const { attempts, pings, results, runMs } = await deadRun("shared", interval, durationMs);
    const tests = results.reduce((n, r) => n + (r.counts.half_open ?? 0), 0);
    expect(tests).toBeGreaterThanOrEqual(1);
    // Intervals that ended within the run (plus the one a slow machine may stretch it into).
    expect(tests).toBeLessThanOrEqual(Math.ceil(runMs / interval) + 1);
    expect(attempts).toBeLessThanOrEqual(THRESHOLD + WORKERS + tests);
    // The recovery pings take turns across the fleet: about one a second in all, not one per process.
    expect(pings).toBeLessThanOrEqual(Math.ceil(runMs / 1000) + 1);
  }, limit(20_000));

  const CALLS = 30;

  /** Every worker's outcomes, call by call; `fault` strikes Redis once a quarter of the fleet's calls are answered. */
  async function outcomes(mode: "local" | "shared", fault?: (r: RedisProcess) => void | Promise<void>): Promise<{ outcomes: string[][]; results: WorkerResult[] }> {
    const stillMine = nextRun();
    upstream.mode = "up";
    await fleet.connect(upstream.url, config(1000), mode === "shared" ? shared({ commandTimeoutMs: 100 }) : undefined);
    stillMine();
    const served = upstream.served;
    const { results } = fleet.run({ paceMs: 20, calls: CALLS });
    // Mid-run counted in calls, not in ms, so that a slow start cannot put the fault before the
    // first call or a fast machine after the last: three quarters of the calls are still to come.
    const midRun = async () => {
      if (!fault) return;
      await vi.waitFor(() => expect(upstream.served - served).toBeGreaterThanOrEqual((WORKERS * CALLS) / 4), { interval: 5, timeout: limit(5_000) });
      void fault(redis);
    };
    const [out] = await Promise.all([results, midRun()]);
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
  }, limit(20_000));

  it("puts a TTL on every key, in one Cluster slot per server, and the short-lived ones expire", async () => {
    await admin.connect().catch(() => undefined);
    // Redis says what happens to each key as it happens (writes, TTLs, expiries), so no read here
    // races a short TTL: a busy machine can take longer than the TTL between two commands.
    await admin.config("SET", "notify-keyspace-events", "Kgxh$");
    const watcher = admin.duplicate();
    watcher.on("error", () => undefined);
    const channel = "__keyspace@0__:";
    const events = new Map<string, string[]>();
    watcher.on("pmessage", (_pattern: string, on: string, event: string) => {
      const key = on.slice(channel.length);
      events.set(key, [...(events.get(key) ?? []), event]);
    });
    await watcher.psubscribe(`${channel}ttl:*`);
    // Two processes' worth of evidence opens the circuit; a 429 starts a shared wait.
    const emit = () => undefined;
    const config = { transport: "http" as const, url: upstream.url };
    const breaker = { failureThreshold: 2, halfOpenAfterMs: 300, halfOpenJitter: 0 };
    const states = [new FleetState({ redis: admin, keyPrefix: "ttl" }, emit), new FleetState({ redis: admin, keyPrefix: "ttl" }, emit)];
    try {
      const [a, b] = states.map((s) => s.server("upstream", config, breaker));
      const refused = McpToolError.of("connection_refused", "ECONNREFUSED");
      a!.report("failure", refused, false);
      b!.report("failure", refused, false);
      a!.note(400);
      const key = (name: string) => `ttl:{upstream:${credentialHash(config)}}:${name}`;
      const waits = { interval: 10, timeout: limit(5_000) };
      const lastWrite = (list: string[]) => list.findLastIndex((e) => !["expire", "expired", "del"].includes(e));
      await vi.waitFor(() => {
        // The evidence counted towards the opening, and went with it.
        expect([...events.keys()].sort()).toEqual(["evidence", "open", "tripped", "wait"].map(key));
        // No write leaves a key without a TTL: after each key's last write, Redis set its expiry.
        for (const [k, list] of events) expect(list.lastIndexOf("expire"), `${k}: ${list.join(", ")}`).toBeGreaterThan(lastWrite(list));
      }, waits);
      // The longest is the `tripped` marker's: at least 10 s, else ten open periods.
      const tripped = await admin.pttl(key("tripped"));
      if (tripped !== -2) expect(tripped).toBeGreaterThan(0);
      expect(tripped).toBeLessThanOrEqual(10_000);
      // The open period and the wait end by themselves.
      await vi.waitFor(() => expect(["open", "wait"].map((k) => events.get(key(k))?.at(-1))).toEqual(["expired", "expired"]), waits);
    } finally {
      for (const s of states) s.close();
      watcher.disconnect();
      await admin.config("SET", "notify-keyspace-events", "");
    }
  }, limit(10_000));

  it("gives every call the same result with Redis killed mid-run as with no Redis", async () => {
    const alone = await outcomes("local");
    const killed = await outcomes("shared", (r) => r.kill());
    expect(killed.outcomes).toEqual(alone.outcomes);
    expect(killed.results.some((r) => (r.counts["shared_state:unavailable"] ?? 0) > 0)).toBe(true);
  }, limit(20_000));
});

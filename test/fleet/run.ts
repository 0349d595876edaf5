/**
 * `npm run fleet`: N worker processes (default 50) against one MCP server that goes down,
 * rate-limits and comes back, with per-process breakers and then with state shared on a
 * redis-server this script starts on a Unix socket; then shared again with Redis killed, hung
 * (SIGSTOP) and flushed mid-outage. Loopback only; bounded in time; every process it starts
 * is stopped before it exits, on an error or Ctrl-C too.
 *
 *   npm run fleet [-- --workers 50]     (FLEET_ONLY="shared" runs one mode alone)
 */
import { Redis } from "ioredis";
import { Fleet, type WorkerResult } from "./fleet.js";
import type { SharedSetup } from "./protocol.js";
import { RedisProcess, redisServerFound } from "./redis.js";
import { FleetUpstream, type UpstreamMode } from "./server.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const WORKERS = Number(arg("workers") ?? 50);
// A fixed 1 s open period (initial = longest), the same rule for both breakers, so each mode resumes within one period.
const BREAKER = { failureThreshold: 5, initialHalfOpenAfterMs: 1000, halfOpenAfterMs: 1000, halfOpenJitter: 0.2 };
const REFRESH_MS = 100;
const PACE_MS = 200;
/** The upstream's timeline, from the moment every worker starts calling. */
const PHASES: [UpstreamMode, number][] = [
  ["up", 500],
  ["down", 3000],
  ["limited", 1500],
  ["up", 4000],
];
const RECOVERY_MS = 500 + 3000 + 1500;
const RUN_MS = PHASES.reduce((t, [, ms]) => t + ms, 0);
/** Redis faults strike in the middle of the outage. */
const FAULT_AT_MS = 1500;
const LIMIT_MS = 10 * 60_000;

type Variant = { name: string; shared: boolean; fault?: "kill" | "hang" | "flush" };
const ALL_VARIANTS: Variant[] = [
  { name: "per-process", shared: false },
  { name: "shared", shared: true },
  { name: "shared, Redis killed", shared: true, fault: "kill" },
  { name: "shared, Redis hung (SIGSTOP)", shared: true, fault: "hang" },
  { name: "shared, Redis flushed", shared: true, fault: "flush" },
];
const VARIANTS = process.env.FLEET_ONLY ? ALL_VARIANTS.filter((v) => v.name === process.env.FLEET_ONLY) : ALL_VARIANTS;

interface Row {
  name: string;
  dead: number;
  limited: number;
  resumeMedian: number;
  resumeMax: number;
  failedAfterRecovery: number;
  calls: number;
}

const upstream = await new FleetUpstream().start();
let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
const cleanup = async () => {
  await fleet?.close().catch(() => undefined);
  redis?.resume();
  await redis?.stop().catch(() => undefined);
  await upstream.close();
};
const deadline = setTimeout(() => {
  console.error(`fleet: over ${LIMIT_MS / 60_000} minutes, stopping`);
  void cleanup().finally(() => process.exit(1));
}, LIMIT_MS);
process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));

try {
  if (!redisServerFound) throw new Error("redis-server is not on PATH (apt-get install redis-server)");
  console.log(`Starting ${WORKERS} workers…`);
  fleet = await Fleet.start(WORKERS);
  const rows: Row[] = [];
  for (const variant of VARIANTS) rows.push(await runVariant(fleet, variant));
  printTable(rows);
} catch (error) {
  // Said in one line, not as a crash's stack ending in Node's banner.
  console.error(`fleet: ${(error as Error)?.message ?? String(error)}`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await cleanup();
}

async function runVariant(fleet: Fleet, variant: Variant): Promise<Row> {
  if (variant.shared && !redis?.running) {
    await redis?.stop();
    redis = await new RedisProcess().start();
  }
  upstream.mode = "up";
  const socket = redis?.socket ?? "";
  const shared = (i: number): SharedSetup => ({ socket, client: i % 2 === 0 ? "ioredis" : "node-redis", options: { refreshMs: REFRESH_MS, keyPrefix: variant.name.replace(/\W+/g, "-") } });
  await fleet.connect(upstream.url, { breaker: BREAKER }, variant.shared ? shared : undefined);
  upstream.deadAttempts = 0;
  upstream.served429 = 0;
  const { startAt, results } = fleet.run({ paceMs: PACE_MS, durationMs: RUN_MS, delayMs: 500 });
  const timers = schedule(startAt, variant);
  const out = await results;
  for (const t of timers) clearTimeout(t);
  if (variant.fault === "hang") {
    redis?.resume();
    await redis?.kill();
  }
  const row = summarize(variant.name, startAt, out);
  const after: Record<string, number> = {};
  for (const c of out.flatMap((r) => r.calls)) if (c.at >= startAt + RECOVERY_MS) after[c.outcome] = (after[c.outcome] ?? 0) + 1;
  console.log(`${row.name}: ${row.dead} attempts reached the dead server, ${row.limited} 429s, resumed in ${row.resumeMedian} ms (median) / ${row.resumeMax} ms (last worker); after recovery: ${JSON.stringify(after)}`);
  return row;
}

/** The upstream's phases, and the variant's Redis fault, on the shared clock. */
function schedule(startAt: number, variant: Variant): NodeJS.Timeout[] {
  const timers: NodeJS.Timeout[] = [];
  let t = startAt;
  for (const [mode, ms] of PHASES) {
    timers.push(setTimeout(() => (upstream.mode = mode), Math.max(0, t - Date.now())));
    t += ms;
  }
  const fault = variant.fault;
  if (fault) {
    timers.push(
      setTimeout(() => {
        if (fault === "kill") void redis?.kill();
        else if (fault === "hang") redis?.pause();
        else void flush();
      }, startAt + 500 + FAULT_AT_MS - Date.now()),
    );
  }
  return timers;
}

async function flush(): Promise<void> {
  const admin = new Redis({ path: redis!.socket, maxRetriesPerRequest: 1 });
  admin.on("error", () => undefined);
  await admin.flushall().catch(() => undefined);
  admin.disconnect();
}

function summarize(name: string, startAt: number, results: WorkerResult[]): Row {
  const recovery = startAt + RECOVERY_MS;
  const resumes = results.map((r) => {
    // The server answering counts, its tool's own isError too.
    const first = r.calls.find((c) => (c.outcome === "ok" || c.outcome === "tool_error") && c.end >= recovery);
    return first ? first.end - recovery : Number.POSITIVE_INFINITY;
  });
  resumes.sort((a, b) => a - b);
  const calls = results.flatMap((r) => r.calls);
  // Calls that failed although the server had recovered when they started (a tool's own isError aside).
  const failedAfterRecovery = calls.filter((c) => c.outcome !== "ok" && c.outcome !== "tool_error" && c.at >= recovery).length;
  return {
    name,
    dead: upstream.deadAttempts,
    limited: upstream.served429,
    resumeMedian: Math.round(resumes[Math.floor(resumes.length / 2)]!),
    resumeMax: Math.round(resumes[resumes.length - 1]!),
    failedAfterRecovery,
    calls: calls.length,
  };
}

function printTable(rows: Row[]): void {
  const base = rows[0]!;
  console.log(`\n${WORKERS} workers, a call every ${PACE_MS} ms each; the server is down for 3 s, then answers 429 (Retry-After: 1) for 1.5 s, then recovers.`);
  console.log(`Breaker: failureThreshold ${BREAKER.failureThreshold}, halfOpenAfterMs ${BREAKER.halfOpenAfterMs}; shared snapshot refreshed every ${REFRESH_MS} ms. Redis faults strike 1.5 s into the outage.\n`);
  console.log("| mode | attempts that reached the dead server | 429s served | fleet resumed after recovery (median / last worker) | calls failed after recovery |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    const ratio = r === base ? "" : ` (${(r.dead / Math.max(1, base.dead)).toFixed(2)}×)`;
    console.log(`| ${r.name} | ${r.dead}${ratio} | ${r.limited} | ${r.resumeMedian} / ${r.resumeMax} ms | ${r.failedAfterRecovery} |`);
  }
}

/** How long each section runs: `--quick` keeps the whole bench near a minute, a full run near five. */
import type { Transport } from "./servers.js";
import type { Mode } from "./subjects.js";

/** Rounds × calls per subject per round. */
export interface Runs {
  rounds: number;
  batch: number;
}

export interface BenchPlan {
  quick: boolean;
  /** Rounds run first and dropped (JIT warm-up) in the interleaved sections. */
  warmupRounds: number;
  /** Per transport, inside LangGraph and bare (the goals: stdio and HTTP inside LangGraph). */
  success: Record<Transport, Record<Mode, Runs>>;
  /** Whole createAgent runs (model, tool, model): in memory (information) and over stdio (the goal). */
  agent: { memory: Runs; stdio: Runs };
  /** In memory inside LangGraph and bare (information); over stdio and HTTP inside LangGraph (the goals). */
  errors: { memory: Record<Mode, Runs>; stdio: Runs; http: Runs };
  /** normalize/toModelText/getTool: rounds of tinybench, each task `timeMs` per round. */
  micro: { rounds: number; timeMs: number };
  /** Builds of 1,000 tools with 200 glob policies. */
  build: { trials: number };
  dead: Runs;
  /** stdio kill-and-recover cycles, and how long one waits for a call to succeed. */
  recovery: { rounds: number; deadlineMs: number };
  /** HTTP restarts, and how long one waits for ours to succeed again. */
  restart: { trials: number; deadlineMs: number };
  /** Rounds × seconds per subject per caller count; a single caller, the noisiest, gets `oneCallerRounds`. */
  throughput: { rounds: number; oneCallerRounds: number; seconds: number };
  /** Rounds × calls held in flight per subject. */
  heap: { rounds: number; inFlight: number };
  /** Connect-then-close trials per endpoint and era setting. */
  connect: { trials: number };
  /** Rounds of cold-against-catalog starts, per setting. */
  catalog: { rounds: number };
  /**
   * Under faults: calls per subject (split into `rounds`, the subjects rotated each round), the
   * callers, the warm-up calls per subject, and the calls of the failing-server-with-fallback run.
   */
  faults: { calls: number; rounds: number; callers: number; warmup: number; fallbackCalls: number };
  /** Callers and seconds per subject against the rate-limited server. */
  throttle: { callers: number; seconds: number };
  /** The whole run is stopped (and reported as failed) past this, in ms. */
  watchdogMs: number;
}

const runs = (rounds: number, batch: number): Runs => ({ rounds, batch });

export function planFor(argv: readonly string[]): BenchPlan {
  const quick = argv.includes("--quick");
  /** Each figure as [quick, full]. */
  const pick = <T>(ifQuick: T, full: T): T => (quick ? ifQuick : full);
  const watchdogArg = argv.find((a) => a.startsWith("--watchdog="))?.slice("--watchdog=".length);
  const watchdogS = watchdogArg === undefined ? undefined : Number(watchdogArg);
  if (watchdogS !== undefined && !(watchdogS > 0)) throw new Error(`--watchdog wants seconds, got "${watchdogArg}".`);
  return {
    quick,
    warmupRounds: pick(1, 1),
    // Rounds are what makes a paired verdict repeat from run to run (the median over rounds);
    // the goals' rows (stdio and HTTP inside LangGraph, createAgent over stdio) get the most.
    success: {
      memory: { graph: pick(runs(3, 20), runs(10, 30)), bare: pick(runs(2, 100), runs(6, 150)) },
      stdio: { graph: pick(runs(4, 20), runs(40, 30)), bare: pick(runs(2, 60), runs(6, 100)) },
      http: { graph: pick(runs(4, 20), runs(40, 30)), bare: pick(runs(2, 40), runs(6, 60)) },
    },
    agent: { memory: pick(runs(2, 10), runs(6, 15)), stdio: pick(runs(4, 10), runs(32, 15)) },
    errors: { memory: { graph: pick(runs(3, 12), runs(8, 20)), bare: pick(runs(2, 60), runs(6, 100)) }, stdio: pick(runs(4, 12), runs(40, 20)), http: pick(runs(4, 12), runs(40, 20)) },
    micro: pick({ rounds: 2, timeMs: 60 }, { rounds: 6, timeMs: 200 }),
    build: { trials: pick(3, 8) },
    dead: pick(runs(3, 30), runs(6, 60)),
    recovery: pick({ rounds: 1, deadlineMs: 2000 }, { rounds: 2, deadlineMs: 8000 }),
    restart: pick({ trials: 5, deadlineMs: 3000 }, { trials: 25, deadlineMs: 5000 }),
    // One caller's per-round rates ranged from about 230 to 940 calls/s within one run, and its
    // verdict flipped between full runs at 16 rounds (0.94 to 1.21): it gets more rounds.
    throughput: pick({ rounds: 2, oneCallerRounds: 2, seconds: 0.3 }, { rounds: 16, oneCallerRounds: 40, seconds: 0.4 }),
    heap: pick({ rounds: 2, inFlight: 300 }, { rounds: 4, inFlight: 600 }),
    connect: { trials: pick(5, 16) },
    catalog: { rounds: pick(6, 20) },
    faults: { calls: pick(400, 2000), rounds: pick(2, 4), callers: 16, warmup: pick(64, 64), fallbackCalls: pick(300, 1000) },
    throttle: { callers: 64, seconds: pick(3, 10) },
    // --watchdog=SECONDS: on a machine loaded by other work every section runs longer.
    watchdogMs: watchdogS === undefined ? pick(300_000, 15 * 60_000) : watchdogS * 1000,
  };
}

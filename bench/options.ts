/** How long each section runs: `--quick` keeps the whole bench under a minute. */
export interface BenchPlan {
  quick: boolean;
  /** Rounds run first and dropped (JIT warm-up) in the interleaved sections. */
  warmupRounds: number;
  /** Success path: rounds × calls per subject per round. */
  success: { rounds: number; batch: number };
  /** Error path: rounds × calls per subject per round. */
  errors: { rounds: number; batch: number };
  /** normalize/toModelText: rounds of tinybench, each task `timeMs` per round. */
  micro: { rounds: number; timeMs: number };
  dead: { rounds: number; batch: number };
  /** Kill-and-recover cycles, and how long one waits for a call to succeed. */
  recovery: { rounds: number; deadlineMs: number };
  /** Rounds × seconds per subject per round, with `callers` concurrent callers. */
  throughput: { rounds: number; seconds: number; callers: number };
  /** Rounds × calls per measurement (the figure is scaled to 10,000 calls). */
  memory: { rounds: number; calls: number };
  /** The whole run is stopped (and reported as failed) past this, in ms. */
  watchdogMs: number;
}

export function planFor(argv: readonly string[]): BenchPlan {
  const quick = argv.includes("--quick");
  return quick
    ? {
        quick,
        warmupRounds: 1,
        success: { rounds: 5, batch: 80 },
        errors: { rounds: 4, batch: 50 },
        micro: { rounds: 2, timeMs: 60 },
        dead: { rounds: 4, batch: 30 },
        recovery: { rounds: 1, deadlineMs: 2000 },
        throughput: { rounds: 2, seconds: 0.75, callers: 64 },
        memory: { rounds: 2, calls: 1_000 },
        watchdogMs: 150_000,
      }
    : {
        quick,
        warmupRounds: 2,
        success: { rounds: 40, batch: 200 },
        errors: { rounds: 20, batch: 200 },
        micro: { rounds: 8, timeMs: 250 },
        dead: { rounds: 20, batch: 150 },
        recovery: { rounds: 5, deadlineMs: 8000 },
        throughput: { rounds: 5, seconds: 3, callers: 64 },
        memory: { rounds: 5, calls: 10_000 },
        watchdogMs: 15 * 60_000,
      };
}

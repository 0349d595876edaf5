/**
 * The circuit breaker's sliding window of recent calls, for its rate rules (`failureRate`,
 * `slowCallRate`): the process's own, and the rule the fleet's (src/fleet/windowScripts.ts)
 * follows with the same meaning.
 */
import type { BreakerOptions, DEFAULT_BREAKER } from "../config/index.js";
import { McpConfigError } from "../config/index.js";
import type { RateReached } from "../events.js";

export type { RateReached } from "../events.js";

/** The window's size: its last `calls` calls, or the calls of its last `ms` milliseconds. */
export type WindowSize = typeof DEFAULT_BREAKER.window;

/** The breaker options the window reads. */
export type RateRules = Pick<typeof DEFAULT_BREAKER, "minimumCalls" | "window"> & Pick<BreakerOptions, "failureRate" | "slowCallRate" | "slowCallMs">;

/**
 * How many buckets a time window is cut into, as resilience4j cuts its TIME_BASED window into
 * one-second buckets: a call leaves the window with its bucket, so the window reaches back
 * between nine and ten tenths of `ms`, and holds 10 buckets, not one entry per call.
 */
export const TIME_BUCKETS = 10;

/** One call, as the window keeps it: bit 1 failed, bit 2 slow. */
const FAILED = 1;
const SLOW = 2;

/**
 * Is `calls` calls, `bad` of them failed (or slow), at or above `threshold` once the window holds
 * `minimum`? The one comparison of the process's rule and the fleet's: a share, by division, so
 * 3 of 10 meets 0.3 exactly (3 ≥ 0.3 × 10 does not, in floating point).
 */
export function reaches(bad: number, calls: number, threshold: number | undefined, minimum: number): boolean {
  return threshold !== undefined && calls > 0 && calls >= minimum && bad / calls >= threshold;
}

/**
 * The calls a window must hold before its rates are read: `minimumCalls`, or a count window's
 * size when that is smaller (as resilience4j does), so that the rule can ever be met.
 */
export function minimumOf(rules: Pick<RateRules, "minimumCalls" | "window">): number {
  return "calls" in rules.window ? Math.min(rules.minimumCalls, rules.window.calls) : rules.minimumCalls;
}

/**
 * The calls through a closed circuit, counted for its rates. A call that said nothing about
 * the server (cancelled, refused by a guard) is not put in; the breaker empties the window when
 * the circuit closes.
 */
export class CallWindow {
  /** A count window's calls, oldest first from `next` once full. */
  private readonly ring: number[] = [];
  private next = 0;
  /** A time window's buckets: the bucket number each slot holds, and its counts. */
  private readonly bucketOf: number[] = [];
  private readonly counts: [calls: number, failed: number, slow: number][] = [];
  private readonly minimum: number;

  private constructor(private readonly rules: RateRules) {
    this.minimum = minimumOf(rules);
  }

  /**
   * The window for these breaker options, or undefined when neither rate is set (no window is
   * kept). Throws McpConfigError for a `slowCallRate` without `slowCallMs`, for a breaker made
   * without the toolkit's validation (`wrapTool`, `new CircuitBreaker`).
   */
  static of(rules: RateRules): CallWindow | undefined {
    if (rules.slowCallRate !== undefined && rules.slowCallMs === undefined) {
      throw new McpConfigError("breaker.slowCallMs", "required with slowCallRate: the duration past which a call is slow, in milliseconds");
    }
    return rules.failureRate === undefined && rules.slowCallRate === undefined ? undefined : new CallWindow(rules);
  }

  /** Did a call that took `ms` take too long? Never, when no `slowCallMs` is set. */
  isSlow(ms: number): boolean {
    return this.rules.slowCallMs !== undefined && ms > this.rules.slowCallMs;
  }

  /** Puts one call in the window, which ended at `now`; answers the rate it made reach its threshold, if any. */
  record(failed: boolean, slow: boolean, now: number): RateReached | undefined {
    const call = (failed ? FAILED : 0) | (slow ? SLOW : 0);
    const [calls, failures, slows] = "calls" in this.rules.window ? this.counted(call, this.rules.window.calls) : this.timed(call, now, this.rules.window.ms);
    const { failureRate, slowCallRate } = this.rules;
    if (reaches(failures, calls, failureRate, this.minimum)) return { rule: "failureRate", value: failures / calls, calls };
    if (reaches(slows, calls, slowCallRate, this.minimum)) return { rule: "slowCallRate", value: slows / calls, calls };
    return undefined;
  }

  /** Forgets every call: the circuit closed, and what the window held told of the server before. */
  reset(): void {
    this.ring.length = 0;
    this.next = 0;
    this.bucketOf.length = 0;
    this.counts.length = 0;
  }

  /** A count window: the last `size` calls, this one among them. */
  private counted(call: number, size: number): [number, number, number] {
    if (this.ring.length < size) this.ring.push(call);
    else {
      this.ring[this.next] = call;
      this.next = (this.next + 1) % size;
    }
    let failed = 0;
    let slow = 0;
    for (const c of this.ring) {
      failed += c & FAILED;
      slow += (c & SLOW) >> 1;
    }
    return [this.ring.length, failed, slow];
  }

  /** A time window: the calls of the buckets that end within `ms` of `now`, this one among them. */
  private timed(call: number, now: number, ms: number): [number, number, number] {
    const width = ms / TIME_BUCKETS;
    const bucket = Math.floor(now / width);
    const slot = bucket % TIME_BUCKETS;
    if (this.bucketOf[slot] !== bucket) {
      this.bucketOf[slot] = bucket;
      this.counts[slot] = [0, 0, 0];
    }
    const counts = this.counts[slot]!;
    counts[0]++;
    counts[1] += call & FAILED;
    counts[2] += (call & SLOW) >> 1;
    const sum: [number, number, number] = [0, 0, 0];
    for (let i = 0; i < TIME_BUCKETS; i++) {
      const held = this.bucketOf[i];
      if (held === undefined || held <= bucket - TIME_BUCKETS) continue;
      const [c, f, s] = this.counts[i]!;
      sum[0] += c;
      sum[1] += f;
      sum[2] += s;
    }
    return sum;
  }
}

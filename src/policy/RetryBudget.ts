import { DEFAULT_RETRY_BUDGET, type RetryBudgetOptions } from "../config/index.js";

const BUCKETS = 10;

/**
 * A server's retry budget: a retry is allowed while the retries sent to the server in the
 * last `windowMs` stay under `ratio` of the attempts sent, plus `minRetries`. In an outage
 * every call fails, and without a budget each would retry; with one, the server sees at most
 * `1 + ratio` times its normal load. (The ratio and the floor are those Envoy and Finagle
 * ship: 20%, and a few retries always allowed for a quiet client.)
 *
 * Counts live in ten buckets of a tenth of the window each, so a burst ages out smoothly.
 */
export class RetryBudget {
  private readonly options: typeof DEFAULT_RETRY_BUDGET;
  private readonly attempts = new Array<number>(BUCKETS).fill(0);
  private readonly retries = new Array<number>(BUCKETS).fill(0);
  private bucket = 0;
  private bucketStart = 0;

  constructor(
    options: RetryBudgetOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.options = { ...DEFAULT_RETRY_BUDGET, ...options };
    this.bucketStart = this.now();
  }

  /** Counts an attempt sent to the server (a first attempt or a retry). */
  noteAttempt(): void {
    if (!this.options.enabled) return;
    this.advance();
    this.attempts[this.bucket]!++;
  }

  /** May one more retry go to the server? If so, it is counted as spent. */
  tryRetry(): boolean {
    if (!this.options.enabled) return true;
    this.advance();
    const allowed = this.options.minRetries + this.options.ratio * sum(this.attempts);
    if (sum(this.retries) + 1 > allowed) return false;
    this.retries[this.bucket]!++;
    return true;
  }

  private advance(): void {
    const width = this.options.windowMs / BUCKETS;
    const now = this.now();
    const steps = Math.min(BUCKETS, Math.floor((now - this.bucketStart) / width));
    for (let i = 0; i < steps; i++) {
      this.bucket = (this.bucket + 1) % BUCKETS;
      this.attempts[this.bucket] = 0;
      this.retries[this.bucket] = 0;
    }
    if (steps > 0) this.bucketStart += steps * width;
    if (now - this.bucketStart >= width) this.bucketStart = now;
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

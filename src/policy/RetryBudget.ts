import { DEFAULT_RETRY_BUDGET, type RetryBudgetOptions } from "../config/index.js";

/** Reasons that are a timeout: their retries cost `timeoutRetryCost`. A slow server is spared sooner. */
const TIMEOUTS: ReadonlySet<string> = new Set(["request_timeout", "network_timeout"]);

/**
 * A server's retry budget: a token bucket, as in AWS's standard retry mode. It starts full
 * (`capacity`, 500 tokens); a retry takes `retryCost` (5), or `timeoutRetryCost` (10) after a
 * timeout; a successful attempt puts `successRefill` (1) back; a retry that would take more than
 * is left is not made. With no success in between, 100 retries go to a failing server, then none.
 *
 * Chosen over a ratio of recent attempts (Envoy's and Finagle's 20%, which this replaced): a
 * restart fails every call in flight at the same moment, and a ratio read that one burst as a
 * retry storm (3 to 13 of 16 parallel calls gave up with the budget spent while the server was
 * already back), yet let a server that fails every call for minutes take 20% more load for as
 * long. A bucket pays for a burst from its reserve, and a storm that lasts empties it and stops.
 * Failures no server saw (a refused connection) are not charged at all: RetryPolicy asks only
 * for the others.
 */
export class RetryBudget {
  private readonly options: typeof DEFAULT_RETRY_BUDGET;
  private available: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.options = { ...DEFAULT_RETRY_BUDGET, ...options };
    this.available = this.options.capacity;
  }

  /** The tokens left, for tests and diagnostics. */
  get tokens(): number {
    return this.available;
  }

  /** An attempt to the server succeeded: some of the bucket comes back. */
  noteSuccess(): void {
    if (this.available < this.options.capacity) this.available = Math.min(this.options.capacity, this.available + this.options.successRefill);
  }

  /**
   * May one more retry of a failure with `reason` go to the server? If so, its cost is taken.
   * Unnamed, the failure costs a plain retry's tokens.
   */
  tryRetry(reason?: string): boolean {
    if (!this.options.enabled) return true;
    const cost = reason !== undefined && TIMEOUTS.has(reason) ? this.options.timeoutRetryCost : this.options.retryCost;
    if (cost > this.available) return false;
    this.available -= cost;
    return true;
  }
}

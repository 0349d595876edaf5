/**
 * A restart is one event, not one failed attempt per call that meets it. A refused connection
 * (`connection_refused`: nothing listens at the server's address) says the server is down, not
 * that this call did anything wrong, and trying again the moment it listens costs the server
 * nothing before then. So a call whose attempt was refused does not spend one of its retries on
 * it: it waits on the server's listen watch (one TCP probe loop that every waiting call shares)
 * and is sent again the moment the server listens. Every call that meets the same outage waits
 * for the same test, and behaves alike, whatever its place in the burst.
 *
 * The wait is bounded as a wait for the breaker's test or a server's Retry-After is: a call waits
 * at most the retry policy's `maxTimeout` (5 s by default) and its attempt's timeout, counted
 * from its first refusal, within `maxRetryTime`; and does so at most `retries` times (a server
 * that accepts the watch's connect but refuses the request, a dual-stack name, cannot loop a
 * call). Past any bound a refusal is an ordinary failed attempt, and spends a retry: a server
 * that stays down costs a call about 5 s and its retries, not its whole timeout.
 */
import type { McpToolError } from "../errors/McpToolError.js";
import { raceAbort } from "./abort.js";

export class OutageWait {
  /** When waiting ends, from the call's first refusal; unset before one. */
  private until: number | undefined;
  private passes = 0;

  constructor(
    /** Resolves `true` once the server listens again within `ms` (see ListenWatch). */
    private readonly listening: (ms: number) => Promise<boolean>,
    /** The longest wait from the first refusal: `maxTimeout` or the attempt's timeout, the shorter. */
    private readonly maxWaitMs: number,
    /** The most waits that end with the server listening: the policy's retries. */
    private readonly maxPasses: number,
    /** The caller's signal: its abort ends the wait at once (rejecting with its reason). */
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * How long a call that failed with `error` may wait for the server to listen, spending no
   * retry: 0 for anything but a refusal within the bounds. `deadline`: where `maxRetryTime` ends.
   */
  waitFor(error: McpToolError, deadline: number): number {
    if (error.reason !== "connection_refused" || error.retryAfterMs !== undefined || this.passes >= this.maxPasses) return 0;
    const now = performance.now();
    this.until ??= now + this.maxWaitMs;
    return Math.max(0, Math.round(Math.min(this.until, deadline) - now));
  }

  /**
   * Waits up to `ms` for the server to listen: `true` if it does (the retry goes at once, free).
   * `false` when the wait ran out, or at once where the watch cannot tell (no address to watch, an
   * error that is not a refusal): the call waits no more, and its refusals spend retries.
   */
  async wait(ms: number): Promise<boolean> {
    const up = await raceAbort(this.listening(ms), this.signal);
    if (up) this.passes++;
    else this.until = Number.NEGATIVE_INFINITY;
    return up;
  }
}

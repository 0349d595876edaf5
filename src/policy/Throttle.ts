import { DEFAULT_THROTTLE, type ThrottleOptions } from "../config/index.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { cancelled, type CallContext } from "./abort.js";
import { begin } from "./chain.js";
import { TakenHistory } from "./takenHistory.js";

/**
 * The throttle of a server whose layers (the toolkit's `throttle`, then the server's) turn it
 * on: `true` is every default, an object sets fields over the layer below, `false` or
 * `enabled: false` turns it off. `undefined` when it is off.
 */
export function throttleFor(serverName: string, ...layers: (boolean | ThrottleOptions | undefined)[]): Throttle | undefined {
  let options: ThrottleOptions | undefined;
  for (const layer of layers) {
    if (layer === undefined) continue;
    options = layer === true ? { ...options, enabled: true } : layer === false ? { ...options, enabled: false } : { ...options, ...layer };
  }
  return options && options.enabled !== false ? new Throttle(serverName, options) : undefined;
}

/** One call waiting for its turn: released in order, or failed by its abort or a cut that puts its turn past its bound. */
interface Waiter {
  go(): void;
  fail(error: unknown): void;
  /** The latest its turn may come (`now()` clock), and the bound that set it, for the message. */
  deadline: number;
  maxWaitMs: number;
  context: CallContext;
}

/**
 * The fleet's copy of a server's cuts, kept by `src/fleet` when `sharedState` is set: a cut this
 * process makes is shared in the background, and one another process made comes back through
 * {@link Throttle.fleetCut}. Nothing here is awaited by a call.
 */
export interface SharedRate {
  /** Shares a cut this process made from `wMax` calls a second, in the background. */
  cut(wMax: number): void;
}

/**
 * A server's adaptive send rate, as in AWS's adaptive retry mode. Until the server first answers
 * `rate_limited` it only counts the attempts the server took. On that answer it starts a token
 * bucket whose fill rate is `beta` of `wMax`, the rate the server took (the most attempts it
 * answered, other than with a refusal, in one second of the last two; or the bucket's own rate
 * if lower). AWS starts from the rate the client sent at; the rate the server took is the
 * better guess of its limit, and a curve whose plateau sits at the limit probes past it less
 * often, each probe costing the server's Retry-After. It grows back along the CUBIC curve
 * `scale·(t − K)³ + wMax`, flat near `wMax` and steeper past it, so the client returns quickly
 * to the rate the server took and probes above it slowly. Each later rate-limited answer cuts
 * again, except the answers to attempts sent before the last cut (the calls in flight when it
 * came): they tell of the old rate, and cutting for each would halve the rate per burst.
 *
 * Chosen over Google SRE's client-side throttling (reject locally with probability
 * (requests − 2·accepts)/(requests + 1)): that rule keeps sending twice what the server accepts,
 * so a server at its limit still refuses about as many calls as it takes, and the calls it drops
 * fail at once where they could have waited their turn. Here a call waits, in order, within its
 * bound (the attempt's timeout); one whose turn would come later fails at once, unsent, saying
 * how long it would have waited. The queue also holds for the server's own Retry-After.
 *
 * The bucket holds 20 ms of the rate (at least one token), so after a pause the client does not
 * burst: many servers count a sliding second, and a burst on top of the rate is what they refuse.
 *
 * With shared state, a cut anywhere in the fleet is a cut here, as if the 429 had been this
 * process's own (see {@link fleetCut}): the fleet's total rate is cut by `beta` once per burst
 * of refusals, and each process keeps its own share of it.
 */
export class Throttle {
  private readonly options: typeof DEFAULT_THROTTLE;
  /** Has the server answered `rate_limited` yet? Until then, attempts go at once. */
  private active = false;
  /** The rate the last cut started from, CUBIC's K for it, and when it came. */
  private wMax = 0;
  private k = 0;
  private cutAt = 0;
  /** Cuts so far: an attempt remembers the count it was sent under. */
  private epoch = 0;
  private tokens = 1;
  private refilledAt = 0;
  /** Nothing is released before this: the server's Retry-After. */
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** What the server took (answers other than rate-limit refusals) over the last two seconds. */
  private readonly taken = new TakenHistory();
  private shared: SharedRate | undefined;

  constructor(
    readonly serverName: string,
    options: ThrottleOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.options = { ...DEFAULT_THROTTLE, ...options };
  }

  /** The rate attempts may go at now, in calls per second; `undefined` before the first rate-limited answer. */
  get rate(): number | undefined {
    return this.active ? this.rateAt(this.now()) : undefined;
  }

  /** Joins the fleet's cuts: this process's are shared, and the fleet's come back through {@link fleetCut}. */
  useShared(shared: SharedRate): void {
    this.shared = shared;
  }

  /**
   * Another process cut its rate `agoMs` ago, from `wMax` calls a second: this one cuts too,
   * from the rate the server took from it (or, having sent nothing for two seconds, from
   * `wMax`), with the curve's clock set to the fleet's cut, unless it has cut itself since.
   */
  fleetCut(agoMs: number, wMax: number): void {
    const now = this.now();
    const at = now - Math.max(0, agoMs);
    if (this.active && this.cutAt >= at) return;
    const took = this.taken.busiestSecond(now);
    this.cut(now, at, took > 0 ? took : wMax);
  }

  /** Calls waiting for their turn now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Sends one attempt (`send`) at the server's rate: at once when a token is there, after a
   * wait in order of at most `maxWaitMs`, or not at all: rejects at once with `rate_limited`
   * (not sent) when the turn would come later, and with the call's `cancelled` / `closed` when
   * `signal` aborts during the wait.
   */
  run<T>(send: () => Promise<T>, maxWaitMs: number, signal: AbortSignal | undefined, context: CallContext): Promise<T> {
    const now = this.now();
    if (!this.active || (this.queue.length === 0 && this.take(now))) return this.sent(send);
    const waitMs = this.waitFor(this.queue.length, now);
    if (waitMs > maxWaitMs) return Promise.reject(this.tooLong(waitMs, maxWaitMs, context));
    if (signal?.aborted) return Promise.reject(cancelled(context, signal.reason, "not_sent"));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.remove(waiter);
        reject(cancelled(context, signal!.reason, "not_sent"));
      };
      const waiter: Waiter = {
        go: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        fail: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
        deadline: now + maxWaitMs,
        maxWaitMs,
        context,
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
      this.schedule();
    }).then(() => this.sent(send));
  }

  /** The attempt goes now: a rate-limited answer cuts the rate, any other counts as one the server took. */
  private sent<T>(send: () => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    return begin(send).then(
      (value) => {
        this.taken.count(this.now());
        return value;
      },
      (error: unknown) => {
        if (isMcpToolError(error) && error.reason === "rate_limited") this.limited(error, epoch);
        else this.taken.count(this.now());
        throw error;
      },
    );
  }

  /** The server refused an attempt for its rate: the queue holds for its Retry-After, and the rate is cut. */
  private limited(error: McpToolError, epoch: number): void {
    const now = this.now();
    if (epoch === this.epoch) {
      if (error.retryAfterMs !== undefined && error.retryAfterMs > 0) this.pausedUntil = Math.max(this.pausedUntil, now + error.retryAfterMs);
      this.cut(now, now, this.taken.busiestSecond(now));
      this.shared?.cut(this.wMax);
    } else if (error.retryAfterMs !== undefined && error.retryAfterMs > 0 && now + error.retryAfterMs > this.pausedUntil) {
      // A late answer to an attempt sent before the last cut makes no cut, but its pause holds the
      // queue as any does: a waiting call whose turn it pushes past its bound fails now, unsent,
      // not when the pause ends (12 s after a call with a 3 s timeout was made, before).
      this.pausedUntil = now + error.retryAfterMs;
      this.failLate(now);
    }
    this.schedule();
  }

  /** Cuts the rate to `beta` of `took` (or of the rate now, if lower), on a curve that starts `at`. */
  private cut(now: number, at: number, took: number): void {
    // The tokens earned at the old rate are kept, up to what the bucket holds at the new one.
    if (this.active) this.refill(now);
    else [this.tokens, this.refilledAt] = [1, now];
    const current = this.active ? this.rateAt(now) : Number.POSITIVE_INFINITY;
    this.wMax = Math.max(this.options.minRate, Math.min(current, took));
    this.k = Math.cbrt((this.wMax * (1 - this.options.beta)) / this.options.scale);
    this.cutAt = at;
    this.epoch++;
    this.active = true;
    this.tokens = Math.min(this.tokens, Math.max(1, this.rateAt(now) / 50));
    this.failLate(now);
    this.schedule();
  }

  /** The CUBIC curve: `beta·wMax` at the cut, back to `wMax` after K seconds, and above it after. */
  private rateAt(now: number): number {
    const t = (now - this.cutAt) / 1000 - this.k;
    return Math.max(this.options.minRate, this.options.scale * t * t * t + this.wMax);
  }

  private refill(now: number): void {
    const rate = this.rateAt(now);
    this.tokens = Math.min(Math.max(1, rate / 50), this.tokens + ((now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
  }

  /** Takes a token if one is there and the server's wait is over. */
  private take(now: number): boolean {
    if (now < this.pausedUntil) return false;
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** How long the call at `position` in the queue waits from now, at the rate of now. */
  private waitFor(position: number, now: number): number {
    this.refill(now);
    const tokenMs = ((position + 1 - this.tokens) * 1000) / this.rateAt(now);
    return Math.max(0, this.pausedUntil - now, tokenMs);
  }

  /** Releases the calls whose turn has come, and sets the timer for the next. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.now();
    while (this.queue.length > 0 && this.take(now)) this.queue.shift()!.go();
    if (this.queue.length === 0) return;
    this.timer = setTimeout(() => this.schedule(), Math.max(1, Math.ceil(this.waitFor(0, now))));
  }

  /** After a cut, the waiting calls whose turn now comes past their bound fail at once, as a new one would. */
  private failLate(now: number): void {
    for (let i = 0; i < this.queue.length; ) {
      const waiter = this.queue[i]!;
      const waitMs = this.waitFor(i, now);
      if (now + waitMs <= waiter.deadline) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      waiter.fail(this.tooLong(waitMs, waiter.maxWaitMs, waiter.context));
    }
  }

  private remove(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at >= 0) this.queue.splice(at, 1);
    if (this.queue.length === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Decided here, without asking the server: not transient, so the retry policy does not wait
   * the same turn again outside the queue (the call would not fail at once), and unsent.
   */
  private tooLong(waitMs: number, maxWaitMs: number, context: CallContext): McpToolError {
    const rate = this.rateAt(this.now());
    return McpToolError.of(
      "rate_limited",
      `Server '${this.serverName}' is rate limiting this client, which now sends it ${rate < 10 ? rate.toFixed(1) : Math.round(rate)} calls a second; this call would have waited ${(waitMs / 1000).toFixed(1)} s for its turn, longer than its ${maxWaitMs} ms timeout, and was not sent.`,
      { ...context, serverName: this.serverName, outcome: "not_sent", transient: false, retryAfterMs: Math.ceil(waitMs) },
    );
  }
}

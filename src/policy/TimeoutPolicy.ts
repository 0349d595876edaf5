import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { afterPendingIo, follow, raceAbort } from "./abort.js";
import type { Deadline } from "./Deadline.js";

export interface AttemptTimeoutOptions {
  /** Per-attempt timeout, in milliseconds. */
  timeoutMs: number;
  /** Restart the timeout on each progress notification. */
  resetTimeoutOnProgress: boolean;
  /** A hard cap even with progress, in milliseconds. */
  maxTotalTimeoutMs?: number;
}

/** Which of an attempt's timers fired, and its length: its own, its cap, or the call's deadline (cut to what was left of it). */
export type Expiry = { timeout: number } | { maxTotalTimeout: number } | { deadline: number };

/**
 * One attempt's lifecycle: its timers, the caller's signal and its abort, made together for
 * every attempt on every transport, whether the connection is live or still (re)connecting.
 * The attempt ends early in one place, `abort`: when our timer fires, the caller aborts, the
 * toolkit closes or the answer stream breaks. Everything the attempt waits on (a reconnect,
 * the request, an input handler, a task's polls) waits under its `signal`. Aborting makes the
 * SDK send `notifications/cancelled`, so the server stops its work too. The SDK's own timer
 * is only a backstop far behind ours.
 */
export class AttemptScope {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  /** Set when one of our timers fired: which, and its length. */
  private expiry: Expiry | undefined;
  /** A timer fired: the attempt ends after the I/O that was already waiting has been read. */
  private expiring: { data: Expiry; pending: ReturnType<typeof afterPendingIo> } | undefined;
  /** Ends our listener on the caller's signal. */
  private readonly unfollow: () => void;

  constructor(
    readonly options: AttemptTimeoutOptions,
    readonly callerSignal?: AbortSignal,
    /** The call's deadline: no timer of the attempt runs past it, and each send tells the server what is left of it. */
    readonly deadline?: Deadline,
  ) {
    this.unfollow = follow(this.controller, callerSignal);
    if (this.aborted) return;
    this.arm();
    const max = options.maxTotalTimeoutMs;
    if (max !== undefined) {
      const left = this.deadlineLeft();
      this.totalTimer = left < max ? setTimeout(() => this.expire({ deadline: deadline!.ms }), left) : setTimeout(() => this.expire({ maxTotalTimeout: max }), max);
    }
  }

  /** What is left of the call's deadline, in milliseconds (Infinity for none). */
  private deadlineLeft(): number {
    return this.deadline ? this.deadline.remainingMs : Number.POSITIVE_INFINITY;
  }

  /** The attempt's signal: aborts, with the first reason, when the attempt ends early. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Has the attempt ended early (our timer, the caller, the toolkit's close, a broken stream)? */
  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Why the attempt ended early, if it did. */
  get reason(): unknown {
    return this.controller.signal.reason;
  }

  /** Did one of our timers fire? */
  get timedOut(): boolean {
    return this.expiry !== undefined;
  }

  /** Which of our timers fired, and its length: the message names it whatever the SDK made of the abort. */
  get expiredAfter(): Expiry | undefined {
    return this.expiry;
  }

  /** Ends the attempt with `reason` (the first reason stands). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** A wait inside the attempt (a reconnect, an input handler): it ends when the attempt does. */
  wait<T>(promise: Promise<T>): Promise<T> {
    return raceAbort(promise, this.signal);
  }

  /** For `onprogress`: restarts the attempt's timeout when the policy says so. */
  progress(): void {
    if (!this.options.resetTimeoutOnProgress || this.aborted) return;
    if (this.expiring) {
      // A progress that was waiting to be read when the attempt's own timer fired came in time;
      // the total cap and the call's deadline are not moved by progress.
      if (!("timeout" in this.expiring.data)) return;
      this.expiring = cancelPendingIo(this.expiring);
    }
    this.arm();
  }

  /** (Re)starts the attempt's timer: its timeout, or what is left of the call's deadline if that is less. */
  private arm(): void {
    clearTimeout(this.timer);
    const { timeoutMs } = this.options;
    const left = this.deadlineLeft();
    this.timer = left < timeoutMs ? setTimeout(() => this.expire({ deadline: this.deadline!.ms }), left) : setTimeout(() => this.expire({ timeout: timeoutMs }), timeoutMs);
  }

  /**
   * Our timer fired (or the total cap): the attempt ends with the SDK's timeout error, once the
   * I/O already waiting has been read. After the event loop was held up (a long synchronous
   * task, or a busy machine that kept the process off the CPU), the loop runs expired timers
   * before it reads what arrived meanwhile, so an answer that came in time would lose to the
   * timer and a call that succeeded would read `request_timeout`, outcome unknown. A check for
   * I/O first settles it with its answer; the timeout then finds the attempt over.
   */
  private expire(data: Expiry): void {
    if (this.aborted) return;
    if (this.expiring) {
      // The cap or the deadline, which progress does not move, stands over the attempt's own timeout.
      if ("timeout" in this.expiring.data) this.expiring.data = data;
      return;
    }
    this.expiring = { data, pending: afterPendingIo(() => this.timeOut()) };
  }

  private timeOut(): void {
    const data = this.expiring!.data;
    this.expiring = undefined;
    if (this.aborted) return;
    this.expiry = data;
    // The SDK's own timeout error shape, so the error reads the same whichever timer fired.
    // The v2 client passes an SdkError through as the call's rejection (any other reason it
    // wraps, losing `data`); v1 rejects with whatever the signal carries.
    this.abort(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", data));
  }

  /** The attempt is over: its timers and its listener on the caller's signal end. */
  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.totalTimer);
    this.expiring = cancelPendingIo(this.expiring);
    this.unfollow();
  }
}

function cancelPendingIo(expiring: { pending: { cancel(): void } } | undefined): undefined {
  expiring?.pending.cancel();
  return undefined;
}

import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";

export interface AttemptTimeoutOptions {
  /** Per-attempt timeout, in milliseconds. */
  timeoutMs: number;
  /** Restart the timeout on each progress notification. */
  resetTimeoutOnProgress: boolean;
  /** A hard cap even with progress, in milliseconds. */
  maxTotalTimeoutMs?: number;
}

/**
 * One attempt's time bounds. Cheap until asked: most attempts are bounded by the SDK's own
 * timer and the caller's signal, and never need more. `controller` (made on first use) is our
 * own, linked to the caller's signal and armed with our timers, for an attempt that must be
 * ended from outside: a reconnect to wait for, a broken answer stream, a total cap. Aborting
 * it makes the SDK send `notifications/cancelled`, so the server stops its work too, which the
 * SDK's own `maxTotalTimeout` does not do.
 */
export class AttemptScope {
  /** Which of our timers fired, if any. */
  timedOut = false;
  /** Which of our timers fired, and its length: the message names it whatever the SDK made of the abort. */
  expiredAfter: { timeout: number } | { maxTotalTimeout: number } | undefined;
  private own: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  private onCallerAbort: (() => void) | undefined;

  constructor(
    readonly options: AttemptTimeoutOptions,
    readonly callerSignal?: AbortSignal,
  ) {}

  /** Can the SDK's own timer bound this attempt alone? Not with a total cap: the SDK sends no cancel for it. */
  get sdkCanBound(): boolean {
    return this.options.maxTotalTimeoutMs === undefined;
  }

  /** Our own controller, made (and its timers armed) on first use. */
  get controller(): AbortController {
    return this.own ?? this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why our controller aborted, if it was ever made and did. */
  get reason(): unknown {
    return this.own?.signal.reason;
  }

  /**
   * For `onprogress`: restarts the attempt's timeout when the policy says so. A method, not a
   * bound field: most attempts never hear of progress, and a closure per attempt is held all call long.
   */
  progress(): void {
    if (this.options.resetTimeoutOnProgress && this.own && !this.own.signal.aborted) this.arm();
  }

  private start(): AbortController {
    const controller = new AbortController();
    this.own = controller;
    const caller = this.callerSignal;
    if (caller?.aborted) controller.abort(caller.reason);
    else if (caller) {
      this.onCallerAbort = () => controller.abort(caller.reason);
      caller.addEventListener("abort", this.onCallerAbort, { once: true });
    }
    this.arm();
    if (this.options.maxTotalTimeoutMs !== undefined) {
      const max = this.options.maxTotalTimeoutMs;
      this.totalTimer = setTimeout(() => this.expire({ maxTotalTimeout: max }), max);
    }
    return controller;
  }

  private arm(): void {
    clearTimeout(this.timer);
    const timeout = this.options.timeoutMs;
    this.timer = setTimeout(() => this.expire({ timeout }), timeout);
  }

  private expire(data: { timeout: number } | { maxTotalTimeout: number }): void {
    if (!this.own || this.own.signal.aborted) return;
    this.timedOut = true;
    this.expiredAfter = data;
    // The SDK's own timeout error shape, so the error reads the same whichever timer fired.
    // The v2 client passes an SdkError through as the call's rejection (any other reason it
    // wraps, losing `data`); v1 rejects with whatever the signal carries.
    this.own.abort(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", data));
  }

  dispose(): void {
    if (!this.own) return;
    clearTimeout(this.timer);
    clearTimeout(this.totalTimer);
    if (this.onCallerAbort) this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}

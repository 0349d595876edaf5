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
 * own, linked to the caller's signal and armed with our timers, for an attempt the SDK's timer
 * cannot bound: a reconnect to wait for, a total cap, an input handler's wait, a task. Aborting
 * it makes the SDK send `notifications/cancelled`, so the server stops its work too, which the
 * SDK's own `maxTotalTimeout` does not do.
 */
export class AttemptScope {
  /** Our controller and its timers, made on first use; most attempts never have them, so they live apart. */
  private armed: Armed | undefined;

  constructor(
    readonly options: AttemptTimeoutOptions,
    readonly callerSignal?: AbortSignal,
  ) {}

  /** Did one of our timers fire? */
  get timedOut(): boolean {
    return this.armed?.expiredAfter !== undefined;
  }

  /** Which of our timers fired, and its length: the message names it whatever the SDK made of the abort. */
  get expiredAfter(): { timeout: number } | { maxTotalTimeout: number } | undefined {
    return this.armed?.expiredAfter;
  }

  /** Can the SDK's own timer bound this attempt alone? Not with a total cap: the SDK sends no cancel for it. */
  get sdkCanBound(): boolean {
    return this.options.maxTotalTimeoutMs === undefined;
  }

  /** Our own controller, made (and its timers armed) on first use. */
  get controller(): AbortController {
    return (this.armed ?? this.start()).controller;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why our controller aborted, if it was ever made and did. */
  get reason(): unknown {
    return this.armed?.controller.signal.reason;
  }

  /**
   * For `onprogress`: restarts the attempt's timeout when the policy says so. A method, not a
   * bound field: most attempts never hear of progress, and a closure per attempt is held all call long.
   */
  progress(): void {
    const armed = this.armed;
    if (this.options.resetTimeoutOnProgress && armed && !armed.controller.signal.aborted) this.arm(armed);
  }

  private start(): Armed {
    const controller = new AbortController();
    const armed: Armed = { controller };
    this.armed = armed;
    const caller = this.callerSignal;
    if (caller?.aborted) controller.abort(caller.reason);
    else if (caller) {
      armed.onCallerAbort = () => controller.abort(caller.reason);
      caller.addEventListener("abort", armed.onCallerAbort, { once: true });
    }
    this.arm(armed);
    if (this.options.maxTotalTimeoutMs !== undefined) {
      const max = this.options.maxTotalTimeoutMs;
      armed.totalTimer = setTimeout(() => this.expire(armed, { maxTotalTimeout: max }), max);
    }
    return armed;
  }

  private arm(armed: Armed): void {
    clearTimeout(armed.timer);
    const timeout = this.options.timeoutMs;
    armed.timer = setTimeout(() => this.expire(armed, { timeout }), timeout);
  }

  private expire(armed: Armed, data: { timeout: number } | { maxTotalTimeout: number }): void {
    if (armed.controller.signal.aborted) return;
    armed.expiredAfter = data;
    // The SDK's own timeout error shape, so the error reads the same whichever timer fired.
    // The v2 client passes an SdkError through as the call's rejection (any other reason it
    // wraps, losing `data`); v1 rejects with whatever the signal carries.
    armed.controller.abort(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", data));
  }

  dispose(): void {
    const armed = this.armed;
    if (!armed) return;
    clearTimeout(armed.timer);
    clearTimeout(armed.totalTimer);
    if (armed.onCallerAbort) this.callerSignal?.removeEventListener("abort", armed.onCallerAbort);
  }
}

/** An attempt's own controller and what is attached to it. */
interface Armed {
  controller: AbortController;
  timer?: NodeJS.Timeout;
  totalTimer?: NodeJS.Timeout;
  onCallerAbort?: () => void;
  /** Set when one of our timers fired: which, and its length. */
  expiredAfter?: { timeout: number } | { maxTotalTimeout: number };
}

import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { raceAbort } from "./abort.js";
import { RequestSignal } from "./RequestSignal.js";

export interface AttemptTimeoutOptions {
  /** Per-attempt timeout, in milliseconds. */
  timeoutMs: number;
  /** Restart the timeout on each progress notification. */
  resetTimeoutOnProgress: boolean;
  /** A hard cap even with progress, in milliseconds. */
  maxTotalTimeoutMs?: number;
}

/** Which of an attempt's timers fired, and its length. */
export type Expiry = { timeout: number } | { maxTotalTimeout: number };

/**
 * One attempt's lifecycle: its timers, the caller's signal and its abort, made together for
 * every attempt on every transport, whether the connection is live or still (re)connecting.
 * The attempt ends early in one place, `abort`: when our timer fires, the caller aborts, the
 * toolkit closes or the answer stream breaks. Everything the attempt waits on (a reconnect,
 * the request, an input handler, a task's polls) waits under its signal. Aborting makes the
 * SDK send `notifications/cancelled`, so the server stops its work too. The SDK's own timer
 * is only a backstop far behind ours.
 *
 * The attempt is seen through two signals of one state: `signal`, a real AbortSignal made on
 * first use, for whatever may hand it on (an input handler, a hook, a reconnect, a task); and
 * `requestSignal`, for the SDK's request alone, which is the scope itself (a RequestSignal:
 * its `aborted` and `reason` are the attempt's). On Node 20 every AbortSignal is an object
 * with a hidden class of its own (its fields are added after a prototype change), which costs
 * about 10 µs and 0.8 KB per attempt; the request's signal costs neither.
 */
export class AttemptScope extends RequestSignal {
  private timer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  /** Set when one of our timers fired: which, and its length. */
  private expiry: Expiry | undefined;
  private controller: AbortController | undefined;

  constructor(
    readonly options: AttemptTimeoutOptions,
    readonly callerSignal?: AbortSignal,
  ) {
    super(false, undefined);
    if (callerSignal?.aborted) {
      this.abort(callerSignal.reason);
      return;
    }
    // The scope is its own listener (`handleEvent`): no closure per attempt.
    callerSignal?.addEventListener("abort", this);
    this.arm();
    const max = options.maxTotalTimeoutMs;
    if (max !== undefined) this.totalTimer = setTimeout(() => this.expire({ maxTotalTimeout: max }), max);
  }

  /** The attempt's AbortSignal, for whatever may hand it on; aborts when the attempt ends early. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /**
   * The signal of the SDK's tools/call request, and nothing else: both SDK lines read only its
   * `aborted`, `reason`, `throwIfAborted` and abort listeners (pinned in test/mcp/requestSignal.test.ts).
   * Where the attempt's AbortSignal exists already, it is that one; otherwise the scope itself.
   * Its `aborted` (inherited): has the attempt ended early (our timer, the caller, the
   * toolkit's close, a broken stream)? Its `reason`: why, if it did.
   */
  get requestSignal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    return this as unknown as AbortSignal;
  }

  /** Did one of our timers fire? */
  get timedOut(): boolean {
    return this.expiry !== undefined;
  }

  /** Which of our timers fired, and its length: the message names it whatever the SDK made of the abort. */
  get expiredAfter(): Expiry | undefined {
    return this.expiry;
  }

  /** Ends the attempt with `reason` (the first reason stands): both signals abort. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.notify();
  }

  /** The scope is fired only through `abort`, which aborts its AbortSignal too. */
  override fire(reason: unknown): void {
    this.abort(reason);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.abort(this.callerSignal?.reason);
  }

  /** A wait inside the attempt (a reconnect, an input handler): it ends when the attempt does. */
  wait<T>(promise: Promise<T>): Promise<T> {
    return raceAbort(promise, this.signal);
  }

  /** For `onprogress`: restarts the attempt's timeout when the policy says so. */
  progress(): void {
    if (this.options.resetTimeoutOnProgress && !this.aborted) this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    // The scope is the timer's argument, not captured by a closure: one object less per attempt in flight.
    this.timer = setTimeout(timedOut, this.options.timeoutMs, this);
  }

  /** @internal Our timer fired (or the total cap, with `data`). */
  expire(data: Expiry): void {
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
    this.callerSignal?.removeEventListener("abort", this);
  }
}

function timedOut(scope: AttemptScope): void {
  scope.expire({ timeout: scope.options.timeoutMs });
}

import { DEFAULT_BREAKER, type BreakerOptions } from "../config/index.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { cancelled, settledWithin, sleep, type CallContext } from "./abort.js";
import { refusal } from "./breakerRefusal.js";
import type { BreakerHooks, BreakerState, SharedCircuit } from "./breakerTypes.js";
import { CallWindow, type RateReached } from "./CallWindow.js";
import { begin } from "./chain.js";
import { openPeriodMs } from "./openPeriod.js";
import { RecoveryPing } from "./recoveryPing.js";
import { FailureKeys, hedgedCallOf, verdictOf } from "./verdict.js";

export type { BreakerOptions };
export { breakerEvents, type BreakerHooks, type BreakerState, type SharedCircuit, type Verdict } from "./breakerTypes.js";
export { verdictOf } from "./verdict.js";

/**
 * One server's breaker, consulted before every attempt. It opens after `failureThreshold`
 * consecutive failures (a hedged call's failed attempts count once), or once `failureRate` or
 * `slowCallRate` (when set) of the calls in its window (CallWindow) failed or were slow. While
 * open, a call that may wait out the rest of the open period (it is within the caller's
 * `maxWaitMs`, 0 for a call with a fallback) waits, as for a server's Retry-After; any other is
 * refused at once with `circuit_open` (transient, `not_sent`). The first opening lasts
 * `initialHalfOpenAfterMs`, each one after a failed test twice the last, up to `halfOpenAfterMs`
 * (each spread by `halfOpenJitter`); then one attempt tests the server while the others wait for
 * its verdict. The period ends early once the server is back: one that refused the connection is
 * tested the moment it listens again (the `listening` hook probes its port), one that failed
 * otherwise (a 5xx, a reset, a timeout) once it answers MCP's `ping`, sent about once a second
 * (RecoveryPing). So writes that waited are sent once, not refused for a long open period.
 *
 * Written here rather than taken from cockatiel, whose breaker cannot do two things this one
 * must: callers waiting for a half-open test stop at their own signal, and a test call that
 * was cancelled leaves the circuit open instead of closing it.
 */
export class CircuitBreaker {
  private readonly options: typeof DEFAULT_BREAKER & BreakerOptions;
  private failures = 0;
  /** The calls through the closed circuit, when a rate is set. */
  private readonly window: CallWindow | undefined;
  /** The rate that opened the circuit, if one did. */
  private rate: RateReached | undefined;
  private readonly counted = new FailureKeys();
  private open = false;
  private openedAt = 0;
  private openFor = 0;
  /** Openings since the circuit last closed: each doubles the open period. */
  private trips = 0;
  private test: Promise<unknown> | undefined;
  private closes = 0;
  private lastError: McpToolError | undefined;
  private shared: SharedCircuit | undefined;
  readonly recovery?: RecoveryPing;

  constructor(
    readonly serverName: string,
    options: BreakerOptions = {},
    private readonly hooks: BreakerHooks = {},
  ) {
    this.options = { ...DEFAULT_BREAKER, ...options };
    this.window = CallWindow.of(this.options);
    if (hooks.ping && this.options.recoveryPingMs > 0) this.recovery = new RecoveryPing(hooks.ping, this.options.recoveryPingMs, () => this.listensAgain(true), hooks.closing);
  }

  /** The breaker's clock, in milliseconds: where an attempt it hears of (`succeeded`, `noteFailure`) started. */
  now(): number {
    return this.hooks.now?.() ?? performance.now();
  }

  /** Joins the fleet's view: its open/closed decision and its one half-open test come first. */
  useShared(shared: SharedCircuit): void {
    this.shared = shared;
    // The server was shown healthy elsewhere: a local circuit opened by the same outage closes too.
    shared.onClose(() => {
      if (this.open && !this.test) this.close();
      // The local window's calls told of the server before the fleet's test showed it back.
      else if (!this.open) this.window?.reset();
    });
  }

  get state(): BreakerState {
    if (this.test) return "half-open";
    return this.open ? "open" : "closed";
  }

  /**
   * Runs `fn` unless the circuit is open. While it is, the call waits for the test if the open
   * period ends within `maxWaitMs` (all its waits here together), and is refused otherwise. A
   * call that finds another call testing the server waits for its verdict within `boundMs` (the
   * call's own timeout; all its waits here together; unbounded when omitted), and is refused,
   * `circuit_open`, past it.
   * A caller whose `signal` aborts while it waits settles at once as `cancelled` (or `closed`,
   * see abort.ts), unsent.
   */
  execute<T>(fn: () => Promise<T>, signal: AbortSignal | undefined, context: CallContext, maxWaitMs = 0, boundMs = Number.POSITIVE_INFINITY): Promise<T> {
    if (!this.options.enabled) return begin(fn);
    // The common case: no fleet, no test under way, the circuit closed.
    if (!this.shared && !this.test && !this.open) return signal?.aborted ? Promise.reject(cancelled(context, signal.reason, "not_sent")) : this.run(fn);
    const now = this.now();
    return this.executeGuarded(fn, signal, context, now + maxWaitMs, now + boundMs, boundMs);
  }

  /**
   * How many times the circuit has closed. An attempt that began before the last close reports
   * on the server as it was then: its failure (a stream of a call in flight at a crash, failing
   * once the restarted server answers its resume) is not new evidence against it.
   */
  get epoch(): number {
    return this.closes;
  }

  /** The open period still to run, in milliseconds (0 when closed, or when a call may test). */
  get remainingOpenMs(): number {
    return this.open ? Math.max(0, this.openedAt + this.openFor - this.now()) : 0;
  }

  private async executeGuarded<T>(fn: () => Promise<T>, signal: AbortSignal | undefined, context: CallContext, waitUntil: number, heldUntil: number, boundMs: number): Promise<T> {
    const fleet = this.shared?.state();
    if (fleet === "open" || fleet === "half-open") {
      const admission = await this.shared!.admit(waitUntil - this.now(), signal);
      if (admission === "test") return this.runFleetTest(fn);
      if (admission !== "local") throw this.refusal(context, admission.refusedForMs);
    }
    for (;;) {
      if (signal?.aborted) throw cancelled(context, signal.reason, "not_sent");
      if (this.test) {
        // Another call is testing the server: wait for its verdict, then look again; a call
        // whose own time runs out first is refused, unsent, as one that cannot wait out the open period is.
        if (!(await settledWithin(this.test, heldUntil - this.now(), signal))) throw this.refusal(context, undefined, boundMs);
        continue;
      }
      if (!this.open) return this.run(fn);
      const remaining = this.remainingOpenMs;
      if (remaining === 0) return this.runTest(fn);
      if (this.now() + remaining > waitUntil) throw this.refusal(context, remaining);
      // The test is near: wait for it rather than fail a call the server may answer in a moment.
      // A server that refused the connection is tested as soon as it listens again, any other as soon as it answers a ping.
      const listening = this.lastError?.reason === "connection_refused" ? this.hooks.listening?.(remaining).then(this.listensAgain) : this.recovery?.answer();
      await sleep(remaining, signal, listening).catch((reason: unknown) => {
        throw cancelled(context, reason, "not_sent");
      });
    }
  }

  /**
   * May a call run now with no more of the breaker's help than `succeeded` and `failed` told its
   * end? Yes while the circuit is closed, no test is under way, no fleet shares it and the caller
   * has not aborted: what `execute` would do then is exactly that, so the pipeline can fold it
   * into the attempt's own step.
   */
  admitsDirectly(signal: AbortSignal | undefined): boolean {
    return this.options.enabled && !this.shared && !this.test && !this.open && !signal?.aborted;
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    const started = this.now();
    let value: T;
    try {
      value = await fn();
    } catch (error) {
      this.noteFailure(error, epoch, started);
      throw error;
    }
    return this.succeeded(value, started);
  }

  /** The server that refused the connection listens again (or answered a ping): the open period ends now. Made once. */
  private readonly listensAgain = (up: boolean): boolean => {
    if (up && this.open) this.openFor = Math.min(this.openFor, this.now() - this.openedAt);
    return up;
  };

  /**
   * A call through the closed circuit answered. `started`: the breaker's {@link now} when the
   * attempt began, for the slow-call rate. Made once, not per call.
   */
  readonly succeeded = <T>(value: T, started?: number): T => {
    this.failures = 0;
    const slow = this.windowed(false, started);
    this.shared?.report("healthy", undefined, false, slow);
    return value;
  };

  /**
   * A call through the closed circuit failed: counted if it was the server's failure, and new
   * evidence of it. `epoch`: the breaker's {@link epoch} when the attempt began; `started`: its {@link now} then.
   */
  noteFailure(error: unknown, epoch = this.epoch, started?: number): void {
    if (epoch !== this.epoch) return;
    const verdict = verdictOf(error);
    if (verdict === "healthy") {
      this.failures = 0;
      const slow = this.windowed(false, started);
      this.shared?.report("healthy", error, false, slow);
    } else if (verdict === "failure" && this.isNewEvidence(error as McpToolError)) {
      this.lastError = error as McpToolError;
      // Not in the report's arguments: `?.` would skip it without a fleet.
      const slow = this.windowed(true, started);
      this.shared?.report("failure", error, false, slow);
      if (++this.failures >= this.options.failureThreshold && !this.open) this.trip();
    }
  }

  /**
   * Puts a call that ended now in the window, when there is one, and opens the circuit when that
   * makes a rate reach its threshold. Answers whether the call was slow (for the fleet's window).
   */
  private windowed(failed: boolean, started: number | undefined): boolean {
    const window = this.window;
    if (!window) return false;
    const now = this.now();
    const slow = started !== undefined && window.isSlow(now - started);
    // While open, calls still in flight end: they tell of the server before the circuit opened.
    if (this.open || this.test) return slow;
    const reached = window.record(failed, slow, now);
    if (reached) this.trip(reached);
    return slow;
  }

  private runTest<T>(fn: () => Promise<T>): Promise<T> {
    this.hooks.onHalfOpen?.();
    const test = fn().then(
      (value) => {
        this.close();
        this.shared?.report("healthy", undefined, false);
        return value;
      },
      (error: unknown) => {
        const verdict = verdictOf(error);
        if (verdict !== "no_evidence") this.shared?.report(verdict, error, false);
        if (verdict === "healthy") this.close();
        else if (verdict === "failure") {
          this.lastError = error as McpToolError;
          this.trip();
        }
        // "no_evidence": the test was cancelled; the circuit stays open and the next call tests.
        throw error;
      },
    );
    const settled = test.then(
      () => undefined,
      () => undefined,
    );
    this.test = settled;
    void settled.then(() => {
      if (this.test === settled) this.test = undefined;
    });
    return test;
  }

  /** The fleet's one half-open test: a single attempt whose verdict goes to every process. */
  private async runFleetTest<T>(fn: () => Promise<T>): Promise<T> {
    this.hooks.onHalfOpen?.();
    try {
      const value = await fn();
      this.shared!.report("healthy", undefined, true);
      if (this.open) this.close();
      this.failures = 0;
      return value;
    } catch (error) {
      const verdict = verdictOf(error);
      this.shared!.report(verdict === "no_evidence" ? "abandoned" : verdict, error, true);
      if (verdict === "healthy" && this.open) this.close();
      if (verdict === "failure") this.lastError = error as McpToolError;
      throw error;
    }
  }

  /** Is this failure new evidence, or another call's view of a failure already counted? */
  private isNewEvidence(error: McpToolError): boolean {
    return this.counted.isNew(this.hooks.failureKey?.(error) ?? hedgedCallOf(error));
  }

  /** Opens the circuit; `rate`: the rate over the window that opened it, if not consecutive failures. */
  private trip(rate?: RateReached): void {
    this.rate = rate;
    this.openFor = openPeriodMs(this.options, this.trips, this.lastError?.reason === "connection_refused", this.hooks.random);
    this.trips++;
    this.open = true;
    this.openedAt = this.now();
    this.recovery?.opened(this.lastError, rate);
    // A slow-call rate is no failure's doing: the last failure may be long past.
    this.hooks.onOpen?.(rate?.rule === "slowCallRate" ? undefined : this.lastError, rate);
  }

  private close(): void {
    this.closes++;
    this.open = false;
    this.failures = 0;
    this.trips = 0;
    this.rate = undefined;
    this.window?.reset();
    this.recovery?.closed();
    this.hooks.onClose?.();
  }

  /** `heldMs`: the call waited that long for another call's test of the server, and its time ran out. */
  private refusal(context: CallContext, remainingMs?: number, heldMs?: number): McpToolError {
    return refusal({ serverName: this.serverName, lastError: this.lastError, rate: this.rate, slowCallMs: this.options.slowCallMs }, context, remainingMs, heldMs);
  }
}

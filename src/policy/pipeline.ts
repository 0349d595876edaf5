import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import { mayResend } from "../errors/safeRepeat.js";
import type { EventHub } from "../eventHub.js";
import { cancelled, either, type CallContext } from "./abort.js";
import { inTurn } from "./Bulkhead.js";
import type { CircuitBreaker } from "./CircuitBreaker.js";
import { runWithFallback, type Fallback, type WithFallback } from "./FallbackPolicy.js";
import type { ServerGuards } from "./guards.js";
import { believedWait } from "./RetryAfterGate.js";
import type { ResolvedPolicy } from "./resolve.js";
import { retriesAfterFirst, retryAfterFirst, type RetryHooks } from "./RetryPolicy.js";
import { AttemptScope } from "./TimeoutPolicy.js";
import { begin } from "./chain.js";
import { atDeadline, deadlineOf, isDeadlineError, tooLateToStart, type Deadline } from "./Deadline.js";
import type { HedgeGroup } from "./Hedger.js";
import { failedInHedge } from "./verdict.js";

export type { ServerGuards, ToolkitGuards } from "./guards.js";

/**
 * One attempt at the call, under its scope: `scope.signal` aborts on our timeout or the
 * caller's abort. `meta` holds entries to send in the request's `_meta` (trace context).
 * `input` is what `runPipeline` was given for this call, so that one spec (and one attempt
 * function) can serve every call of a tool.
 */
export type Attempt<T, I = undefined> = (scope: AttemptScope, attemptNumber: number, meta: Record<string, string> | undefined, input: I) => Promise<T>;

/**
 * Wraps a call and each of its attempts, for tracing: whatever runs inside `run` runs in the
 * instrumentation's context (a span), and an attempt is handed the `_meta` entries to send.
 * Without one, nothing is wrapped.
 */
export interface Instrumentation {
  call<T>(context: CallContext, run: () => Promise<T>): Promise<T>;
  attempt<T>(context: CallContext, attemptNumber: number, run: (meta: Record<string, string> | undefined) => Promise<T>): Promise<T>;
}

/** Everything one call runs under. The same pipeline serves McpToolkit's tools and `wrapTool`. */
export interface PipelineSpec<T, I = undefined> {
  context: CallContext;
  policy: Pick<ResolvedPolicy, "retry" | "timeoutMs" | "resetTimeoutOnProgress" | "maxTotalTimeoutMs" | "idempotent"> & Partial<Pick<ResolvedPolicy, "deadlineMs" | "minAttemptMs">>;
  /**
   * Makes one attempt, and rejects with the McpToolError it classified, where the most is
   * known about the failure (our timer, the caller's abort, the connection's state).
   */
  attempt: Attempt<T, I>;
  /** The server's guards, consulted before every attempt. */
  guards?: ServerGuards;
  fallback?: Fallback<T>;
  events?: EventHub;
  instrument?: Instrumentation;
  /** Report `call`, `success` and `error` for this call; off for a fallback's inner call. @default true */
  report?: boolean;
  /** The hedged call this attempt is one of: it waits for a breaker's test as a retrying call does, and its failures count once there (verdict.ts). */
  hedged?: HedgeGroup;
}

/**
 * One call through the policies, outermost first: fallback → retry → the server's guards
 * (its Retry-After, its throttle, its circuit breaker) → timeout → the attempt. The guards are consulted
 * before every attempt, so a circuit that opens during a call's retries stops them, and a
 * half-open test is a single attempt. The caller's signal and the toolkit's close reach every
 * stage, so either settles the call at once wherever it waits (`cancelled`, `closed`). Rejects
 * with an McpToolError made for this call alone (or a LangGraph control-flow signal, as it is).
 */
export function runPipeline<T, I = undefined>(spec: PipelineSpec<T, I>, signal?: AbortSignal, input?: I, deadline?: Deadline): Promise<WithFallback<T>> {
  const instrument = spec.instrument;
  return begin(() => (instrument ? instrument.call(spec.context, () => runCall(spec, signal, instrument, input as I, deadline)) : runCall(spec, signal, undefined, input as I, deadline)));
}

/** The call itself: its first attempt, then, only if it failed, the retries and the fallback. */
function runCall<T, I>(spec: PipelineSpec<T, I>, signal: AbortSignal | undefined, instrument: Instrumentation | undefined, input: I, deadline: Deadline | undefined): Promise<WithFallback<T>> {
  return new PipelineCall(spec, signal, instrument, input, deadline ?? deadlineOf(spec.policy)).run();
}

/**
 * One call's state. A class, not closures over `runCall`'s variables: its stages are methods,
 * shared by every call, so a call in flight holds one object instead of a closure per stage.
 * Every attempt, the first and each retry, takes the same way: the server's Retry-After, its
 * throttle (when it has one), its breaker, then the attempt under its own scope.
 */
class PipelineCall<T, I> {
  /** When the call began: its duration, and the retry policy's `maxRetryTime` counts from it. */
  private readonly started = performance.now();
  private attempts = 0;
  /** Was this call re-sent on a new session after the server forgot its old one? Once at most. */
  private resent = false;
  /** The signal of the call's waits (see `waitSignal`), and what detaches one made for the call. */
  private waits: AbortSignal | undefined;
  private unfollow: (() => void) | undefined;
  /** The last failure an attempt met: what the call settles with if its deadline runs out after it. */
  private lastFailure: McpToolError | undefined;

  constructor(
    private readonly spec: PipelineSpec<T, I>,
    private readonly signal: AbortSignal | undefined,
    private readonly instrument: Instrumentation | undefined,
    private readonly input: I,
    /** The call's deadline, fixed at its start: every wait and attempt below reads it. */
    private readonly deadline: Deadline,
  ) {}

  /** Report `type` (`call`, `success` or `error`)? Not when nobody listens: the event is not even built. */
  private reports(type: "call" | "success" | "error"): boolean {
    return this.spec.report !== false && this.spec.events !== undefined && this.spec.events.listens(type);
  }

  /**
   * What ends the call's waits outside an attempt (the Retry-After gate, the throttle's queue, a
   * half-open circuit, a backoff, a fallback): the caller's abort, the toolkit's close and the
   * call's deadline, in one signal whose reason tells them apart; made when the call first waits,
   * if ever. An attempt in flight hears the close from its connection (RequestTracker), and its
   * timer is cut to the deadline (AttemptScope).
   */
  private get waitSignal(): AbortSignal | undefined {
    if (!this.waits) ({ signal: this.waits, detach: this.unfollow } = either(this.signal, this.spec.guards?.closing, this.deadline.signal));
    return this.waits;
  }

  run(): Promise<WithFallback<T>> {
    const { events, context } = this.spec;
    if (this.reports("call")) events!.emit({ type: "call", ...context });
    return this.attempt(1).then(
      (value) => this.succeeded({ value }),
      (first: unknown) => this.firstFailed(first),
    );
  }

  /**
   * The first attempt failed. Most failures end here, in this reaction: nothing to repeat and no
   * fallback, so the call rejects without an async function's promise rejecting first, unheard
   * (Node's unhandled-rejection bookkeeping on every failed call; median 0.975× the async version's window, bench/callpath.ts).
   */
  private firstFailed(first: unknown): WithFallback<T> | Promise<WithFallback<T>> {
    if (this.resendable(first)) return this.resentFirst(first);
    const recovering = this.recover(first);
    if (!recovering) return this.failed(first);
    return recovering.then((out) => this.succeeded(out), (error: unknown) => this.failed(error));
  }

  /** The first attempt met a forgotten session: it is sent once more on the new one. */
  private resentFirst(first: McpToolError): Promise<WithFallback<T>> {
    return this.resend(1, first).then((value) => this.succeeded({ value }), (error: unknown) => this.firstFailed(error));
  }

  /**
   * Did the server refuse this attempt for a session it forgot (a restart)? Then the request
   * certainly did not run, and sending it again on the new session is its first run: it is
   * re-sent once, whatever the tool's idempotency, the retries left or the retry budget, as part
   * of the same attempt. Without this a write that met a restart fails although it never ran.
   */
  private resendable(error: unknown): error is McpToolError {
    return !this.resent && isMcpToolError(error) && error.reason === "session_expired" && mayResend(error) && !this.signal?.aborted;
  }

  private resend(n: number, error: McpToolError): Promise<T> {
    this.resent = true;
    this.spec.events?.emit({ type: "retry", ...this.spec.context, attempt: n, delayMs: 0, error });
    return this.attempt(n);
  }

  /** A retry's attempt, re-sent once on a new session if the server forgot the old one. */
  private async retryAttempt(n: number): Promise<T> {
    try {
      return await this.attempt(n);
    } catch (error) {
      if (this.resendable(error)) return this.resend(n, error);
      throw error;
    }
  }

  private attempt(n: number): Promise<T> {
    this.attempts = n;
    const gate = this.spec.guards?.gate;
    // Checked without an await: most attempts meet no wait.
    if (gate && gate.remainingMs > 0) return gate.pass(Math.min(this.spec.policy.retry.maxRetryAfterMs, this.deadline.spareMs), this.waitSignal, this.spec.context).then(() => this.paced(n));
    return this.paced(n);
  }

  /** The attempt at the rate the server takes, when it has a throttle: its turn is waited for within the attempt's timeout. */
  private paced(n: number): Promise<T> {
    const throttle = this.spec.guards?.throttle;
    return throttle ? throttle.run(() => this.guarded(n), Math.min(this.spec.policy.timeoutMs, this.deadline.spareMs), this.waitSignal, this.spec.context) : this.guarded(n);
  }

  /** A closed circuit hears the attempt's end from `timed`; any other state is the breaker's to run. */
  private guarded(n: number): Promise<T> {
    const { spec } = this;
    const breaker = spec.guards?.breaker;
    if (!breaker) return this.timed(n, undefined);
    if (breaker.admitsDirectly(this.signal)) return this.timed(n, breaker);
    // An open circuit about to test the server is waited for as a Retry-After is, within the retry policy's
    // longest wait and the attempt's timeout (a call with retries: 0 fails fast, for the model to choose;
    // one with a fallback, for the fallback to answer); another call's test under way, within the call's timeout.
    const boundMs = spec.fallback || spec.hedged?.fallback ? 0 : Math.min(spec.policy.timeoutMs, this.deadline.spareMs);
    const maxWaitMs = spec.policy.retry.retries > 0 || spec.hedged ? Math.min(spec.policy.retry.maxTimeout, boundMs) : 0;
    return breaker.execute(() => this.timed(n, undefined), this.waitSignal, spec.context, maxWaitMs, boundMs);
  }

  /**
   * One attempt under its scope; `circuit` is the closed breaker it reports its end to. An
   * attempt that would start with less than its floor of the deadline left is not sent.
   */
  private timed(n: number, circuit: CircuitBreaker | undefined): Promise<T> {
    if (!this.deadline.admits) return Promise.reject(tooLateToStart(this.deadline, this.spec.context, n, this.lastFailure));
    const scope = new AttemptScope(this.spec.policy, this.signal, this.deadline);
    const bulkhead = this.spec.guards?.bulkhead;
    const epoch = circuit?.epoch;
    // Timed from here, its turn in the bulkhead included, as resilience4j times a bulkhead inside its breaker.
    const started = circuit?.now();
    return (bulkhead ? inTurn(bulkhead, scope, this.spec.context, n, () => this.send(scope, n)) : this.send(scope, n)).then(
      (value) => {
        scope.dispose();
        this.spec.guards?.budget?.noteSuccess();
        return circuit ? circuit.succeeded(value, started) : value;
      },
      (thrown: unknown) => {
        scope.dispose();
        const cut = scope.expiredAfter !== undefined && "deadline" in scope.expiredAfter;
        throw this.endedBadly(circuit, epoch, n, thrown, cut, started);
      },
    );
  }

  /** The attempt itself, inside the instrumentation's span when there is one. */
  private send(scope: AttemptScope, n: number): Promise<T> {
    const { spec, instrument, input } = this;
    return begin(() => (instrument ? instrument.attempt(spec.context, n, (meta) => spec.attempt(scope, n, meta, input)) : spec.attempt(scope, n, undefined, input)));
  }

  /**
   * An attempt failed: the Retry-After gate and a closed circuit hear of it. Returns the error to
   * go on with. One the call's deadline cut (`cut`) is no news of the server: it is marked and
   * settles the call (see `failed`) with the last failure met before it. `started`: the breaker's clock when it began.
   */
  private endedBadly(circuit: CircuitBreaker | undefined, epoch: number | undefined, n: number, thrown: unknown, cut: boolean, started?: number): unknown {
    // Control flow (a LangGraph interrupt) is nobody's failure: it passes untouched.
    if (isControlFlow(thrown)) return thrown;
    // An attempt classifies its own failures; anything else is a bug we still report well.
    const classified = isMcpToolError(thrown) ? thrown : normalize(thrown, { ...this.spec.context, attempts: n });
    if (cut && classified.reason === "request_timeout") return atDeadline(classified, this.lastFailure, this.deadline.ms);
    const error = believedWait(classified, this.spec.policy.retry.maxRetryAfterMs);
    if (this.spec.hedged) failedInHedge(error, this.spec.hedged);
    this.spec.guards?.gate?.note(error);
    circuit?.noteFailure(error, epoch, started);
    this.lastFailure = error;
    return error;
  }

  /**
   * The first attempt failed: the retries, then the fallback, as the policy allows. `undefined`
   * when there is nothing to do: nothing to repeat (a tool's isError, a permanent error) and
   * no fallback, so neither policy is entered.
   */
  private recover(first: unknown): Promise<WithFallback<T>> | undefined {
    const { spec } = this;
    if (isControlFlow(first)) return undefined;
    const verdict = retriesAfterFirst(first as McpToolError, spec.policy.idempotent, spec.policy.retry);
    if (!verdict && !spec.fallback) return undefined;
    const { waitSignal } = this;
    const retried = () => {
      const { context, events, policy } = spec;
      const budget = spec.guards?.budget;
      const listening = spec.guards?.listening;
      const hooks: RetryHooks = {
        ...(waitSignal ? { signal: waitSignal } : {}),
        idempotent: policy.idempotent,
        context,
        ...(budget ? { budget } : {}),
        ...(listening ? { listening, listenWaitMs: policy.timeoutMs } : {}),
        deadline: this.deadline,
        ...(events ? { onRetry: (error, n, delayMs) => events.emit({ type: "retry", ...context, attempt: n, delayMs, error }) } : {}),
      };
      return retryAfterFirst(first as McpToolError, verdict, (n) => this.retryAttempt(n), policy.retry, hooks, this.started);
    };
    return runWithFallback(retried, spec.fallback, waitSignal);
  }

  private succeeded(out: WithFallback<T>): WithFallback<T> {
    this.unfollow?.();
    this.deadline.dispose();
    const { events, context } = this.spec;
    if (out.fallback && events) events.emit({ type: "fallback", ...context, error: out.fallback.error, fallback: out.fallback.name });
    if (this.reports("success")) events!.emit({ type: "success", ...context, attempts: Math.max(this.attempts, 1), durationMs: performance.now() - this.started });
    return out;
  }

  /** The call failed: it rejects with an McpToolError (or a control-flow signal), whatever the user's hooks threw. */
  private failed(thrown: unknown): never {
    this.unfollow?.();
    this.deadline.dispose();
    let error = isControlFlow(thrown) || isMcpToolError(thrown) ? thrown : normalize(thrown, { ...this.spec.context, attempts: this.attempts });
    // The deadline ended the call wherever it waited: it settles with the last failure it met.
    if (isMcpToolError(error) && isDeadlineError(error)) error = atDeadline(error, this.lastFailure, this.deadline.ms);
    if (isMcpToolError(error) && this.reports("error")) this.spec.events!.emit({ type: "error", ...this.spec.context, attempt: error.attempts, error });
    throw error;
  }
}

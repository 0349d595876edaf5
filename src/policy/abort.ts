import { McpToolError } from "../errors/McpToolError.js";

/**
 * The library's only helpers for signals and waits: one links a controller to a signal, one
 * joins two signals, one races a promise against a signal, one races a deadline, one sleeps.
 * Every wait a call can meet is built from these, so each ends at once on an abort (the
 * caller's or the toolkit's close, told apart by {@link cancelled}) and never outlives its bound.
 */

/**
 * Makes `controller` abort, with the same reason, when `signal` aborts (at once if it already
 * has). Returns what detaches the listener; call it when the controller's work is over.
 */
export function follow(controller: AbortController, signal: AbortSignal | undefined): () => void {
  if (!signal) return noop;
  if (signal.aborted) {
    controller.abort(signal.reason);
    return noop;
  }
  let followers = followersOf.get(signal);
  if (!followers) {
    const set = new Set<AbortController>();
    followers = { set, onAbort: () => abortAll(signal, set) };
    followersOf.set(signal, followers);
    signal.addEventListener("abort", followers.onAbort, { once: true });
  }
  const { set, onAbort } = followers;
  set.add(controller);
  return () => {
    if (!set.delete(controller) || set.size > 0) return;
    signal.removeEventListener("abort", onAbort);
    followersOf.delete(signal);
  };
}

/**
 * The controllers following each signal, behind one listener on it. A signal many calls share
 * (a LangGraph step's, with a ToolNode running a dozen tool calls; a caller's, over 256 parallel
 * calls) had a listener per attempt, and Node warns past ten on one signal
 * (MaxListenersExceededWarning: "Possible EventTarget memory leak"). Weakly held: a signal's
 * entry goes with it, and with its last follower.
 */
const followersOf = new WeakMap<AbortSignal, { set: Set<AbortController>; onAbort: () => void }>();

function abortAll(signal: AbortSignal, set: Set<AbortController>): void {
  followersOf.delete(signal);
  // Live: an abort runs its controller's listeners, and a follower they detach is not aborted after.
  for (const controller of set) controller.abort(signal.reason);
  set.clear();
}

function noop(): void {}

/**
 * A signal that aborts, with the first one's reason, when any of `signals` does; `detach` ends its
 * listeners (call it when the work is over). One alone is itself, with nothing to detach.
 */
export function either(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal | undefined; detach: () => void } {
  const given = [...new Set(signals.filter((s): s is AbortSignal => s !== undefined))];
  if (given.length <= 1) return { signal: given[0], detach: noop };
  const controller = new AbortController();
  const unfollows = given.map((signal) => follow(controller, signal));
  return {
    signal: controller.signal,
    detach: () => {
      for (const unfollow of unfollows) unfollow();
    },
  };
}

/**
 * Waits `ms`, rejecting at once with the signal's reason if it aborts; ends early, resolving,
 * when `wake` resolves `true` (a refused server listens again: see ListenWatch).
 */
export function sleep(ms: number, signal?: AbortSignal, wake?: Promise<boolean>): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    wake?.then((woken) => woken && end(), noop);
  });
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts. The
 * promise keeps running; its own rejection is still handled, so it never goes unhandled.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(noop);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs `run` under a signal that aborts when `signal` does or `ms` pass, whichever is first,
 * and settles as soon as that signal aborts, whether or not `run` heeds it: past the deadline
 * with `onTimeout()`, on the caller's abort with its reason. The timer and listener end with it.
 */
export function withDeadline<T>(ms: number, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>, onTimeout: () => unknown): Promise<T> {
  const controller = new AbortController();
  const unfollow = follow(controller, signal);
  // After a stalled loop, expired timers run before the I/O that arrived meanwhile: an answer
  // already waiting (a Redis reply, a fallback's) is read first, and the time runs out only then.
  let expiring: { cancel(): void } | undefined;
  const timer = setTimeout(() => (expiring = afterPendingIo(() => controller.abort(onTimeout()))), ms);
  let running: Promise<T>;
  try {
    running = run(controller.signal);
  } catch (error) {
    running = Promise.reject(error);
  }
  // Once the signal aborted, what `run` does next (failing as its work is stopped) is not the news.
  return raceAbort(running, controller.signal)
    .catch((error: unknown) => Promise.reject(controller.signal.aborted ? controller.signal.reason : error))
    .finally(() => {
      clearTimeout(timer);
      expiring?.cancel();
      unfollow();
    });
}

/** The longest a timer can run. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** What a wait for a verdict rejects with when its own time ran out. */
const OUT_OF_TIME = Symbol("out of time");
const outOfTime = (): symbol => OUT_OF_TIME;
const yes = (): boolean => true;

/**
 * Waits for `verdict` (a circuit breaker's test) to settle: `false` when `ms` ran out first,
 * else `true`, an abort of `signal` included (the waiter sees that itself).
 */
export function settledWithin(verdict: Promise<unknown>, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (ms === Number.POSITIVE_INFINITY) return raceAbort(verdict, signal).then(yes, yes);
  if (ms <= 0) return Promise.resolve(false);
  return withDeadline(Math.min(ms, MAX_TIMER_MS), signal, () => verdict, outOfTime).then(yes, (reason: unknown) => reason !== OUT_OF_TIME);
}

/** Who a call is for; policies that decide a failure themselves put it in the error. */
export interface CallContext {
  /** The name the model called. */
  toolName: string;
  /** The tool's name on the server, which its error texts name. */
  mcpName?: string;
  serverName?: string;
}

/**
 * The reason everything a server's calls wait on is aborted with when the toolkit closes: its
 * connection's closing signal, and through it every attempt in flight and every wait of a call
 * between attempts (a backoff, the Retry-After gate, a half-open circuit, a fallback). A wait
 * ended with it makes `closed`, not `cancelled` (see {@link cancelled}).
 */
export class ToolkitClosedError extends Error {
  override readonly name = "ToolkitClosedError";
  constructor(serverName: string) {
    super(`The toolkit was closed while the call to server '${serverName}' was in flight.`);
  }
}

/** The reason a call's waits end with when its deadline passes (policy/Deadline.ts). */
export class DeadlineExceeded extends Error {
  override readonly name = "DeadlineExceeded";
  constructor(readonly deadlineMs: number) {
    super(`The call's deadline of ${deadlineMs} ms ran out.`);
  }
}

/**
 * The error for a call stopped while a policy held it (a backoff, a half-open queue, a
 * reconnect): `closed` when the toolkit's close stopped it (`reason` is a ToolkitClosedError),
 * otherwise `cancelled`, its caller's abort. One function for both, so that every wait, built
 * from the helpers above and racing one signal, tells the two apart the same way. `outcome` is
 * `not_sent` when no attempt could have reached the server.
 */
export function cancelled(context: CallContext, reason: unknown, outcome: "not_sent" | "unknown" = "unknown"): McpToolError {
  if (reason instanceof ToolkitClosedError) return McpToolError.of("closed", reason.message, { ...context, outcome, cause: reason });
  // The call's own deadline (PipelineCall puts the last failure it met in its place), or a
  // caller's timer: LangChain turns a config's `timeout` into a signal that aborts with a
  // TimeoutError, and a LangGraph step's timeout does the same. Either is the caller's deadline.
  if (reason instanceof DeadlineExceeded) return McpToolError.of("request_timeout", reason.message, { ...context, outcome, cause: reason, data: { deadline: true } });
  if (isTimeoutReason(reason)) return McpToolError.of("request_timeout", "The caller's time for this call ran out.", { ...context, outcome, cause: reason, data: { deadline: true } });
  return McpToolError.of("cancelled", "The call was cancelled by the caller.", { ...context, outcome, cause: reason });
}

/** A signal's reason that says its time ran out: `AbortSignal.timeout`'s DOMException, as LangChain's `timeout` makes. */
function isTimeoutReason(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "TimeoutError";
}

/**
 * Runs `run` after the event loop has read the I/O that is ready now: Node's `setImmediate`
 * runs after the loop's poll phase. Where there is none (workerd, the edge runtime), a 0 ms
 * timer, which those runtimes run after the I/O they have queued.
 */
export function afterPendingIo(run: () => void): { cancel(): void } {
  if (typeof setImmediate === "function") {
    const handle = setImmediate(run);
    return { cancel: () => clearImmediate(handle) };
  }
  const handle = setTimeout(run, 0);
  return { cancel: () => clearTimeout(handle) };
}

import pRetry, { AbortError } from "p-retry";
import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, type McpToolError } from "../errors/McpToolError.js";
import { reasonInfo } from "../errors/reasons.js";
import { isSafeToRetry } from "../errors/safeRepeat.js";
import { DEFAULT_RETRY, type ResolvedRetry, type RetryOptions, type RetryUnknownOutcome } from "../config/index.js";
import { cancelled, sleep, type CallContext } from "./abort.js";
import { OutageWait } from "./outageWait.js";
import { askedWaitMs, serverWait, waitText } from "./RetryAfterGate.js";
import type { RetryBudget } from "./RetryBudget.js";
import { atDeadline, type Deadline } from "./Deadline.js";

export type { ResolvedRetry, RetryOptions, RetryUnknownOutcome };

/** The backoff before retry number `retry` (1-based), before Retry-After is considered. */
export function backoffDelay(retry: number, options: ResolvedRetry, random: () => number = Math.random): number {
  const jitter = options.randomize ? 1 + random() : 1;
  return Math.min(Math.round(jitter * options.minTimeout * options.factor ** (retry - 1)), options.maxTimeout);
}

const noop = (): void => {};
const alwaysTrue = (): boolean => true;

/**
 * Would repeating this failure be both useful and safe? A cancel never is, whatever a
 * custom `shouldRetry` says; `retryOnToolError` makes chosen `isError` answers repeatable;
 * everything else follows the safe-repeat rule.
 */
export function retryVerdict(error: McpToolError, attempt: number, idempotent: boolean, options: ResolvedRetry): boolean {
  const facts = reasonInfo(error.reason);
  if (facts.byCaller || facts.byGuard) return false;
  if (options.shouldRetry) return options.shouldRetry(error, attempt);
  const rule = options.retryOnToolError;
  // The tool ran and reported failure, and the policy asks for exactly this answer to be retried.
  if (error.kind === "domain" && rule) return typeof rule === "function" ? rule(error) : rule.test(error.message);
  return isSafeToRetry(error, idempotent, options.retryUnknownOutcome);
}

/**
 * Would the policy repeat a call whose first attempt failed with `first`? Asked once per
 * call, so that a custom `shouldRetry` hears each failure once; the answer goes to
 * {@link retryAfterFirst}.
 */
export function retriesAfterFirst(first: McpToolError, idempotent: boolean, options: ResolvedRetry): boolean {
  return options.retries > 0 && retryVerdict(first, 1, idempotent, options);
}

export interface RetryHooks {
  /** Ends a backoff wait at once: the caller's abort (`cancelled`) or the toolkit's close (`closed`), by its reason. */
  signal?: AbortSignal;
  idempotent: boolean;
  /** Who the call is for, for the error a cancel during a backoff becomes. */
  context: CallContext;
  /** Called before each wait, with the chosen delay. */
  onRetry?: (error: McpToolError, attempt: number, delayMs: number) => void;
  /** The server's retry budget: a retry it refuses is not made. */
  budget?: RetryBudget;
  /** After a refused connect: resolves `true` once the server listens again within `ms`, and the backoff ends there. */
  listening?: (ms: number) => Promise<boolean>;
  /**
   * With `listening`: the attempt's timeout. A call whose attempt was refused waits for the server
   * to listen, spending no retry (see OutageWait), for at most this and `maxTimeout` from its first
   * refusal: as long as it would wait for the breaker's test or a server's Retry-After.
   */
  listenWaitMs?: number;
  /** The call's deadline: no retry is made whose backoff leaves its attempt less than the deadline's floor. */
  deadline?: Deadline;
}

/**
 * The retries of a call whose first attempt failed with `first`, which the policy would repeat
 * if `firstVerdict` (from {@link retriesAfterFirst}). The first attempt runs
 * directly, in the pipeline's own step; only a failure comes here, and only one the policy
 * would repeat enters p-retry, so a call that succeeds pays for no retry machinery. The delay
 * is ours, not p-retry's, so that a server's Retry-After can be honoured exactly and reported
 * in the `retry` event. `started` is when the first attempt began, for `maxRetryTime`.
 *
 * `attempt` must reject with an McpToolError (classified where the most is known); this
 * rejects with one whose `attempts` is the count made (a copy only where the count differs).
 */
export async function retryAfterFirst<T>(
  first: McpToolError,
  firstVerdict: boolean,
  attempt: (attemptNumber: number) => Promise<T>,
  options: ResolvedRetry,
  hooks: RetryHooks,
  started: number,
): Promise<T> {
  // A failure nothing would repeat (a tool's isError, a permanent error) ends here, without
  // entering p-retry. Each attempt's error is already this call's own, made with its number.
  if (!firstVerdict) return Promise.reject(first.attempts === 1 ? first : first.with({ attempts: 1 }));
  let last = first;
  let attempts = 1;
  let giveUpNote: string | undefined;
  // Set when the call's deadline, not the policy, ended the retries.
  let byDeadline = false;
  // Retries spent. Counted here, not by p-retry: a refusal the server's listen watch then sees end spends none.
  let spent = 0;
  // The reasons retried at most once per call that have had their one retry.
  const onceSpent = new Set<string>();
  const outage = hooks.listening && hooks.listenWaitMs ? new OutageWait(hooks.listening, Math.min(options.maxTimeout, hooks.listenWaitMs), options.retries, hooks.signal) : undefined;
  try {
    return await pRetry(
      async (n) => {
        if (n === 1) throw first;
        attempts = n;
        try {
          return await attempt(n);
        } catch (error) {
          // p-retry rethrows an AbortError's original at once, without asking shouldRetry.
          if (isControlFlow(error)) throw new AbortError(error as Error);
          last = error as McpToolError;
          throw error;
        }
      },
      {
        retries: outage ? Number.POSITIVE_INFINITY : options.retries,
        // Our shouldRetry waits; p-retry's own delay stays at zero.
        minTimeout: 0,
        maxTimeout: 0,
        maxRetryTime: options.maxRetryTime,
        // Every option is given: p-retry fills missing ones into its copy of this object, and
        // that shape change costs ~20 µs a call in V8 (measured in bench/, a third of our overhead).
        factor: 1,
        randomize: false,
        onFailedAttempt: noop,
        shouldConsumeRetry: alwaysTrue,
        signal: hooks.signal,
        shouldRetry: async ({ error, attemptNumber }) => {
          const e = error as McpToolError;
          if (attemptNumber > 1 && !retryVerdict(e, attemptNumber, hooks.idempotent, options)) return false;
          // A refusal the call may wait out on the server's listen watch: at most this long, no retry spent.
          const { deadline } = hooks;
          const until = Math.min(started + options.maxRetryTime, deadline ? deadline.at - deadline.floorMs : Number.POSITIVE_INFINITY);
          const outageMs = outage?.waitFor(e, until) ?? 0;
          if (outageMs === 0 && spent >= options.retries) return false;
          // A request the server never saw on a connection that is gone (an expired session, a
          // closed pipe): the reconnect is the fresh start, and Connection backs off if it fails.
          const reconnectNow = attemptNumber === 1 && e.outcome === "not_sent" && reasonInfo(e.reason).connection === "lost";
          let delay = outageMs > 0 ? outageMs : reconnectNow ? 0 : backoffDelay(spent + 1, options);
          if (e.retryAfterMs !== undefined) {
            // A wait past maxRetryAfterMs is implausible or too long for this call: fail now, naming
            // it (the pipeline's believedWait already did, where it held the server to the bound).
            const asked = askedWaitMs(e)!;
            if (asked > options.maxRetryAfterMs) {
              if (asked === e.retryAfterMs) giveUpNote = `The server asked to wait ${waitText(asked)}, longer than the retry policy allows (maxRetryAfterMs ${options.maxRetryAfterMs} ms).`;
              return false;
            }
            // Never earlier than asked; the jitter only adds.
            delay = Math.max(delay, options.randomize ? serverWait(e.retryAfterMs) : e.retryAfterMs);
          }
          // A reason retried once per call (stale_state: the server named state to refresh).
          if (reasonInfo(e.reason).once) {
            if (onceSpent.has(e.reason)) return false;
            onceSpent.add(e.reason);
          }
          const remaining = options.maxRetryTime - (performance.now() - started);
          if (outageMs === 0 && delay >= remaining) {
            giveUpNote = `The retry time budget (${options.maxRetryTime} ms) is spent.`;
            return false;
          }
          // No attempt starts that cannot finish: a backoff that ends past the deadline's floor ends the call now.
          if (outageMs === 0 && deadline && delay >= deadline.spareMs) {
            byDeadline = true;
            return false;
          }
          // A request no server saw (the connection could not be made) adds no load when repeated.
          if (hooks.budget && !reasonInfo(e.reason).unreached && !hooks.budget.tryRetry()) {
            giveUpNote = "The server's retry budget is spent: too many calls to it are failing.";
            return false;
          }
          hooks.onRetry?.(e, attemptNumber, delay);
          if (outageMs > 0) {
            const waited = performance.now();
            if (await outage!.wait(outageMs)) return true;
            // The watch has nothing more to tell (the wait ran out, no address to watch, an error that
            // is not a refusal): the refusal spends a retry after all, after what is left of its backoff.
            if (spent >= options.retries) return false;
            const rest = backoffDelay(++spent, options) - (performance.now() - waited);
            if (rest > 0) await sleep(rest, hooks.signal);
            return true;
          }
          spent++;
          // A server that refused the connection is tried again the moment it listens: the backoff
          // spaces attempts over an outage, and waiting past its end only delays the call.
          const listens = e.reason === "connection_refused" && e.retryAfterMs === undefined && delay > 0 ? hooks.listening?.(delay) : undefined;
          await sleep(delay, hooks.signal, listens);
          return true;
        },
      },
    );
  } catch (thrown) {
    // A LangGraph interrupt thrown by an attempt is control flow: it reaches the graph as it is.
    if (isControlFlow(thrown)) throw thrown;
    // Anything but an attempt's own error is the caller's abort or the toolkit's close, met between attempts.
    const error =
      isMcpToolError(thrown) ? thrown : cancelled(hooks.context, thrown, last.outcome === "not_sent" ? "not_sent" : "unknown");
    if (byDeadline && hooks.deadline) return Promise.reject(atDeadline(error.with({ attempts }), undefined, hooks.deadline.ms));
    if (error.attempts === attempts && !giveUpNote) return Promise.reject(error);
    return Promise.reject(error.with({ attempts, ...(giveUpNote ? { message: `${error.message}${/[.!?…\]]$/.test(error.message) ? "" : "."} ${giveUpNote}` } : {}) }));
  }
}

/** For tests and docs: the full policy with defaults applied. */
export function resolveRetry(...layers: (RetryOptions | undefined)[]): ResolvedRetry {
  const out = { ...DEFAULT_RETRY } as ResolvedRetry;
  for (const layer of layers) {
    if (!layer) continue;
    for (const [k, v] of Object.entries(layer)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

import pRetry from "p-retry";
import type { McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import { sleep } from "./abort.js";

/** Which failures with an `unknown` outcome may be repeated. */
export type RetryUnknownOutcome = "idempotent" | boolean;

/** Retry options for one tool; every field is optional and has a default. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 2 */
  retries?: number;
  /** The first backoff delay, in milliseconds. @default 200 */
  minTimeout?: number;
  /** The longest backoff delay, and the longest Retry-After honoured, in milliseconds. @default 5000 */
  maxTimeout?: number;
  /** The backoff's growth per attempt. @default 2 */
  factor?: number;
  /** Multiply each delay by a random factor between 1 and 2. @default true */
  randomize?: boolean;
  /** The total time budget for all attempts and waits, in milliseconds. @default Infinity */
  maxRetryTime?: number;
  /**
   * May a failure whose outcome is `unknown` (the tool may have run) be repeated?
   * `"idempotent"`: only for tools known to be idempotent or read-only.
   * @default "idempotent"
   */
  retryUnknownOutcome?: RetryUnknownOutcome;
  /**
   * Overrides the verdict. The default is the error's `transient` flag combined with the
   * safe-repeat rule; `attempt` counts from 1.
   */
  shouldRetry?: (error: McpToolError, attempt: number) => boolean;
  /** Domain (`isError`) failures to retry, by message pattern or predicate. Off by default. */
  retryOnToolError?: RegExp | ((error: McpToolError) => boolean);
}

export type ResolvedRetry = Required<Omit<RetryOptions, "shouldRetry" | "retryOnToolError">> &
  Pick<RetryOptions, "shouldRetry" | "retryOnToolError">;

/** The defaults, stated once; the README's table is checked against this object by a test. */
export const DEFAULT_RETRY: ResolvedRetry = Object.freeze({
  retries: 2,
  minTimeout: 200,
  maxTimeout: 5000,
  factor: 2,
  randomize: true,
  maxRetryTime: Number.POSITIVE_INFINITY,
  retryUnknownOutcome: "idempotent" as RetryUnknownOutcome,
});

/** The backoff before retry number `retry` (1-based), before Retry-After is considered. */
export function backoffDelay(retry: number, options: ResolvedRetry, random: () => number = Math.random): number {
  const jitter = options.randomize ? 1 + random() : 1;
  return Math.min(Math.round(jitter * options.minTimeout * options.factor ** (retry - 1)), options.maxTimeout);
}

const noop = (): void => {};
const alwaysTrue = (): boolean => true;

/** Would repeating this failure be both useful and safe? */
export function retryVerdict(error: McpToolError, attempt: number, idempotent: boolean, options: ResolvedRetry): boolean {
  if (error.reason === "cancelled") return false;
  if (options.shouldRetry) return options.shouldRetry(error, attempt);
  let transient = error.transient;
  if (error.kind === "domain" && options.retryOnToolError) {
    const rule = options.retryOnToolError;
    transient = typeof rule === "function" ? rule(error) : rule.test(error.message);
  }
  if (!transient) return false;
  if (error.outcome === "not_sent") return true;
  const unknown = options.retryUnknownOutcome;
  // A tool that ran and reported failure was retried on purpose (retryOnToolError); any
  // other executed or unknown outcome repeats side effects, so the tool must be safe to repeat.
  if (error.kind === "domain" && options.retryOnToolError) return true;
  return unknown === true || (unknown === "idempotent" && idempotent);
}

export interface RetryHooks {
  /** The caller's signal; aborting it interrupts a backoff wait at once. */
  signal?: AbortSignal;
  idempotent: boolean;
  /** Called before each wait, with the chosen delay. */
  onRetry?: (error: McpToolError, attempt: number, delayMs: number) => void;
  /** Turns a thrown value into an McpToolError (with call context). */
  normalize?: (error: unknown) => McpToolError;
}

/**
 * Runs `attempt` under the policy with p-retry. The delay is ours, not p-retry's, so that a
 * server's Retry-After can be honoured exactly and reported in the `retry` event.
 * Always rejects with an McpToolError whose `attempts` is set.
 */
export async function runWithRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: ResolvedRetry,
  hooks: RetryHooks,
): Promise<T> {
  const toError = hooks.normalize ?? ((e: unknown) => normalize(e));
  const started = performance.now();
  let attempts = 0;
  let giveUpNote: string | undefined;
  try {
    return await pRetry(
      async (n) => {
        attempts = n;
        try {
          return await attempt(n);
        } catch (error) {
          throw toError(error);
        }
      },
      {
        retries: options.retries,
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
          if (!retryVerdict(e, attemptNumber, hooks.idempotent, options)) return false;
          let delay = backoffDelay(attemptNumber, options);
          if (e.retryAfterMs !== undefined) {
            if (e.retryAfterMs > options.maxTimeout) {
              giveUpNote = `The server asked to wait ${Math.ceil(e.retryAfterMs / 1000)} s, longer than the retry policy allows (${options.maxTimeout} ms).`;
              return false;
            }
            delay = Math.max(delay, e.retryAfterMs);
          }
          const remaining = options.maxRetryTime - (performance.now() - started);
          if (delay >= remaining) {
            giveUpNote = `The retry time budget (${options.maxRetryTime} ms) is spent.`;
            return false;
          }
          hooks.onRetry?.(e, attemptNumber, delay);
          await sleep(delay, hooks.signal);
          return true;
        },
      },
    );
  } catch (error) {
    const e = toError(error);
    e.attempts = Math.max(attempts, 1);
    return Promise.reject(giveUpNote ? e.with({ message: `${e.message} ${giveUpNote}` }) : e);
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

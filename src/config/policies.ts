/**
 * The policy options of the one configuration schema: retry, breaker, retry budget,
 * reconnection and error options (a tool policy's own are in toolPolicy.ts). Each default is
 * stated here once, with its `@default` tag; see schema.ts for how they layer.
 */
import { z } from "zod";
import type { McpToolError } from "../errors/McpToolError.js";
import { DEFAULT_MAX_LENGTH } from "../errors/text.js";
import { custom, expected, flag, fn, isObject, number, oneOf, options } from "./fields.js";

export type { RetryUnknownOutcome } from "../errors/safeRepeat.js";

const retryFields = options({
  /**
   * Retries after the first attempt. A refused connection spends none when the server listens
   * again within the call's wait for it (`maxTimeout`): the call waits for that and goes. @default 2
   */
  retries: number({ integer: true, infinite: true }).default(2),
  /** The first backoff delay, in milliseconds. @default 200 */
  minTimeout: number().default(200),
  /**
   * The longest backoff delay, and the longest wait for a server that refused the connection to
   * listen again, in milliseconds. @default 5000
   */
  maxTimeout: number({ infinite: true }).default(5000),
  /**
   * The longest wait a server may ask for (`data.retryAfterMs`, preferred, or a Retry-After
   * header), in milliseconds. A call waits at least what was asked, plus a little jitter, never
   * less; a longer wait is implausible or too long for this call, and the call fails at once
   * with the wait named in its message, while the server is held back (the Retry-After gate, the
   * throttle, the fleet) for this long at most. @default 60000
   */
  maxRetryAfterMs: number({ infinite: true }).default(60_000),
  /** The backoff's growth per attempt. @default 2 */
  factor: number().default(2),
  /** Multiply each delay by a random factor between 1 and 2. @default true */
  randomize: flag().default(true),
  /** The total time budget for all attempts and waits, in milliseconds. @default Infinity */
  maxRetryTime: number({ infinite: true }).default(Number.POSITIVE_INFINITY),
  /**
   * May a failure whose outcome is `unknown` (the tool may have run) be repeated?
   * `"idempotent"`: only for tools known to be idempotent or read-only.
   * @default "idempotent"
   */
  retryUnknownOutcome: oneOf(["idempotent", true, false]).default("idempotent"),
  /**
   * Overrides the verdict. The default is the error's `transient` flag combined with the
   * safe-repeat rule; `attempt` counts from 1.
   */
  shouldRetry: fn<(error: McpToolError, attempt: number) => boolean>().optional(),
  /** Domain (`isError`) failures to retry, by message pattern or predicate. Off by default. */
  retryOnToolError: custom<RegExp | ((error: McpToolError) => boolean)>("a RegExp or a function", (v) => v instanceof RegExp || typeof v === "function").optional(),
});

/**
 * Retry options for one layer. `minTimeout ≤ maxTimeout` is checked only where one layer sets
 * both: the other may come from a layer below, so the defaults must not take part.
 */
export const RetryOptionsSchema = z.preprocess<unknown, typeof retryFields, z.input<typeof retryFields>>((layer: unknown, ctx) => {
  if (isObject(layer) && typeof layer.minTimeout === "number" && typeof layer.maxTimeout === "number" && layer.minTimeout > layer.maxTimeout) {
    // Reported only for an otherwise valid object, so the first problem named is the first field's.
    if (retryFields.safeParse(layer).success) ctx.addIssue({ code: "custom", path: ["minTimeout"], input: layer.minTimeout, message: `must not exceed maxTimeout (${layer.maxTimeout})` });
  }
  return layer;
}, retryFields);

/** Retry options for one layer; a field left out comes from the layer below. */
export interface RetryOptions extends z.input<typeof RetryOptionsSchema> {}

/** A share of calls, above 0 and at most 1: 0.5 is half. */
const share = () => custom<number>("a number above 0 and at most 1", (v) => typeof v === "number" && v > 0 && v <= 1);

/**
 * The breaker's sliding window: its last `calls` calls (resilience4j's COUNT_BASED), or the calls
 * of its last `ms` milliseconds (TIME_BASED; Polly's `SamplingDuration`).
 */
export const BreakerWindowSchema = z.union([options({ calls: number({ min: 1, integer: true }) }), options({ ms: number({ min: 1 }) })]);

/** Circuit breaker options, per server or for the whole toolkit. */
export const BreakerOptionsSchema = options({
  /** Consecutive transient failures that open the circuit. @default 5 */
  failureThreshold: number({ min: 1, integer: true }).default(5),
  /**
   * The share of the calls in the `window` that failed (by the same rule as `failureThreshold`)
   * at or above which the circuit opens, once the window holds `minimumCalls`: resilience4j's
   * `failureRateThreshold` (a percentage there, 50 is 0.5 here), Polly's `FailureRatio`.
   * Off unless set.
   */
  failureRate: share().optional(),
  /**
   * The share of the calls in the `window` that took longer than `slowCallMs`, answered or
   * failed, at or above which the circuit opens, once the window holds `minimumCalls`:
   * resilience4j's `slowCallRateThreshold`. Off unless set; needs `slowCallMs`.
   */
  slowCallRate: share().optional(),
  /** A call that takes longer than this, in milliseconds, is slow (resilience4j's `slowCallDurationThreshold`). Needed by `slowCallRate`. */
  slowCallMs: number({ min: 1 }).optional(),
  /**
   * The calls the `window` must hold before `failureRate` and `slowCallRate` are read
   * (resilience4j's `minimumNumberOfCalls`, Polly's `MinimumThroughput`); a count window's size
   * when that is smaller. @default 10
   */
  minimumCalls: number({ min: 1, integer: true }).default(10),
  /**
   * The calls `failureRate` and `slowCallRate` are read over: `{ calls: n }`, the last n calls,
   * or `{ ms: n }`, the calls of the last n milliseconds. @default { calls: 20 }
   */
  window: BreakerWindowSchema.default({ calls: 20 }),
  /**
   * The longest the circuit stays open before one call may test the server, in milliseconds:
   * the open period starts at `initialHalfOpenAfterMs` and doubles with each failed test, up to
   * this. @default 30000
   */
  halfOpenAfterMs: number().default(30_000),
  /**
   * The first open period after the circuit was closed, in milliseconds. Short, so that a
   * server back after a blip (a restart, a deploy) is tested soon; a server that stays down is
   * tested less and less often. Set it equal to `halfOpenAfterMs` for a fixed period.
   * @default 100
   */
  initialHalfOpenAfterMs: number().default(100),
  /**
   * Spread of the open period: each opening lasts its period times a random factor
   * between 1 and 1 + this, so many processes that opened together do not all test at once.
   * @default 0.2
   */
  halfOpenJitter: number({ max: 1 }).default(0.2),
  /**
   * While the circuit is open because the server itself failed (a refused, reset or closed
   * connection, an HTTP 5xx, a timeout), the server is sent MCP's `ping` at most once per this
   * many milliseconds, whatever the open period has grown to; once one answers, the next call
   * tests the server, and its success closes the circuit. 0 turns it off. A tool's own failures
   * keep the open period's rule. @default 1000
   */
  recoveryPingMs: number({ min: 0 }).default(1000),
  /** Set to false to turn the breaker off. @default true */
  enabled: flag().default(true),
});
export interface BreakerOptions extends z.input<typeof BreakerOptionsSchema> {}

/**
 * A server's retry budget, a token bucket as in AWS's standard retry mode: it starts full, each
 * retry takes `retryCost` tokens (`timeoutRetryCost` after a timeout), each successful attempt
 * puts `successRefill` back, and when too few are left no call to the server retries. A one-off
 * burst (a restart fails every call in flight at once) is let through; a sustained storm empties
 * the bucket and stops, until the server answers again.
 */
export const RetryBudgetOptionsSchema = options({
  /** Tokens the bucket holds when full, as it starts: `capacity / retryCost` retries in a row with no success. @default 500 */
  capacity: number().default(500),
  /** Tokens one retry takes. @default 5 */
  retryCost: number().default(5),
  /** Tokens one retry after a timeout (`request_timeout`, `network_timeout`) takes: a slow server is spared sooner. @default 10 */
  timeoutRetryCost: number().default(10),
  /** Tokens a successful attempt puts back, up to `capacity`. @default 1 */
  successRefill: number().default(1),
  /** Set to false to turn the budget off. @default true */
  enabled: flag().default(true),
});
export interface RetryBudgetOptions extends z.input<typeof RetryBudgetOptionsSchema> {}

/**
 * A server's adaptive send rate, as in AWS's adaptive retry mode: off until the server first
 * answers `rate_limited` (a 429, a JSON-RPC rate-limit error); from then on every attempt to it
 * takes a token from a bucket whose fill rate is cut to `beta` of the rate it was sending at on
 * each such answer, and grows back along a CUBIC curve (`scale`). A call that may wait for its
 * token within its timeout waits; any other fails at once, `rate_limited`, unsent. With
 * `sharedState`, an HTTP server's cuts are shared by every process on the Redis.
 */
export const ThrottleOptionsSchema = options({
  /** The share of its send rate the client keeps after a rate-limited answer (CUBIC's β). @default 0.7 */
  beta: number({ max: 1 }).default(0.7),
  /** How fast the rate grows back after a cut, in calls per second per second cubed (CUBIC's C). @default 0.4 */
  scale: number().default(0.4),
  /** The lowest rate a cut may leave, in calls per second. @default 0.5 */
  minRate: number().default(0.5),
  /** Set to false to turn the throttle off (a server's `false` over the toolkit's). @default true */
  enabled: flag().default(true),
});
export interface ThrottleOptions extends z.input<typeof ThrottleOptionsSchema> {}

/** `throttle: true` turns the throttle on with its defaults; an object sets its fields. */
export const ThrottleSettingSchema = z.union([flag(), ThrottleOptionsSchema]);

/** Reconnection after a closed connection, an exited process or an expired session. */
export const ReconnectOptionsSchema = options({
  /** Reconnect automatically before the next call. @default true */
  enabled: flag().default(true),
  /** The first wait after a failed reconnect, in milliseconds. @default 100 */
  minDelayMs: number().default(100),
  /** The longest wait between reconnect attempts, in milliseconds. @default 5000 */
  maxDelayMs: number().default(5000),
});
export interface ReconnectOptions extends z.input<typeof ReconnectOptionsSchema> {}

/** How failures reach the caller. */
export const ErrorOptionsSchema = options({
  /** `"return"`: an error ToolMessage (or text); `"throw"`: the McpToolError itself. @default "return" */
  mode: oneOf(["return", "throw"]).default("return"),
  /** The longest message the model reads. @default 1000 */
  maxLength: number({ min: 20, integer: true }).default(DEFAULT_MAX_LENGTH),
  /** More secrets to remove from model text: exact strings or patterns. */
  redact: z
    .array(custom<string | RegExp>("a string or a RegExp", (v) => typeof v === "string" || v instanceof RegExp), { error: expected("an array of strings or RegExps") })
    .optional(),
});
export interface ErrorOptions extends z.input<typeof ErrorOptionsSchema> {}

/** Called before a fallback runs; returning `"skip"` keeps the original error. */
export type BeforeFallback = (toolName: string, args: Record<string, unknown>, error: McpToolError) => "skip" | void | Promise<"skip" | void>;

/** A retry policy with every default applied, as the pipeline runs it. */
export type ResolvedRetry = z.output<typeof RetryOptionsSchema>;

/**
 * A call's deadline when no layer sets `deadlineMs`: the longest the call takes when every attempt
 * runs to its own bound and waits its longest before it (a backoff, a half-open test, a listen
 * watch: `maxTimeout`, and at least a second, for what a busy machine spends between attempts),
 * `(attempt + max(maxTimeout, 1000)) × (retries + 1)` (35000 × 3 = 105000 ms with every default).
 * An attempt's bound is its `timeoutMs` (its `maxTotalTimeoutMs` where that is shorter), or with
 * `resetTimeoutOnProgress` its `maxTotalTimeoutMs`, and none without one: a tool kept alive by
 * progress is not cut. So the default deadline does not end a call the other policies would let
 * go on; it ends the waits they leave unbounded (a Retry-After up to `maxRetryAfterMs`, a
 * throttle's pause, a fallback server's own retries), as gRPC's one deadline over retries
 * (gRFC A6) and Envoy's route timeout over `per_try_timeout` do.
 */
/** The least time the derived deadline leaves between attempts, for a busy machine's own delays. */
const BETWEEN_ATTEMPTS_MS = 1000;

export function derivedDeadlineMs(policy: { timeoutMs: number; resetTimeoutOnProgress: boolean; maxTotalTimeoutMs?: number | undefined; retry: { retries: number; maxTimeout: number } }): number {
  const cap = policy.maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY;
  const attempt = policy.resetTimeoutOnProgress ? cap : Math.min(policy.timeoutMs, cap);
  const { retries, maxTimeout } = policy.retry;
  return (attempt + Math.max(maxTimeout, BETWEEN_ATTEMPTS_MS)) * (retries + 1);
}

import type { Bulkhead } from "./Bulkhead.js";
import type { CircuitBreaker } from "./CircuitBreaker.js";
import type { RetryAfterGate } from "./RetryAfterGate.js";
import type { RetryBudget } from "./RetryBudget.js";
import type { Throttle } from "./Throttle.js";

/** What protects one server from its callers: each is consulted before every attempt. */
export interface ServerGuards {
  breaker?: CircuitBreaker;
  /** The server's own Retry-After, kept for all its calls. */
  gate?: RetryAfterGate;
  /** Caps the retries to the server: a token bucket that a burst draws on and a storm empties. */
  budget?: RetryBudget;
  /** The send rate the server's rate-limited answers taught (`throttle`); unset, no limit. */
  throttle?: Throttle;
  /** Limits the server's calls in flight; unset, no limit. */
  bulkhead?: Bulkhead;
  /** Resolves `true` once a server that refused the connection listens again within `ms` (see ListenWatch). */
  listening?: (ms: number) => Promise<boolean>;
  /** Aborts with a ToolkitClosedError when the toolkit closes: it ends every wait of the call as `closed`. */
  closing?: AbortSignal;
}

/** A toolkit server's guards: a breaker, a Retry-After gate and a retry budget always; a bulkhead and a throttle when configured. */
export type ToolkitGuards = Required<Pick<ServerGuards, "breaker" | "gate" | "budget">> & Pick<ServerGuards, "bulkhead" | "throttle" | "listening" | "closing">;

/**
 * The circuit breaker's vocabulary, shared with the fleet's circuit (src/fleet): its states,
 * its hooks, what an attempt says about the server, and the fleet's view of a circuit.
 */
import type { McpToolError } from "../errors/McpToolError.js";
import type { McpEvent, RateReached } from "../events.js";

export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerHooks {
  /** `rate`: the rate over the breaker's window that opened it, when not consecutive failures. */
  onOpen?: (lastError: McpToolError | undefined, rate?: RateReached) => void;
  onHalfOpen?: () => void;
  onClose?: () => void;
  /**
   * Failures with the same key count once: every call in flight on a connection that died
   * fails with it, and that is one piece of evidence about the server, not six.
   */
  failureKey?: (error: McpToolError) => string | undefined;
  /**
   * While the circuit is open because the server refused the connection: resolves `true` once
   * it listens again within `ms` (see ListenWatch), and the open period ends there.
   */
  listening?: (ms: number) => Promise<boolean>;
  /**
   * MCP's `ping` to the server: resolves true when the server answered at all. While the circuit
   * is open because the server failed, it is sent at most once per `recoveryPingMs`
   * (RecoveryPing), and an answer ends the open period.
   */
  ping?: (signal: AbortSignal) => Promise<boolean>;
  /** Aborts when the toolkit closes: pinging stops. */
  closing?: AbortSignal;
  /** For tests: the random factor behind the jitter. @default Math.random */
  random?: () => number;
  /** For tests: the clock, in milliseconds. @default performance.now */
  now?: () => number;
}

/**
 * The fleet's view of one server's circuit, kept by `src/fleet` when `sharedState` is set.
 * Every method answers from a local snapshot, or within a deadline of milliseconds, so a call
 * never waits on the store; `undefined` means "no fleet view now", and the local breaker decides.
 */
export interface SharedCircuit {
  /** The fleet's circuit as last seen, or undefined while the store is unreachable. */
  state(): BreakerState | undefined;
  /**
   * Decides a call while the fleet's circuit is not closed, by the process breaker's rules: it
   * waits (at most `maxWaitMs`) for the open period to end, a refused server to listen again,
   * or another process's test to end, then asks to be the fleet's one test. `"test"`: this call
   * tests. `{ refusedForMs }`: the circuit stays open beyond the caller's wait. `"local"`: the
   * fleet closed, the store did not answer in time, or `signal` aborted; the local breaker decides.
   */
  admit(maxWaitMs: number, signal: AbortSignal | undefined): Promise<"test" | "local" | { refusedForMs: number }>;
  /**
   * What an attempt said about the server, sent in the background; `test` marks the fleet's test,
   * `slow` an attempt longer than the breaker's `slowCallMs`.
   */
  report(verdict: Verdict | "abandoned", error: unknown, test: boolean, slow?: boolean): void;
  /** Calls `listener` when the fleet's circuit closes, so a local circuit opened by the same outage closes too. */
  onClose(listener: () => void): void;
}

/** What one finished call says about the server. */
export type Verdict = "failure" | "healthy" | "no_evidence";

/** Hooks that report a breaker's changes as `circuit_open`, `half_open` and `circuit_close` events. */
export function breakerEvents(serverName: string, emit: (event: McpEvent) => void): BreakerHooks {
  return {
    onOpen: (error, rate) => emit({ type: "circuit_open", serverName, ...(error ? { error } : {}), ...(rate ? { rate } : {}) }),
    onHalfOpen: () => emit({ type: "half_open", serverName }),
    onClose: () => emit({ type: "circuit_close", serverName }),
  };
}

import { BrokenCircuitError, circuitBreaker, ConsecutiveBreaker, handleWhen, type CircuitBreakerPolicy } from "cockatiel";
import { isServerFailure, McpToolError } from "../errors/McpToolError.js";

/** Circuit breaker options, per server or for the whole toolkit. */
export interface BreakerOptions {
  /** Consecutive transient failures that open the circuit. @default 5 */
  failureThreshold?: number;
  /** How long the circuit stays open before one call may test the server, in milliseconds. @default 30000 */
  halfOpenAfterMs?: number;
  /** Set to false to turn the breaker off. @default true */
  enabled?: boolean;
}

/** @default { failureThreshold: 5, halfOpenAfterMs: 30000, enabled: true } */
export const DEFAULT_BREAKER: Required<BreakerOptions> = Object.freeze({
  failureThreshold: 5,
  halfOpenAfterMs: 30_000,
  enabled: true,
});

export interface BreakerHooks {
  onOpen?: (lastError: McpToolError | undefined) => void;
  onClose?: () => void;
}

/**
 * One server's breaker, on cockatiel's consecutive breaker. While open, `execute` rejects
 * at once with `circuit_open` (transient, `not_sent`), without touching the server.
 */
export class CircuitBreaker {
  private readonly policy: CircuitBreakerPolicy | undefined;
  private lastError: McpToolError | undefined;

  constructor(
    private readonly serverName: string,
    options: BreakerOptions,
    hooks: BreakerHooks = {},
  ) {
    const o = { ...DEFAULT_BREAKER, ...options };
    if (!o.enabled) return;
    this.policy = circuitBreaker(handleWhen(isServerFailure), {
      halfOpenAfter: o.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(o.failureThreshold),
    });
    this.policy.onFailure(({ reason }) => {
      if ("error" in reason && reason.error instanceof McpToolError) this.lastError = reason.error;
    });
    this.policy.onBreak(() => hooks.onOpen?.(this.lastError));
    this.policy.onReset(() => hooks.onClose?.());
  }

  async execute<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.policy) return fn();
    try {
      return await this.policy.execute(fn);
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw McpToolError.of(
          "circuit_open",
          `Calls to server '${this.serverName}' are paused after repeated failures${this.lastError ? ` (last: ${this.lastError.reason})` : ""}.`,
          { serverName: this.serverName, cause: error },
        );
      }
      throw error;
    }
  }

  /** "closed", "open" or "half-open". */
  get state(): "closed" | "open" | "half-open" {
    const s = this.policy?.state;
    return s === 1 ? "open" : s === 2 ? "half-open" : "closed";
  }
}

/**
 * When a connection may try to connect again: at once after a lost connection, then after each
 * failed attempt a wait that doubles from `minDelayMs` to `maxDelayMs`. A server that refuses
 * the connection is tried again within {@link REFUSED_RETRY_MS}: nothing listens, so the attempt
 * costs it nothing, and the calls waiting on the connection share each attempt.
 */
import type { ReconnectOptions } from "../config/index.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { sleep } from "../policy/abort.js";
import { REFUSED_RETRY_MS } from "../policy/CircuitBreaker.js";

export class ReconnectBackoff {
  private failures = 0;
  private nextAttemptAt = 0;
  /** Why the last attempt failed, until one succeeds: the cause a call waiting on the next one reports. */
  lastError: McpToolError | undefined;

  constructor(
    private readonly options: Required<ReconnectOptions>,
    /** Resolves `true` once a server that refused the connection listens again within `ms`. */
    private readonly listening?: (ms: number) => Promise<boolean>,
  ) {}

  /**
   * Waits until the next attempt may start; `signal` (the toolkit closing) ends the wait at
   * once, and so does a server that refused the connection listening again.
   */
  async turn(signal: AbortSignal): Promise<void> {
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait, signal, this.lastError?.reason === "connection_refused" ? this.listening?.(wait) : undefined);
  }

  succeeded(): void {
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.lastError = undefined;
  }

  failed(error: McpToolError): void {
    this.failures++;
    this.lastError = error;
    let delay = Math.min(this.options.maxDelayMs, this.options.minDelayMs * 2 ** (this.failures - 1));
    if (error.reason === "connection_refused") delay = Math.min(delay, REFUSED_RETRY_MS);
    this.nextAttemptAt = Date.now() + delay;
  }
}

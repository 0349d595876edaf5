/**
 * When a connection may try to connect again: at once after a lost connection, then after each
 * failed attempt a wait that doubles from `minDelayMs` to `maxDelayMs`. A server that refuses
 * the connection may be tried again at once: nothing listens, so the attempt costs it nothing,
 * the calls waiting on the connection share each attempt, and the breaker paces the calls to a
 * server that stays down (a call with no retries fails as fast as the refusal comes).
 */
import type { ReconnectOptions } from "../../config/index.js";
import type { McpToolError } from "../../errors/McpToolError.js";
import { sleep } from "../../policy/abort.js";

export class ReconnectBackoff {
  private failures = 0;
  private nextAttemptAt = 0;
  /** Why the last attempt failed, until one succeeds: the cause a call waiting on the next one reports. */
  lastError: McpToolError | undefined;

  constructor(private readonly options: Required<ReconnectOptions>) {}

  /** Waits until the next attempt may start; `signal` (the toolkit closing) ends the wait at once. */
  async turn(signal: AbortSignal): Promise<void> {
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) await sleep(wait, signal);
  }

  succeeded(): void {
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.lastError = undefined;
  }

  failed(error: McpToolError): void {
    this.failures++;
    this.lastError = error;
    const delay = error.reason === "connection_refused" ? 0 : Math.min(this.options.maxDelayMs, this.options.minDelayMs * 2 ** (this.failures - 1));
    this.nextAttemptAt = Date.now() + delay;
  }
}

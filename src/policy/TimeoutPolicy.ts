import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export interface AttemptTimeoutOptions {
  /** Per-attempt timeout, in milliseconds. */
  timeoutMs: number;
  /** Restart the timeout on each progress notification. */
  resetTimeoutOnProgress: boolean;
  /** A hard cap even with progress, in milliseconds. */
  maxTotalTimeoutMs?: number;
}

/**
 * One attempt's abort controller: it aborts when the caller's signal does, when the
 * attempt's timeout passes, or when the total cap passes. Aborting the signal handed to the
 * SDK makes it send `notifications/cancelled`, so the server stops its work too, which the
 * SDK's own `maxTotalTimeout` does not do.
 */
export class AttemptScope {
  readonly controller = new AbortController();
  /** Which of our timers fired, if any. */
  timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly options: AttemptTimeoutOptions,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.onCallerAbort = () => this.controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.arm();
    if (options.maxTotalTimeoutMs !== undefined) {
      const max = options.maxTotalTimeoutMs;
      this.totalTimer = setTimeout(() => this.expire({ maxTotalTimeout: max }), max);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** For `onprogress`: restarts the attempt's timeout when the policy says so. */
  readonly progress = (): void => {
    if (this.options.resetTimeoutOnProgress && !this.controller.signal.aborted) this.arm();
  };

  private arm(): void {
    clearTimeout(this.timer);
    const timeout = this.options.timeoutMs;
    this.timer = setTimeout(() => this.expire({ timeout }), timeout);
  }

  private expire(data: { timeout: number } | { maxTotalTimeout: number }): void {
    if (this.controller.signal.aborted) return;
    this.timedOut = true;
    // The SDK's own timeout error shape, so the error reads the same whichever timer fired.
    this.controller.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out", data));
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.totalTimer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}

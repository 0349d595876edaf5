import { McpToolError } from "../errors/McpToolError.js";
import { cancelled, sleep, type CallContext } from "./abort.js";

/**
 * How long to wait when a server asked for `askedMs`: what it asked, plus a jitter of up to 10 %
 * (at most 1 s) so that the callers it held back do not all return in the same instant. The
 * jitter only adds: no call goes back earlier than the server asked.
 */
export function serverWait(askedMs: number, random: () => number = Math.random): number {
  return Math.ceil(askedMs + random() * Math.min(askedMs * 0.1, 1000));
}

/** "3 s", "250 ms": a wait as a message names it. */
export function waitText(ms: number): string {
  return ms >= 1000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms)} ms`;
}

/**
 * A wait the server stated, believed up to `maxMs` (the retry policy's `maxRetryAfterMs`): a longer
 * one (a server that wrote a time of day where a delay belongs, `Date.now() + 2000`) holds the
 * server for `maxMs` at most, on the gate, the throttle and the fleet alike, since each reads the
 * error this returns. The text says the server asked for longer; `data.askedRetryAfterMs` keeps
 * what it asked.
 */
export function believedWait(error: McpToolError, maxMs: number): McpToolError {
  const asked = error.retryAfterMs;
  if (asked === undefined || asked <= maxMs) return error;
  const data = error.data;
  const kept = typeof data === "object" && data !== null && !Array.isArray(data) ? { ...(data as Record<string, unknown>), askedRetryAfterMs: asked } : data === undefined ? { askedRetryAfterMs: asked } : { data, askedRetryAfterMs: asked };
  const said = error.message;
  const message = `${said}${/[.!?…\]]$/.test(said) ? "" : "."} The server asked to wait ${waitText(asked)}, longer than the retry policy allows (maxRetryAfterMs ${maxMs} ms): calls to it are held back for ${waitText(maxMs)} at most.`;
  return error.with({ retryAfterMs: maxMs, data: kept, message });
}

/** The wait the server asked for: more than `retryAfterMs` says where {@link believedWait} held it to a bound. */
export function askedWaitMs(error: McpToolError): number | undefined {
  const asked = (error.data as { askedRetryAfterMs?: unknown } | undefined)?.askedRetryAfterMs;
  return typeof asked === "number" ? asked : error.retryAfterMs;
}

/**
 * The fleet's copy of a server's wait, kept by `src/fleet` when `sharedState` is set. Both
 * methods are synchronous: a wait learnt from the store is read from a local snapshot.
 */
export interface SharedWait {
  /** The fleet's wait still to run, in milliseconds (0 when there is none, or none known). */
  remainingMs(): number;
  /** Shares a wait this process was given, in the background. */
  note(waitMs: number): void;
}

/**
 * A server's own wait signal, kept for all its calls: once it answers with Retry-After (a 429
 * or 503, or a JSON-RPC error with `data.retryAfterMs`), no call goes to it until the wait is
 * over. A call that may wait that long (the wait is within its retry policy's `maxRetryAfterMs`)
 * waits; any other fails at once with `rate_limited` (`not_sent`) and the remaining wait, so
 * the next call does not hit the server again, as it did when only the call that received
 * the signal honoured it.
 */
export class RetryAfterGate {
  private until = 0;
  private shared: SharedWait | undefined;

  constructor(
    readonly serverName: string,
    private readonly now: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {}

  /** Joins the fleet's copy of the wait: one process's 429 holds back every process. */
  useShared(shared: SharedWait): void {
    this.shared = shared;
  }

  /** The wait still to run, in milliseconds (0 when calls may go). */
  get remainingMs(): number {
    return Math.max(0, this.until - this.now(), this.shared?.remainingMs() ?? 0);
  }

  /** Keeps the server's wait hint from a failure that carries one. */
  note(error: McpToolError): void {
    if (error.retryAfterMs === undefined || error.retryAfterMs <= 0) return;
    if (error.reason !== "rate_limited" && error.reason !== "service_unavailable") return;
    this.until = Math.max(this.until, this.now() + error.retryAfterMs);
    this.shared?.note(error.retryAfterMs);
  }

  /** Before an attempt: passes at once, waits out a wait of at most `maxWaitMs`, or refuses. */
  async pass(maxWaitMs: number, signal: AbortSignal | undefined, context: CallContext): Promise<void> {
    const remaining = this.remainingMs;
    if (remaining === 0) return;
    if (remaining > maxWaitMs) {
      throw McpToolError.of(
        "rate_limited",
        // The retry policy, which will not wait this long, says so after this sentence.
        `Server '${this.serverName}' asked callers to wait; ${waitText(remaining)} of that wait remain.`,
        { ...context, serverName: this.serverName, retryAfterMs: Math.ceil(remaining) },
      );
    }
    try {
      await sleep(serverWait(remaining, this.random), signal);
    } catch (reason) {
      throw cancelled(context, reason, "not_sent");
    }
  }
}

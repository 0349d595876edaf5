/**
 * A call's deadline: the one time its caller will wait for the whole call (every attempt, backoff,
 * queue, gate, reconnect and fallback), fixed when the call starts. `timeoutMs` bounds one
 * attempt; this bounds them all, as gRPC's deadline (gRFC A6: retries and hedges live inside it)
 * and Envoy's route timeout over `per_try_timeout` do. Every wait of the call reads it from here:
 * the attempt's timer is cut to it, the waits between attempts end on its signal, and no attempt
 * starts with less than `floorMs` left.
 */
import { derivedDeadlineMs, DEFAULT_TOOL_POLICY } from "../config/index.js";
import { McpToolError } from "../errors/McpToolError.js";
import { DeadlineExceeded, type CallContext } from "./abort.js";

/** The longest a Node timer can wait: a longer delay fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Deadline {
  /** When the call must be settled, on `performance.now()`'s clock; Infinity for none. */
  readonly at: number;
  /** The call's own length, as its policy or its caller gave it (for messages). */
  readonly ms: number;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param ms the call's deadline, from now; Infinity for none.
   * @param floorMs the least time an attempt needs to be worth sending.
   * @param outer a deadline this call runs inside (a fallback server's call inside its primary's): never lengthened past it.
   */
  constructor(ms: number, readonly floorMs: number, outer?: Deadline) {
    const now = performance.now();
    const at = Math.min(now + ms, outer?.at ?? Number.POSITIVE_INFINITY);
    this.at = at;
    this.ms = Number.isFinite(at) ? Math.round(at - now) : ms;
  }

  get finite(): boolean {
    return Number.isFinite(this.at);
  }

  /** What is left, in milliseconds (Infinity for none). */
  get remainingMs(): number {
    return Math.max(0, this.at - performance.now());
  }

  /** May an attempt start now: is at least the floor left? */
  get admits(): boolean {
    return this.remainingMs >= this.floorMs;
  }

  /** The longest a wait before an attempt may last and still leave that attempt its floor. */
  get spareMs(): number {
    return Math.max(0, this.remainingMs - this.floorMs);
  }

  /**
   * Aborts, with a {@link DeadlineExceeded}, when the deadline passes. Made on first use: a call
   * that never waits between attempts arms no timer for it (its attempt's own timer is cut to it).
   */
  get signal(): AbortSignal | undefined {
    if (!this.finite) return undefined;
    if (!this.controller) {
      this.controller = new AbortController();
      const left = this.at - performance.now();
      if (left <= 0) this.controller.abort(new DeadlineExceeded(this.ms));
      else if (left <= MAX_TIMER_MS) this.timer = setTimeout(() => this.controller!.abort(new DeadlineExceeded(this.ms)), left);
    }
    return this.controller.signal;
  }

  /** The call is settled: its timer ends. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Was this error the call's deadline running out (`data.deadline`)? */
export function isDeadlineError(error: McpToolError): boolean {
  const data = error.data as { deadline?: unknown } | undefined;
  return typeof data === "object" && data !== null && data.deadline === true;
}

/**
 * The error a call settles with at its deadline: the last failure it met, marked
 * `data.deadline: true`, with the deadline named; `request_timeout` when it met none. `cut` is the
 * error of what the deadline ended (an attempt in flight, a wait): its outcome stands where it is
 * less certain than the last failure's (an attempt cut in flight may have run). A `cut` with a
 * reason of its own (a fallback's failure at the deadline, told beside the primary's) is kept.
 */
export function atDeadline(cut: McpToolError, last: McpToolError | undefined, deadlineMs: number): McpToolError {
  const note = `The call's deadline of ${deadlineMs} ms ran out.`;
  // What the deadline cut is a wait or an attempt (request_timeout): the news is the failure before it.
  const base = cut.reason === "request_timeout" && last && last !== cut && !isDeadlineError(last) ? last : cut;
  const outcome = base.outcome === "not_sent" && cut.outcome !== "not_sent" ? cut.outcome : base.outcome;
  const message = base.message.includes(note) ? base.message : `${base.message}${/[.!?…\]]$/.test(base.message) ? "" : "."} ${note}`;
  return deadlineMarked(base).with({ outcome, message, attempts: Math.max(base.attempts ?? 1, cut.attempts ?? 1) });
}

/** The error, marked `data.deadline: true`: the call's deadline settled it (the pipeline's `failed` reads the mark). */
export function deadlineMarked(error: McpToolError): McpToolError {
  const data = error.data;
  const marked = typeof data === "object" && data !== null && !Array.isArray(data) ? { ...(data as Record<string, unknown>), deadline: true } : data === undefined ? { deadline: true } : { data, deadline: true };
  return error.with({ data: marked });
}

/** What a call's deadline is made from: its policy's `deadlineMs` (else the one derived from it) and `minAttemptMs`. */
export type DeadlinePolicy = Parameters<typeof derivedDeadlineMs>[0] & { deadlineMs?: number; minAttemptMs?: number };

/** A call's deadline, from now, per its policy; inside `outer` when it runs within another call's (a fallback server's). */
export function deadlineOf(policy: DeadlinePolicy, outer?: Deadline): Deadline {
  return new Deadline(policy.deadlineMs ?? derivedDeadlineMs(policy), policy.minAttemptMs ?? DEFAULT_TOOL_POLICY.minAttemptMs, outer);
}

/** The attempt `n` the deadline leaves too little time for: not sent, and the call settles with the last failure it met. */
export function tooLateToStart(deadline: Deadline, context: CallContext, n: number, last: McpToolError | undefined): McpToolError {
  const left = Math.round(deadline.remainingMs);
  const error = McpToolError.of("request_timeout", `The call's deadline of ${deadline.ms} ms left ${left} ms, less than an attempt needs (minAttemptMs ${deadline.floorMs} ms); nothing more was sent.`, {
    ...context,
    attempts: Math.max(n - 1, 1),
    outcome: "not_sent",
    data: { deadline: true },
  });
  return atDeadline(error, last, deadline.ms);
}

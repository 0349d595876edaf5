/**
 * Hedged attempts ("The Tail at Scale", Dean and Barroso, 2013; gRPC's `hedgingPolicy`, gRFC
 * A6): when an attempt has not answered within a delay, another is sent beside it, and the first
 * answer wins. For reads only: the caller decides that (resolve.ts, sharingCheck.ts).
 *
 * - The first attempt goes at once; the next after `delayMs` with no answer, or at once when an
 *   attempt failed and `mayHedge` finds the failure worth repeating (a 503, a refused connect:
 *   gRPC's non-fatal codes; no backoff), up to `maxAttempts` in all, each after the first only if
 *   `mayHedge` allows it (the one rule for repeats, the retry budget, the call's deadline).
 * - The first success settles the call; every other attempt is aborted (the SDK sends
 *   `notifications/cancelled`), and what it answers later is dropped.
 * - A failure does not end the call while another attempt is live or may still be sent; the
 *   call fails once none is, with the failure that says the most (one that may have run, over
 *   one unsent), counting every attempt sent.
 * - The caller's abort reaches every attempt. It settles exactly once.
 */
import { isMcpToolError, type McpToolError } from "../errors/McpToolError.js";
import { follow } from "./abort.js";

/** A hedged call, as each of its attempts knows it (PipelineSpec.hedged): one object for all of them, its identity the call's. */
export interface HedgeGroup {
  /** The call has a fallback: an open circuit refuses its attempts at once, for the fallback to answer. */
  readonly fallback: boolean;
}

/** Why an attempt beside the first was sent. */
export type HedgeTrigger = "delay" | "failure";

export interface HedgeSpec<T> {
  /** The most attempts, the first included. */
  maxAttempts: number;
  /** How long an attempt may go unanswered before the next goes beside it; undefined: only a failure sends the next. */
  delayMs: number | undefined;
  /** Sends attempt `i` (0 the first) under `signal`, which aborts when another wins or the caller aborts. */
  send(i: number, signal: AbortSignal): Promise<T>;
  /**
   * May attempt `i` (1 or more) go now, after the delay or after the failure `after` (trigger
   * "failure": is that failure one to repeat)? Takes its cost (the retry budget's) when it says yes.
   */
  mayHedge(i: number, trigger: HedgeTrigger, after: McpToolError | undefined): boolean;
  /** Attempt `i` (1 or more) was sent; won (when more than one was sent); lost (aborted after another won). */
  onHedge?(i: number, outcome: "sent" | "won" | "lost", trigger?: HedgeTrigger): void;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
}

/** The reason a losing attempt is aborted with. */
export class HedgeLost extends Error {
  override readonly name = "HedgeLost";
  constructor() {
    super("another attempt of the hedged call answered first");
  }
}

export function hedge<T>(spec: HedgeSpec<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => new HedgedCall(spec, resolve, reject).start());
}

class HedgedCall<T> {
  private readonly live = new Map<number, AbortController>();
  private sent = 0;
  private settled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures: unknown[] = [];
  private readonly unfollows: (() => void)[] = [];

  constructor(
    private readonly spec: HedgeSpec<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  start(): void {
    this.launch(undefined);
  }

  private launch(trigger: HedgeTrigger | undefined): void {
    const i = this.sent++;
    const controller = new AbortController();
    this.unfollows.push(follow(controller, this.spec.signal));
    this.live.set(i, controller);
    if (trigger) this.spec.onHedge?.(i, "sent", trigger);
    this.arm();
    let sending: Promise<T>;
    try {
      sending = this.spec.send(i, controller.signal);
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending.then(
      (value) => this.answered(i, value),
      (error: unknown) => this.failed(i, error),
    );
  }

  /** The next attempt after the delay, while attempts may still be added. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { delayMs, maxAttempts } = this.spec;
    if (delayMs === undefined || this.sent >= maxAttempts) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.settled && this.live.size > 0 && this.sent < maxAttempts && this.spec.mayHedge(this.sent, "delay", this.lastFailure())) this.launch("delay");
    }, delayMs);
  }

  private answered(i: number, value: T): void {
    this.live.delete(i);
    if (this.settled) return;
    this.settle();
    if (this.sent > 1) this.spec.onHedge?.(i, "won");
    for (const [j, controller] of this.live) {
      this.spec.onHedge?.(j, "lost");
      controller.abort(new HedgeLost());
    }
    this.live.clear();
    this.resolve(value);
  }

  private failed(i: number, error: unknown): void {
    this.live.delete(i);
    if (this.settled) return;
    this.failures.push(error);
    const aborted = this.spec.signal?.aborted === true;
    if (!aborted && isMcpToolError(error) && this.sent < this.spec.maxAttempts && this.spec.mayHedge(this.sent, "failure", error)) return this.launch("failure");
    // Another attempt is still live, or the delay may still add one: the call goes on.
    if (this.live.size > 0) return;
    this.settle();
    this.reject(this.verdict());
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    for (const unfollow of this.unfollows) unfollow();
  }

  private lastFailure(): McpToolError | undefined {
    const last = this.failures[this.failures.length - 1];
    return isMcpToolError(last) ? last : undefined;
  }

  /** The failure that says the most: one that may have run over one that certainly did not; every attempt sent counted. */
  private verdict(): unknown {
    const errors = this.failures.filter(isMcpToolError);
    if (errors.length < this.failures.length) return this.failures[this.failures.length - 1];
    const chosen = errors.find((e) => e.outcome !== "not_sent") ?? errors[errors.length - 1]!;
    return this.sent > 1 ? chosen.with({ attempts: this.sent }) : chosen;
  }
}

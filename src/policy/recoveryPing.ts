/**
 * While a server's circuit is open because the server itself failed, asks it whether it is
 * back with MCP's own `ping`: it runs no tool and costs the server nothing. At most one ping per
 * `everyMs`, whatever the open period has grown to, so a server that recovers is tested within
 * about a second instead of at the end of an open period of up to `halfOpenAfterMs`. A ping that
 * answers ends the open period; the next call is the half-open test, and only its success
 * closes the circuit.
 */
import type { McpToolError } from "../errors/McpToolError.js";
import type { RateReached } from "../events.js";
import { platform } from "../platform/index.js";

/** How long one ping may take before it counts as unanswered. */
export const PING_TIMEOUT_MS = 2000;

/**
 * Did the circuit open on a failure of the server itself, one a ping can see end: a refused,
 * reset or closed connection, an HTTP 5xx, a proxy's error page, a timeout, in a row? A tool's
 * own failures (its JSON-RPC errors) and a rate keep the open period's rule: a ping that answers
 * says nothing about them. A server failing 40% of calls answers every ping; pinged, its circuit
 * was tested every second and most calls went to it instead of the fallback (measured by the
 * bench's Under faults section).
 */
export function pingCanTell(error: McpToolError | undefined, rate: RateReached | undefined): boolean {
  if (rate || !error) return false;
  return error.kind === "transport" || error.reason === "request_timeout";
}

export class RecoveryPing {
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: AbortController | undefined;
  /** Callers sleeping out the open period (see `answer`). */
  private waiters: ((up: boolean) => void)[] = [];
  /** A ping answered since the circuit last closed. */
  private answered = false;
  /** A ping answered, and the test that followed timed out: the server answers, its tool does not. */
  private distrusted = false;
  /** The fleet's share in the pings (SharedServer): whose turn it is, and who hears an answer. */
  private fleet: { turn(): Promise<boolean>; answered(): void } | undefined;

  constructor(
    /** Resolves true when the server answered at all (even with an error that proves it up). */
    private readonly ping: (signal: AbortSignal) => Promise<boolean>,
    readonly everyMs: number,
    /** The server answered a ping: the open period ends now. */
    private readonly onAnswer: () => void,
    /** Aborts when the toolkit closes: no ping is sent after it. */
    private readonly closing: AbortSignal | undefined,
  ) {
    // The toolkit's close ends a wait for the next ping at once: no timer outlives it.
    closing?.addEventListener("abort", () => this.stop(), { once: true });
  }

  /** The circuit opened (or opened again after a failed test), on `error` or a `rate`. */
  opened(error: McpToolError | undefined, rate: RateReached | undefined): void {
    if (this.answered && error?.reason === "request_timeout") this.distrusted = true;
    if (this.running || this.distrusted || this.closing?.aborted || !pingCanTell(error, rate)) return;
    this.running = true;
    this.schedule(this.everyMs);
  }

  /**
   * Pings in turn with the fleet's other processes (`turn`: may this one ping now? Yes when Redis
   * cannot say), and tells the fleet of each answer.
   */
  shareWith(fleet: { turn(): Promise<boolean>; answered(): void }): void {
    this.fleet = fleet;
  }

  /**
   * Starts pinging, if it is not under way, whatever opened the circuit: the fleet's circuit
   * (SharedServer), which opens only on evidence about the server itself (a 5xx, a 429, a
   * refused or reset connection).
   */
  start(): void {
    if (this.running || this.distrusted || this.closing?.aborted) return;
    this.running = true;
    this.schedule(this.everyMs);
  }

  /**
   * Resolves true when a ping answers, false when pinging stops without one; undefined when no
   * ping is under way. A caller waiting out the open period wakes with it.
   */
  answer(): Promise<boolean> | undefined {
    if (!this.running) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The circuit closed: pings stop, and the next opening starts afresh. */
  closed(): void {
    this.stop();
    this.answered = false;
    this.distrusted = false;
  }

  /** Stops pinging (the circuit closed, a ping answered, the toolkit closed). */
  private stop(): void {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight?.abort();
    this.inFlight = undefined;
    this.wake(false);
  }

  private wake(up: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(up);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.send(), ms);
    // A server that stays down must not keep the process alive; close() stops it anyway.
    platform.unref(this.timer);
  }

  private async send(): Promise<void> {
    this.timer = undefined;
    if (!this.running) return;
    if (this.closing?.aborted) return this.stop();
    const started = performance.now();
    // Another process of the fleet pings this interval.
    if (this.fleet && !(await this.fleet.turn().catch(() => true))) {
      if (this.running && this.timer === undefined) this.schedule(this.everyMs);
      return;
    }
    if (!this.running) return;
    const controller = new AbortController();
    this.inFlight = controller;
    const timeout = setTimeout(() => controller.abort(), PING_TIMEOUT_MS);
    const onClose = () => controller.abort();
    this.closing?.addEventListener("abort", onClose, { once: true });
    const up = await this.ping(controller.signal).catch(() => false);
    clearTimeout(timeout);
    this.closing?.removeEventListener("abort", onClose);
    // Stopped meanwhile (the circuit closed, the toolkit closed): the answer is nobody's now.
    if (this.inFlight !== controller || !this.running) return;
    this.inFlight = undefined;
    if (up) {
      this.answered = true;
      this.running = false;
      this.onAnswer();
      this.fleet?.answered();
      this.wake(true);
      return;
    }
    this.schedule(Math.max(0, this.everyMs - (performance.now() - started)));
  }
}

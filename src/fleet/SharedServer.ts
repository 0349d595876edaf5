import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { BreakerState, SharedCircuit, Verdict } from "../policy/CircuitBreaker.js";
import type { SharedWait } from "../policy/RetryAfterGate.js";
import { ABANDON, FAILURE, HEALTHY, LEASE, SNAPSHOT, WAIT, type Script } from "./scripts.js";
import type { Store } from "./Store.js";

/** What one server's shared state needs to know, resolved once per server. */
export interface SharedServerOptions {
  /** This process, as the evidence hash names it. */
  member: string;
  failureThreshold: number;
  halfOpenAfterMs: number;
  halfOpenJitter: number;
  minProcesses: number;
  leaseDeadlineMs: number;
  /** A snapshot older than this is not trusted to say the fleet is closed or half-open. */
  staleAfterMs: number;
  random?: () => number;
  now?: () => number;
}

/** The fleet's state as one reply gave it, stamped with this process's clock when it came. */
interface Snapshot {
  at: number;
  openMs: number;
  tripped: boolean;
  evidence: boolean;
  waitMs: number;
}

/**
 * Evidence about the server itself, as every process would see it: a 5xx, a 429, a refused or
 * reset connection. Our own timeouts, cancels, DNS and auth failures stay local: they may be
 * this process's network or credentials, and must not pause the fleet.
 */
export function isFleetEvidence(error: unknown): boolean {
  if (!isMcpToolError(error)) return false;
  if (error.reason === "connection_refused" || error.reason === "connection_reset" || error.reason === "rate_limited") return true;
  return error.status !== undefined && error.status >= 500;
}

/**
 * One server's shared circuit and Retry-After wait. Decisions are read from a snapshot that the
 * fleet refreshes in the background and that every reply updates; reports go out without
 * being awaited. Only the half-open lease is awaited, and only for `leaseDeadlineMs`.
 */
export class SharedServer implements SharedCircuit, SharedWait {
  private snapshot: Snapshot | undefined;
  private readonly closeListeners: (() => void)[] = [];
  /** Failures this process reported since the server last answered it. */
  private unanswered = false;

  constructor(
    private readonly store: Store,
    private readonly keys: readonly string[],
    private readonly options: SharedServerOptions,
  ) {}

  private now(): number {
    return this.options.now?.() ?? performance.now();
  }

  /** Asks Redis for the state now, in the background. */
  refresh(): Promise<void> {
    return this.send(SNAPSHOT, []);
  }

  state(): BreakerState | undefined {
    const snapshot = this.snapshot;
    if (!snapshot) return undefined;
    const open = snapshot.tripped && snapshot.at + snapshot.openMs > this.now();
    // An open period already learnt still holds while Redis is away: it was the fleet's verdict.
    if (!this.store.available || this.now() - snapshot.at > this.options.staleAfterMs) return open ? "open" : undefined;
    if (!snapshot.tripped) return "closed";
    return open ? "open" : "half-open";
  }

  async lease(): Promise<"test" | "open" | "closed" | undefined> {
    if (!this.store.available) return undefined;
    const reply = await this.store.run(LEASE, this.keys, [this.openMs(), this.trippedMs()], this.options.leaseDeadlineMs);
    if (!reply) return undefined;
    this.update(reply.slice(1));
    return reply[0] === 1 ? "test" : reply[0] === 2 ? "closed" : "open";
  }

  report(verdict: Verdict | "abandoned", error: unknown, test: boolean): void {
    if (verdict === "failure" && isFleetEvidence(error)) {
      this.unanswered = true;
      const { member, failureThreshold, minProcesses } = this.options;
      void this.send(FAILURE, [member, failureThreshold, minProcesses, this.openMs(), this.trippedMs(), this.evidenceMs(), test ? 1 : 0]);
    } else if (verdict === "healthy") {
      // A success costs Redis nothing unless there is something for it to clear.
      const snapshot = this.snapshot;
      if (!test && !this.unanswered && snapshot && !snapshot.tripped && !snapshot.evidence) return;
      this.unanswered = false;
      void this.send(HEALTHY, [test ? 1 : 0]);
    } else if (test) {
      // A cancelled test, or one that ended in a failure of ours (a timeout): it learnt nothing.
      void this.send(ABANDON, []);
    }
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  remainingMs(): number {
    const snapshot = this.snapshot;
    return snapshot ? Math.max(0, snapshot.at + snapshot.waitMs - this.now()) : 0;
  }

  note(waitMs: number): void {
    void this.send(WAIT, [Math.ceil(waitMs)]);
  }

  private async send(script: Script, args: readonly (string | number)[]): Promise<void> {
    const reply = await this.store.run(script, this.keys, args);
    if (reply) this.update(reply);
  }

  private update(reply: unknown[]): void {
    const [openMs, tripped, evidence, waitMs] = reply.map(Number);
    const previous = this.snapshot;
    this.snapshot = {
      at: this.now(),
      // PTTL answers -2 for a missing key and -1 for one without expiry (never ours).
      openMs: Math.max(0, openMs ?? 0),
      tripped: tripped === 1,
      evidence: evidence === 1,
      waitMs: Math.max(0, waitMs ?? 0),
    };
    if (previous?.tripped && !this.snapshot.tripped) for (const listener of this.closeListeners) listener();
  }

  /** The open period, spread so that fleets that opened together do not all test together. */
  private openMs(): number {
    const { halfOpenAfterMs, halfOpenJitter, random = Math.random } = this.options;
    return Math.max(1, Math.round(halfOpenAfterMs * (1 + random() * halfOpenJitter)));
  }

  /** How long the fleet remembers an outage no process reports on any more. */
  private trippedMs(): number {
    return Math.max(10_000, 10 * this.options.halfOpenAfterMs);
  }

  /** Failures older than an open period say little about the server now. */
  private evidenceMs(): number {
    return Math.max(1_000, this.options.halfOpenAfterMs);
  }
}

import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { sleep } from "../policy/abort.js";
import type { BreakerState, SharedCircuit, Verdict } from "../policy/CircuitBreaker.js";
import { openPeriodMs, type OpenPeriodOptions } from "../policy/openPeriod.js";
import type { SharedWait } from "../policy/RetryAfterGate.js";
import { ABANDON, FAILURE, HEALTHY, LEASE, PINGED, PING_TURN, SNAPSHOT, WAIT, type Script } from "./scripts.js";
import type { Store } from "./Store.js";
import { RECORD, windowArgs, type FleetRates } from "./windowScripts.js";
import type { RecoveryPing } from "../policy/recoveryPing.js";

/** How often callers waiting for another process's test ask Redis for its verdict, ms (`refreshMs`, 100 ms, would idle them). */
const VERDICT_POLL_MS = 20;

/** What one server's shared state needs to know, resolved once per server. */
export interface SharedServerOptions extends OpenPeriodOptions {
  /** This process, as the evidence hash names it. */
  member: string;
  failureThreshold: number;
  minProcesses: number;
  leaseDeadlineMs: number;
  /** A snapshot older than this is not trusted to say the fleet is closed or half-open. */
  staleAfterMs: number;
  /** The breaker's rates, read over the fleet's window: unset, no call is put in one. */
  rates?: FleetRates;
  /** Resolves `true` once the server listens again within `ms` (the connection's ListenWatch). */
  listening?: (ms: number) => Promise<boolean>;
  /** The process breaker's pings (`recoveryPingMs`), started too while the fleet's circuit is open on the server's failures. */
  recovery?: RecoveryPing;
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
  /** Why the circuit is open: `open`, `refused`, `rate` or `test` (see scripts.ts), or "" when it is not. */
  why: string;
}

/** What the fleet says to a call while its circuit is not closed (see SharedCircuit.admit). */
type Admission = "test" | "local" | { refusedForMs: number };

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
 * being awaited. Only the half-open lease is awaited, and only for `leaseDeadlineMs`; a call
 * that waits for the fleet's circuit (see {@link admit}) waits as it would for its own breaker.
 */
export class SharedServer implements SharedCircuit, SharedWait {
  private snapshot: Snapshot | undefined;
  private readonly closeListeners: (() => void)[] = [];
  /** Failures this process reported since the server last answered it. */
  private unanswered = false;
  /** The one loop asking for another process's verdict while callers wait, and when it gives up. */
  private polling: Promise<boolean> | undefined;
  private pollUntil = 0;
  /** The lease this process is asking for, which its other callers share. */
  private leasing: Promise<"test" | "open" | "closed" | undefined> | undefined;
  private closed = false;
  /** RECORD's arguments that are the same for every call, when the breaker has a rate. */
  private readonly window: (string | number)[] | undefined;

  constructor(
    private readonly store: Store,
    private readonly keys: readonly string[],
    private readonly options: SharedServerOptions,
  ) {
    this.window = options.rates ? windowArgs(options.rates, options.minProcesses) : undefined;
    // One process pings per interval; an answer ends the fleet's open period for every process.
    options.recovery?.shareWith({ turn: () => this.store.run(PING_TURN, keys, [options.recovery!.everyMs]).then((r) => r?.[0] !== 0), answered: () => this.pingAnswered() });
  }

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

  /**
   * The process breaker's rules, for the fleet's circuit: a call that may wait out the open
   * period waits, and then asks to test; a refused server is tested as soon as this process
   * sees it listen; while another process tests, the call waits for its verdict as long as it
   * may wait. Anything else is refused with the time left.
   */
  async admit(maxWaitMs: number, signal: AbortSignal | undefined): Promise<Admission> {
    const until = this.now() + maxWaitMs;
    let listens = false;
    for (;;) {
      const state = this.state();
      // An aborted caller is the local breaker's to settle, as cancelled.
      if (signal?.aborted || state === undefined || state === "closed") return "local";
      const why = this.snapshot!.why;
      // A period the server's failures opened is pinged: an answer ends it for the fleet (PINGED).
      if (why === "open") this.options.recovery?.start();
      if (state === "half-open" || (listens && why === "refused")) {
        const lease = await this.lease(listens);
        if (lease === "test") return "test";
        if (lease !== "open") return "local";
        listens = false;
        continue;
      }
      const remaining = this.openRemainingMs();
      const budget = until - this.now();
      // A period's end is known, and refused at once if too far; a test's is not, and waited for while the caller may.
      if (budget <= 0 || (why !== "test" && remaining > budget)) return { refusedForMs: remaining };
      const ms = Math.min(remaining, budget);
      let heard = false;
      const wake = why === "test" ? this.verdict(ms) : why === "refused" ? this.options.listening?.(ms).then((up) => (heard = up)) : this.pinged();
      // An abort ends the wait too; the next turn hands the call back as "local".
      await sleep(ms, signal, wake).catch(() => undefined);
      listens = heard;
    }
  }

  /** Resolves `true` when the server answers this process's ping (one per `recoveryPingMs` at most), false when pinging stops. */
  private pinged = (): Promise<boolean> | undefined => this.options.recovery?.answer();

  /** A ping answered: the period the server's failures opened ends, here at once and for the fleet (PINGED goes before any lease). */
  private pingAnswered(): void {
    const s = this.snapshot;
    if (s?.why === "open") this.snapshot = { ...s, openMs: Math.min(s.openMs, this.now() - s.at) };
    void this.send(PINGED, []);
  }

  /**
   * Asks to be the fleet's one half-open test: `"test"` (this call tests), `"open"` (the period
   * runs, or another process tests), `"closed"` (the fleet closed meanwhile), or undefined (no
   * answer in time). `listens`: this process saw the refused server listen again.
   */
  async lease(listens = false): Promise<"test" | "open" | "closed" | undefined> {
    if (!this.store.available) return undefined;
    // The callers of this process that wait for the same moment ask Redis once: the first tests.
    if (this.leasing) return this.leasing.then((answer) => (answer === "test" ? "open" : answer));
    const leasing = this.askLease(listens);
    this.leasing = leasing;
    void leasing.finally(() => {
      if (this.leasing === leasing) this.leasing = undefined;
    });
    return leasing;
  }

  private async askLease(listens: boolean): Promise<"test" | "open" | "closed" | undefined> {
    const reply = await this.store.run(LEASE, this.keys, [this.trippedMs(), listens ? 1 : 0, ...this.periods(false)], this.options.leaseDeadlineMs);
    if (!reply) return undefined;
    this.update(reply.slice(1));
    return reply[0] === 1 ? "test" : reply[0] === 2 ? "closed" : "open";
  }

  report(verdict: Verdict | "abandoned", error: unknown, test: boolean, slow = false): void {
    if (!test) this.record(verdict, error, slow);
    if (verdict === "failure" && isFleetEvidence(error)) {
      this.unanswered = true;
      // While the fleet's period runs, only a test's failure changes anything (see FAILURE).
      if (!test && this.state() === "open") return;
      const { member, failureThreshold, minProcesses } = this.options;
      const refused = (error as McpToolError).reason === "connection_refused";
      void this.send(FAILURE, [member, failureThreshold, minProcesses, this.trippedMs(), this.evidenceMs(), test ? 1 : 0, refused ? "refused" : "open", ...this.periods(refused)], test);
    } else if (verdict === "healthy") {
      // A success costs Redis nothing unless there is something for it to clear.
      const snapshot = this.snapshot;
      if (!test && !this.unanswered && snapshot && !snapshot.tripped && !snapshot.evidence) return;
      this.unanswered = false;
      void this.send(HEALTHY, [test ? 1 : 0], test);
    } else if (test) {
      // A cancelled test, or one that ended in a failure of ours (a timeout): it learnt nothing.
      void this.send(ABANDON, [], true);
    }
  }

  /**
   * Puts a call in the fleet's window for the breaker's rates: a success, or a failure that is
   * evidence about the server itself (other failures stay with the process, as for the count of
   * consecutive ones). Not while the fleet's circuit is open or half-open: its test decides.
   */
  private record(verdict: Verdict | "abandoned", error: unknown, slow: boolean): void {
    if (!this.window || this.snapshot?.tripped) return;
    const failed = verdict === "failure" && isFleetEvidence(error);
    if (verdict !== "healthy" && !failed) return;
    void this.send(RECORD, [this.options.member, failed ? 1 : 0, slow ? 1 : 0, ...this.window, this.trippedMs(), ...this.periods(false)]);
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

  private async send(script: Script, args: readonly (string | number)[], verdict = false): Promise<void> {
    const reply = await this.store.run(script, this.keys, args, undefined, verdict);
    if (reply) this.update(reply);
  }

  private update(reply: unknown[]): void {
    const [openMs, trips, evidence, waitMs] = reply.slice(0, 4).map(Number);
    const previous = this.snapshot;
    this.snapshot = {
      at: this.now(),
      // PTTL answers -2 for a missing key and -1 for one without expiry (never ours).
      openMs: Math.max(0, openMs ?? 0),
      tripped: (trips ?? 0) > 0,
      evidence: evidence === 1,
      waitMs: Math.max(0, waitMs ?? 0),
      why: String(reply[4] ?? ""),
    };
    if (previous?.tripped && !this.snapshot.tripped) for (const listener of this.closeListeners) listener();
  }

  /** The fleet's open period still to run, as last seen. */
  private openRemainingMs(): number {
    const snapshot = this.snapshot;
    return snapshot ? Math.max(0, snapshot.at + snapshot.openMs - this.now()) : 0;
  }

  /**
   * Resolves `true` once another process's test has ended (the circuit closed, or opened again),
   * asking Redis every {@link VERDICT_POLL_MS} for at most `ms`. Every waiter shares the one loop.
   */
  private verdict(ms: number): Promise<boolean> {
    this.pollUntil = Math.max(this.pollUntil, this.now() + ms);
    this.polling ??= this.poll().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async poll(): Promise<boolean> {
    for (;;) {
      await sleep(Math.min(VERDICT_POLL_MS, Math.max(0, this.pollUntil - this.now())));
      // The test may be this process's own, its verdict already in the snapshot.
      if (this.snapshot?.why !== "test") return true;
      if (this.closed || this.now() >= this.pollUntil) return false;
      await this.refresh();
      if (this.snapshot?.why !== "test") return true;
    }
  }

  /**
   * The open period for each count of openings since the circuit closed, by the process
   * breaker's rule (openPeriodMs) with one random spread, up to the first that stops growing:
   * the script that opens the circuit takes the one for the count it reads.
   */
  private periods(refused: boolean): number[] {
    const spread = (this.options.random ?? Math.random)();
    const periods: number[] = [];
    for (let trips = 0; trips <= 31; trips++) {
      const period = Math.max(1, Math.round(openPeriodMs(this.options, trips, refused, () => spread)));
      if (period === periods.at(-1)) break;
      periods.push(period);
    }
    return periods;
  }

  /** Ends the verdict loop; the background refresh is the fleet's to stop. */
  close(): void {
    this.closed = true;
  }

  /** How long the fleet remembers an outage no process reports on any more. */
  private trippedMs = (): number => Math.max(10_000, 10 * this.options.halfOpenAfterMs);

  /** Failures older than an open period say little about the server now. */
  private evidenceMs = (): number => Math.max(1_000, this.options.halfOpenAfterMs);
}

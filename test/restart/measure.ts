/**
 * The restart suite's properties, measured from the records of run.ts:
 * 1. every call in flight at a fault reacts (fails its attempt, or settles) within 1 s of the
 *    fault or within its attempt's own timeout, whichever is first;
 * 2. no call is refused with `circuit_open` once the server answered again;
 * 3. every write ran at most once; a write reported `not_sent` did not run; and no write that
 *    certainly did not run (`not_sent`) fails once the server is back: it was re-sent;
 * 4. the first success after the server is back comes quickly (p50 goal: 100 ms over HTTP,
 *    500 ms over stdio).
 */
import type { CallRecord, KindResult, RestartRecord } from "./run.js";

/** The goal for how long after the server is back the first call succeeds (p50), ms. */
export const FIRST_SUCCESS_GOAL_MS = { http: 100, sse: 100, stdio: 500 } as const;
/** A call in flight at a fault must react within this much of it (or its own timeout), ms. */
export const REACTION_GOAL_MS = 1000;

/** One call that broke a property, with what it saw. */
export interface Problem {
  id: string;
  op: string;
  /** The restart it met: "kill/300" and the like. */
  restart: string;
  /** Milliseconds from the fault (or the server's return) to what happened, where it matters. */
  ms?: number;
  /** For a late reaction: by how much it overran its bound, ms. */
  overMs?: number;
  what: string;
}

export interface KindMetrics {
  name: string;
  transport: string;
  restarts: number;
  calls: number;
  writes: number;
  inFlight: number;
  /** The slowest reaction of a call in flight at a fault, ms, and its bound. */
  worstReactionMs: number;
  worstReactionBoundMs: number;
  slowReactions: Problem[];
  /** Attempts that ended in `request_timeout`. */
  timeouts: number;
  circuitOpenAfterAnswer: Problem[];
  /** The circuit opened again after it had closed on the server's answer, with no new fault: a lockout by stale evidence. */
  reopened: Problem[];
  ranTwice: Problem[];
  notSentButRan: Problem[];
  notResent: Problem[];
  /** Writes whose outcome stayed `unknown` although they never ran (allowed when their fate was not knowable). */
  unknownNeverRan: number;
  /**
   * Of those, writes sent after the server process was already gone: nothing could reach a server,
   * yet they were not re-sent (a pooled socket or pipe the dead server had closed).
   */
  unknownAfterDeath: Problem[];
  /** stdio: failures during a crash loop that do not name the exit (code or signal) of the server process. */
  hiddenCause: Problem[];
  /** Per restart: from the fault to the server listening again, ms. */
  downMs: number[];
  /** Calls' duration before the first fault, p50, ms (the tool's own work excluded): the machine's pace. */
  steadyCallMs: number;
  /** Per restart: from the server being back to the first success, the tool's own work excluded, ms (Infinity: none seen). */
  firstSuccessMs: number[];
  firstSuccessP50: number;
  firstSuccessMax: number;
  /** The floor: a plain SDK client's first success when it connects the moment the server listens, p50, ms (NaN when not measured). */
  floorP50: number;
  unsettled: number;
  closeMs: number;
  crashes: string[];
  failures: Record<string, number>;
}

const label = (r: RestartRecord) => `${r.fault}/${r.downMs}`;

/** The failure reasons that show the server answered (it is up, whatever it said). */
function serverAnswered(e: { reason: string; kind: string; status?: number }): boolean {
  return e.kind === "protocol" || e.kind === "domain" || e.status !== undefined || e.reason === "session_expired";
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The restart a moment belongs to: the last fault at or before it. */
function restartAt(restarts: RestartRecord[], t: number): RestartRecord | undefined {
  let found: RestartRecord | undefined;
  for (const r of restarts) if (r.faultAt <= t) found = r;
  return found;
}

/** When the attempt under way at `t` started: the call's start, or the end of the last backoff before `t`. */
function attemptStart(call: CallRecord, t: number): number {
  let start = call.start;
  for (const r of call.retries) if (r.at <= t) start = r.at + r.delayMs;
  return start;
}

export function measure(result: KindResult): KindMetrics {
  const { calls, restarts, timeoutMs } = result;
  const slowReactions: Problem[] = [];
  let worst = 0;
  let worstBound = REACTION_GOAL_MS;
  let inFlight = 0;
  for (const r of restarts) {
    for (const c of calls) {
      if (c.start >= r.faultAt || (c.end !== undefined && c.end <= r.faultAt)) continue;
      inFlight++;
      const next = c.retries.find((a) => a.at >= r.faultAt)?.at ?? c.end ?? Number.POSITIVE_INFINITY;
      const reaction = next - r.faultAt;
      const bound = Math.max(0, Math.min(REACTION_GOAL_MS, attemptStart(c, r.faultAt) + timeoutMs - r.faultAt));
      if (reaction - bound > worst - worstBound) {
        worst = reaction;
        worstBound = bound;
      }
      if (reaction > bound) {
        const what = c.retries.find((a) => a.at >= r.faultAt) ?? c.error;
        slowReactions.push({ id: c.id, op: c.op, restart: label(r), ms: Math.round(reaction), overMs: Math.round(reaction - bound), what: what ? `${what.reason} (${what.outcome}): ${what.message}` : "ok" });
      }
    }
  }

  // When, after each restart, the client first heard from the server again.
  const answeredAt = restarts.map((r) => {
    let first = Number.POSITIVE_INFINITY;
    for (const c of calls) {
      if (c.ok && c.end! > r.upAt) first = Math.min(first, c.end!);
      for (const a of c.retries) if (a.at > r.upAt && serverAnswered(a)) first = Math.min(first, a.at);
      if (c.error && c.end! > r.upAt && serverAnswered(c.error)) first = Math.min(first, c.end!);
    }
    return first;
  });
  const circuitOpenAfterAnswer: Problem[] = [];
  const reopened: Problem[] = [];
  restarts.forEach((r, i) => {
    const next = restarts[i + 1]?.faultAt ?? Number.POSITIVE_INFINITY;
    const closed = result.circuit.find((b) => b.type === "circuit_close" && b.at > r.upAt && b.at < next);
    if (!closed) return;
    for (const b of result.circuit) {
      if (b.type === "circuit_open" && b.at > closed.at && b.at < next) reopened.push({ id: "breaker", op: "circuit_open", restart: label(r), ms: Math.round(b.at - closed.at), what: `opened again ${Math.round(b.at - closed.at)} ms after it closed on the server's answer (${b.reason ?? "no reason"})` });
    }
  });
  const notResent: Problem[] = [];
  const ranTwice: Problem[] = [];
  const notSentButRan: Problem[] = [];
  let unknownNeverRan = 0;
  const hiddenCause: Problem[] = [];
  const unknownAfterDeath: Problem[] = [];
  let timeouts = 0;
  const failures: Record<string, number> = {};
  for (const c of calls) {
    const errors = [...c.retries.map((a) => ({ ...a, at: a.at })), ...(c.error ? [{ ...c.error, at: c.end! }] : [])];
    for (const e of errors) {
      if (e.reason === "request_timeout") timeouts++;
      if (e.reason !== "circuit_open") continue;
      const i = restarts.indexOf(restartAt(restarts, e.at)!);
      if (i >= 0 && e.at > answeredAt[i]!) circuitOpenAfterAnswer.push({ id: c.id, op: c.op, restart: label(restarts[i]!), ms: Math.round(e.at - answeredAt[i]!), what: `refused ${Math.round(e.at - answeredAt[i]!)} ms after the server answered` });
    }
    if (c.error) failures[c.error.reason] = (failures[c.error.reason] ?? 0) + 1;
    if (result.transport === "stdio") {
      for (const e of errors) {
        const r = restartAt(restarts, e.at);
        // While the server crash-loops, every failure should say why: its exit code or signal, and its stderr.
        if (r && e.at > r.deadAt && e.at < r.upAt && e.reason !== "circuit_open" && !/exited with code|killed by/.test(e.message)) {
          hiddenCause.push({ id: c.id, op: c.op, restart: label(r), ms: Math.round(e.at - r.faultAt), what: `${e.reason}: ${e.message}` });
        }
      }
    }
    if (c.op !== "write") continue;
    const ran = result.executions.get(c.id) ?? 0;
    const r = restartAt(restarts, c.end ?? c.start);
    const where = r ? label(r) : "before";
    if (ran > 1) ranTwice.push({ id: c.id, op: c.op, restart: where, what: `ran ${ran} times; ${c.ok ? "succeeded" : `${c.error!.reason} after ${c.error!.attempts} attempts`}` });
    if (c.ok && ran === 0) notSentButRan.push({ id: c.id, op: c.op, restart: where, what: "succeeded but the server has no record of it" });
    if (!c.error) continue;
    if (c.error.outcome === "not_sent" && ran > 0) notSentButRan.push({ id: c.id, op: c.op, restart: where, what: `${c.error.reason} (not_sent), but it ran ${ran} time(s): ${c.error.message}` });
    if (c.error.outcome === "unknown" && ran === 0) {
      unknownNeverRan++;
      const sent = attemptStart(c, c.end!);
      if (r && sent > r.deadAt && sent < r.upAt) unknownAfterDeath.push({ id: c.id, op: c.op, restart: where, ms: Math.round(sent - r.deadAt), what: `sent ${Math.round(sent - r.deadAt)} ms after the server process was gone, ${c.error.reason} (unknown): ${c.error.message}` });
    }
    // Certainly not run, and the server was back when the call gave up: it should have been re-sent.
    if (c.error.outcome === "not_sent" && ran === 0 && (!r || c.end! > r.upAt)) {
      const after = r ? `${Math.round(c.end! - r.upAt)} ms after the server was back` : "before any fault";
      notResent.push({ id: c.id, op: c.op, restart: where, ...(r ? { ms: Math.round(c.end! - r.upAt) } : {}), what: `${c.error.reason} after ${c.error.attempts} attempt(s), ${after}: ${c.error.message}` });
    }
  }

  // The tool's own work (its wait on the server) is not the library's recovery time.
  const firstSuccessMs = restarts.map((r) => {
    let first = Number.POSITIVE_INFINITY;
    for (const c of calls) if (c.ok && c.end! > r.upAt) first = Math.min(first, Math.max(0, c.end! - c.workMs - r.upAt));
    return first;
  });
  const firstFault = restarts[0]?.faultAt ?? Number.POSITIVE_INFINITY;
  const steady = calls.filter((c) => c.ok && c.end! < firstFault && c.retries.length === 0).map((c) => c.end! - c.start - c.workMs);
  return {
    name: result.name,
    transport: result.transport,
    restarts: restarts.length,
    calls: calls.length,
    writes: calls.filter((c) => c.op === "write").length,
    inFlight,
    worstReactionMs: Math.round(worst),
    worstReactionBoundMs: Math.round(worstBound),
    slowReactions,
    timeouts,
    circuitOpenAfterAnswer,
    reopened,
    ranTwice,
    notSentButRan,
    notResent,
    unknownNeverRan,
    unknownAfterDeath,
    hiddenCause,
    downMs: restarts.map((r) => Math.round(r.upAt - r.faultAt)),
    steadyCallMs: Math.round(percentile(steady, 50)),
    firstSuccessMs,
    firstSuccessP50: percentile(firstSuccessMs, 50),
    firstSuccessMax: Math.max(...firstSuccessMs),
    floorP50: result.floorMs.length ? percentile(result.floorMs, 50) : Number.NaN,
    unsettled: result.unsettled,
    closeMs: result.closeMs,
    crashes: result.crashes,
    failures,
  };
}

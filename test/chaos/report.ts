/**
 * The chaos run's verdict: every invariant checked over the call records and leak probes,
 * the fault × outcome table, and the report as text.
 */
import type { Fault, FaultMix, Verdict } from "../servers/chaos/plan.js";
import { FAULT_INFO } from "../servers/chaos/plan.js";
import { LEAKED_BEARER } from "../servers/chaos/server.js";
import { pct } from "./format.js";
import { checkNetworkInvariants, type Check } from "./networkInvariants.js";

export { formatReport } from "./format.js";

export type DrivenTransport = "stdio" | "http";
export type ToolFlavor = "read" | "write";

export interface CallRecord {
  index: number;
  key: string;
  transport: DrivenTransport;
  tool: ToolFlavor;
  fault: Fault;
  /** The reason expected, or "ok" (`verdict.reason`). */
  expected: string;
  /** What the plan expects of a failure: its reason, outcome, HTTP status and attempts. */
  verdict: Verdict;
  /** For a write: how often the server must have run it (0 or 1). */
  expectedRuns?: 0 | 1;
  /** "ok", the artifact's reason, or "threw:<message>" / "unsettled" when the tool broke its contract. */
  actual: string;
  attempts: number;
  /** The artifact's outcome and HTTP status, for failures. */
  outcome?: string;
  status?: number;
  elapsedMs: number;
  budgetMs: number;
  content: string;
  artifactMessage?: string;
  /** Settle callbacks seen: tool start, end and error. */
  starts: number;
  ends: number;
  errors: number;
  executions: number;
  arrivals: number;
  serverCancelled: number;
}

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ChaosReport {
  options: ResolvedChaosOptions;
  records: CallRecord[];
  invariants: Invariant[];
  ok: boolean;
  durationMs: number;
  /** fault → tool → outcome → count */
  table: Map<Fault, Map<ToolFlavor, Map<string, number>>>;
  stats: { retries: number; reconnects: number; hangsCancelledOnServer: string; worstBudgetRatio: number; maxElapsedMs: number; maxEventLoopDelayMs: number };
}

/** The run's options with every default applied. */
export interface ResolvedChaosOptions {
  calls: number;
  seed: number;
  transports: DrivenTransport[];
  concurrency: number;
  timeoutMs: number;
  retries: number;
  minBackoffMs: number;
  maxBackoffMs: number;
  mix: FaultMix;
  transientAttempts: number;
  isolateDisruptive: boolean;
  raceWrites: number;
}

/** A retry after a failure that carried a server's wait: what it asked, what the retry waited. */
export interface RetryWait {
  asked: number;
  waited: number;
  reason: string;
}

/** What the run measured besides the calls: leftovers after close(), crashes, counters. */
export interface RunProbes {
  crashes: string[];
  backoffBudget: number;
  childrenWhileOpen: number;
  leftoverChildren: number[];
  leftoverResources: string[];
  leftoverListeners: string[];
  /** Requests open on the HTTP server once every call settled, and after close(); undefined without HTTP. */
  openRequestsWhenIdle?: number;
  openRequestsAfterClose?: number;
  /** HTTP sessions the toolkit held (each keeps one GET stream open). */
  httpSessions?: number;
  /** The idle-closing proxy of the keep-alive race: its limit, and what it did. */
  race?: { idleMs: number; dropped: number };
  retryWaits: RetryWait[];
  retries: number;
  reconnects: number;
  maxEventLoopDelayMs: number;
  durationMs: number;
}

export const CHAOS_SECRET = "chaos-secret-7c1d9e2b4a";

// eslint-disable-next-line no-control-regex
const ESCAPES = /[\u001b\u009b]/;

function leaks(text: string): string[] {
  const found: string[] = [];
  if (ESCAPES.test(text)) found.push("ANSI escape");
  if (text.includes(CHAOS_SECRET)) found.push("configured secret");
  if (text.includes(LEAKED_BEARER) || text.includes("sk-live-chaos")) found.push("bearer token");
  return found;
}

/** Did the call end as its fault says: "ok", or the expected reason with its outcome, status and attempts? */
function matches(r: CallRecord): boolean {
  const v = r.verdict;
  if (r.actual !== v.reason) return false;
  if (v.reason === "ok") return true;
  return r.outcome === v.outcome && r.attempts === v.attempts && (v.status === undefined || r.status === v.status);
}

/** Checks every invariant and builds the report. */
export function evaluate(options: ResolvedChaosOptions, records: CallRecord[], probes: RunProbes): ChaosReport {
  const invariants: Invariant[] = [];
  const { crashes, backoffBudget, childrenWhileOpen, leftoverChildren, leftoverResources, leftoverListeners } = probes;
  const check: Check = (name, bad, okDetail) => invariants.push({ name, ok: bad.length === 0, detail: bad.length === 0 ? okDetail : `${bad.length} failing: ${bad.slice(0, 5).join("; ")}` });
  const describe = (r: CallRecord) => `${r.key} ${r.transport}/${r.tool} fault=${r.fault}`;

  check("every call settled", records.filter((r) => r.actual === "unsettled").map(describe), `${records.length}/${options.calls + options.raceWrites} settled`);
  check(
    "exactly one LangChain end/error callback per call",
    records.filter((r) => r.starts !== 1 || r.ends + r.errors !== 1).map((r) => `${describe(r)} start=${r.starts} end=${r.ends} error=${r.errors}`),
    "1 start and 1 end-or-error for every call",
  );
  check("no tool threw (errors come back as ToolMessages)", records.filter((r) => r.actual.startsWith("threw:")).map((r) => `${describe(r)} ${r.actual}`), "none threw");
  const slack = (r: CallRecord) => (r.transport === "stdio" ? 10_000 : 3_000);
  check(
    "settled within timeout × (retries + 1) + backoff (+ reconnect slack)",
    records.filter((r) => r.actual !== "unsettled" && r.elapsedMs > r.budgetMs + slack(r)).map((r) => `${describe(r)} took ${Math.round(r.elapsedMs)} ms > ${r.budgetMs}+${slack(r)}`),
    `budget ${options.timeoutMs}×${options.retries + 1}+${backoffBudget} ms (HTTP: + Retry-After waits); slack 10 s stdio (respawn), 3 s HTTP`,
  );
  const failures = records.filter((r) => r.expected !== "ok");
  check(
    "classification matches the injected fault (100%): reason, outcome, HTTP status, attempts",
    records.filter((r) => !matches(r)).map((r) => {
      const v = r.verdict;
      const want = v.reason === "ok" ? "ok" : `${v.reason}/${v.outcome}${v.status ? `/${v.status}` : ""} in ${v.attempts}`;
      return `${describe(r)} expected ${want} got ${r.actual}/${r.outcome}${r.status ? `/${r.status}` : ""} in ${r.attempts} (server saw ${r.arrivals} arrival(s) ${r.executions} execution(s), ${Math.round(r.elapsedMs)} ms)`;
    }),
    `${records.filter(matches).length}/${records.length} match (${failures.length} expected failures, each with its outcome and attempts)`,
  );
  check(
    "success answers its own request",
    records.filter((r) => r.actual === "ok" && !r.content.startsWith(`${r.tool} ${r.key}:`)).map((r) => `${describe(r)} content=${r.content.slice(0, 60)}`),
    "every success carried its own key",
  );
  const writes = records.filter((r) => r.tool === "write");
  const after = writes.filter((r) => FAULT_INFO[r.fault].by === "proxy" && FAULT_INFO[r.fault].executes);
  check(
    "non-idempotent tool executed at most once per key, also behind a proxy that failed after forwarding",
    writes.filter((r) => r.executions > 1).map((r) => `${describe(r)} executed ${r.executions}×`),
    `${writes.length} write calls, max ${Math.max(0, ...writes.map((r) => r.executions))} execution(s) per key; ${after.filter((r) => r.executions === 1).length}/${after.length} behind a proxy failing after forwarding ran exactly once`,
  );
  check(
    "every write ran as its fault allows: once if it succeeded or the fault came after the tool ran, never if before",
    writes.filter((r) => r.executions !== r.expectedRuns).map((r) => `${describe(r)} executed ${r.executions}×, expected ${r.expectedRuns}`),
    `${writes.filter((r) => r.expectedRuns === 1).length} ran once, ${writes.filter((r) => r.expectedRuns === 0).length} never reached the tool`,
  );
  const reads = records.filter((r) => r.tool === "read");
  check(
    "idempotent tool attempts bounded by retries + 1",
    reads.filter((r) => r.arrivals > options.retries + 1).map((r) => `${describe(r)} arrived ${r.arrivals}×`),
    `max ${Math.max(0, ...reads.map((r) => r.arrivals))} arrivals per key`,
  );
  const hangs = records.filter((r) => r.fault === "hang");
  const transientReads = reads.filter((r) => FAULT_INFO[r.fault].transient);
  const recovered = transientReads.filter((r) => r.actual === "ok").length;
  const expectedRecovered = transientReads.filter((r) => r.expected === "ok").length;
  check(
    "idempotent tools recovered from transient faults at the expected rate",
    recovered === expectedRecovered ? [] : [`recovered ${recovered}/${transientReads.length}, expected ${expectedRecovered}`],
    `recovered ${recovered}/${transientReads.length} (${pct(recovered, transientReads.length)}; expected ${pct(expectedRecovered, transientReads.length)})`,
  );
  check(
    "a timed-out hang is cancelled on the server (notifications/cancelled)",
    hangs.filter((r) => r.serverCancelled < 1).map((r) => `${describe(r)} not cancelled on the server`),
    `${hangs.filter((r) => r.serverCancelled > 0).length}/${hangs.length} hangs saw their cancellation`,
  );
  checkNetworkInvariants(records, probes, describe, check);
  check("no unhandledRejection or uncaughtException", crashes, "none");
  check(
    "no secret or ANSI escape in model-facing text",
    records.flatMap((r) => [...leaks(r.content).map((l) => `${describe(r)} content has ${l}`), ...leaks(r.artifactMessage ?? "").map((l) => `${describe(r)} artifact has ${l}`)]),
    `${records.filter((r) => r.fault === "leaky_error").length} leaky errors, all clean`,
  );
  check(
    "model text stays short",
    records.filter((r) => r.actual !== "ok" && r.content.length > 2_000).map((r) => `${describe(r)} ${r.content.length} chars`),
    `longest error text ${Math.max(0, ...records.filter((r) => r.actual !== "ok").map((r) => r.content.length))} chars`,
  );
  check(
    "no child process left after close()",
    leftoverChildren.map((p) => `pid ${p}`),
    `${childrenWhileOpen} child(ren) while open, 0 after close`,
  );
  const { openRequestsWhenIdle, openRequestsAfterClose, httpSessions = 1 } = probes;
  if (openRequestsWhenIdle !== undefined) {
    check(
      "no response stream left open once every call settled (HTTP)",
      openRequestsWhenIdle > httpSessions ? [`${openRequestsWhenIdle} requests open on the server (${httpSessions} are the sessions' GET streams)`] : [],
      `${openRequestsWhenIdle} open (the sessions' GET streams)`,
    );
  }
  if (openRequestsAfterClose !== undefined) {
    check("no HTTP request left open after close()", openRequestsAfterClose > 0 ? [`${openRequestsAfterClose} open`] : [], "0 open requests on the server");
  }
  check("no socket, timer or handle left after close()", leftoverResources, "active resources back to baseline");
  check("no process listener left after close()", leftoverListeners, "listener counts back to baseline");

  const table = new Map<Fault, Map<ToolFlavor, Map<string, number>>>();
  for (const r of records) {
    const byTool = table.get(r.fault) ?? new Map<ToolFlavor, Map<string, number>>();
    table.set(r.fault, byTool);
    const outcomes = byTool.get(r.tool) ?? new Map<string, number>();
    byTool.set(r.tool, outcomes);
    outcomes.set(r.actual, (outcomes.get(r.actual) ?? 0) + 1);
  }
  const settledRecords = records.filter((r) => r.actual !== "unsettled");
  return {
    options,
    records,
    invariants,
    ok: invariants.every((i) => i.ok),
    durationMs: probes.durationMs,
    table,
    stats: {
      retries: probes.retries,
      reconnects: probes.reconnects,
      hangsCancelledOnServer: `${hangs.filter((r) => r.serverCancelled > 0).length}/${hangs.length}`,
      worstBudgetRatio: Math.max(0, ...settledRecords.map((r) => r.elapsedMs / r.budgetMs)),
      maxElapsedMs: Math.max(0, ...settledRecords.map((r) => r.elapsedMs)),
      maxEventLoopDelayMs: probes.maxEventLoopDelayMs,
    },
  };
}

/**
 * The chaos run's verdict: every invariant checked over the call records and leak probes,
 * the fault × outcome table, and the report as text.
 */
import type { Fault, FaultMix } from "../servers/chaos/plan.js";
import { FAULT_INFO, FAULTS } from "../servers/chaos/plan.js";
import { LEAKED_BEARER } from "../servers/chaos/server.js";

export type DrivenTransport = "stdio" | "http";
export type ToolFlavor = "read" | "write";

export interface CallRecord {
  index: number;
  key: string;
  transport: DrivenTransport;
  tool: ToolFlavor;
  fault: Fault;
  expected: string;
  /** "ok", the artifact's reason, or "threw:<message>" / "unsettled" when the tool broke its contract. */
  actual: string;
  attempts: number;
  /** The artifact's outcome, for failures. */
  outcome?: string;
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

/** Checks every invariant and builds the report. */
export function evaluate(options: ResolvedChaosOptions, records: CallRecord[], probes: RunProbes): ChaosReport {
  const invariants: Invariant[] = [];
  const { crashes, backoffBudget, childrenWhileOpen, leftoverChildren, leftoverResources, leftoverListeners } = probes;
  const check = (name: string, bad: string[], okDetail: string) => invariants.push({ name, ok: bad.length === 0, detail: bad.length === 0 ? okDetail : `${bad.length} failing: ${bad.slice(0, 5).join("; ")}` });
  const describe = (r: CallRecord) => `${r.key} ${r.transport}/${r.tool} fault=${r.fault}`;

  check("every call settled", records.filter((r) => r.actual === "unsettled").map(describe), `${records.length}/${options.calls} settled`);
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
    `budget ${options.timeoutMs}×${options.retries + 1}+${backoffBudget} ms; slack 10 s stdio (respawn), 3 s HTTP`,
  );
  check(
    "classification matches the injected fault (100%)",
    records
      .filter((r) => r.actual !== r.expected)
      .map((r) => `${describe(r)} expected ${r.expected} got ${r.actual} (outcome ${r.outcome}, attempts ${r.attempts}, server saw ${r.arrivals} arrival(s) ${r.executions} execution(s), ${Math.round(r.elapsedMs)} ms)`),
    `${records.length}/${records.length} match`,
  );
  check(
    "success answers its own request",
    records.filter((r) => r.actual === "ok" && !r.content.startsWith(`${r.tool} ${r.key}:`)).map((r) => `${describe(r)} content=${r.content.slice(0, 60)}`),
    "every success carried its own key",
  );
  const writes = records.filter((r) => r.tool === "write");
  check(
    "non-idempotent tool executed at most once per key",
    writes.filter((r) => r.executions > 1).map((r) => `${describe(r)} executed ${r.executions}×`),
    `${writes.length} write calls, max ${Math.max(0, ...writes.map((r) => r.executions))} execution(s) per key`,
  );
  check(
    "non-idempotent success executed exactly once",
    writes.filter((r) => r.actual === "ok" && r.executions !== 1).map((r) => `${describe(r)} executed ${r.executions}×`),
    "every successful write ran once",
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
  const { openRequestsWhenIdle, openRequestsAfterClose } = probes;
  if (openRequestsWhenIdle !== undefined) {
    check(
      "no response stream left open once every call settled (HTTP)",
      openRequestsWhenIdle > 1 ? [`${openRequestsWhenIdle} requests open on the server (1 is the session's GET stream)`] : [],
      `${openRequestsWhenIdle} open (the session's GET stream)`,
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


function pct(a: number, b: number): string {
  return b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)}%`;
}

/** The report as text: the fault × outcome table, the invariants and a summary. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  const { options } = report;
  lines.push(`chaos: ${report.records.length} calls, seed ${options.seed}, transports ${options.transports.join("+")}, concurrency ${options.concurrency}, timeout ${options.timeoutMs} ms, retries ${options.retries}, in ${(report.durationMs / 1000).toFixed(1)} s`);
  lines.push("");
  const header = ["fault injected", "tool", "calls", "expected", "outcome (reason in the ToolMessage artifact)"];
  const rows: string[][] = [];
  for (const fault of FAULTS) {
    const byTool = report.table.get(fault);
    if (!byTool) continue;
    for (const tool of ["read", "write"] as ToolFlavor[]) {
      const outcomes = byTool.get(tool);
      if (!outcomes) continue;
      const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
      const expected = report.records.find((r) => r.fault === fault && r.tool === tool)?.expected ?? "";
      const cells = [...outcomes.entries()].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} ${n}`).join(", ");
      rows.push([fault, tool, String(total), expected, cells]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  lines.push(fmt(header));
  lines.push(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) lines.push(fmt(r));
  lines.push("");
  for (const inv of report.invariants) lines.push(`${inv.ok ? "PASS" : "FAIL"}  ${inv.name}: ${inv.detail}`);
  lines.push("");
  const s = report.stats;
  lines.push(`retries ${s.retries}, reconnects ${s.reconnects}, hangs cancelled on the server ${s.hangsCancelledOnServer}, slowest call ${Math.round(s.maxElapsedMs)} ms (worst elapsed/budget ${s.worstBudgetRatio.toFixed(2)}), worst event-loop delay ${Math.round(s.maxEventLoopDelayMs)} ms`);
  lines.push(report.ok ? "chaos: all invariants hold" : "chaos: INVARIANTS BROKEN");
  return lines.join("\n");
}

/** The chaos report as text: the fault × outcome table, the invariants and a summary. */
import { FAULTS } from "../servers/chaos/plan.js";
import type { ChaosReport, ToolFlavor } from "./report.js";

export function pct(a: number, b: number): string {
  return b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)}%`;
}

export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  const { options } = report;
  const transports = options.transports.map((t) => (t === "http" ? "http (behind the fault proxy)" : t)).join(" + ");
  const race = options.raceWrites > 0 ? ` + ${options.raceWrites} spaced writes behind the idle-closing proxy` : "";
  lines.push(`chaos: ${options.calls} calls over ${transports}${race}, seed ${options.seed}, concurrency ${options.concurrency}, timeout ${options.timeoutMs} ms, retries ${options.retries}, in ${(report.durationMs / 1000).toFixed(1)} s`);
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
      const verdict = report.records.find((r) => r.fault === fault && r.tool === tool)?.verdict;
      const expected = !verdict ? "" : verdict.reason === "ok" ? "ok" : `${verdict.reason} (${verdict.outcome})`;
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

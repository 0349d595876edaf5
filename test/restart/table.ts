/** The restart suite's table (one row per server kind) and the list of what broke. */
import { cpus, loadavg } from "node:os";
import { FIRST_SUCCESS_GOAL_MS, REACTION_GOAL_MS, type KindMetrics, type Problem } from "./measure.js";

const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : "none");
const mark = (ok: boolean) => (ok ? "✓" : "✗");
const count = (keys: string[]) => {
  const n = new Map<string, number>();
  for (const k of keys) n.set(k, (n.get(k) ?? 0) + 1);
  return [...n].map(([k, v]) => `${k} ${v}`).join(", ");
};

/** Did a kind keep every property (timing against the goals themselves, not the tests' slack)? */
export function verdicts(m: KindMetrics) {
  const goal = FIRST_SUCCESS_GOAL_MS[m.transport as keyof typeof FIRST_SUCCESS_GOAL_MS] ?? FIRST_SUCCESS_GOAL_MS.http;
  return {
    settled: m.slowReactions.length === 0 && m.unsettled === 0,
    breaker: m.circuitOpenAfterAnswer.length === 0 && m.reopened.length === 0,
    writes: m.ranTwice.length === 0 && m.notSentButRan.length === 0 && m.notResent.length === 0,
    firstSuccess: m.firstSuccessP50 <= goal,
    clean: m.crashes.length === 0 && m.hiddenCause.length === 0,
  };
}

export function formatTable(metrics: KindMetrics[]): string {
  const head = ["server", "restarts (down, measured)", "calls (steady p50)", "in flight at fault", `settled ≤ 1 s or timeout (worst)`, "circuit_open after answer", "writes ≤ once, not-run re-sent", "first success after back p50 (max; floor p50)", "close()"];
  const rows = metrics.map((m) => {
    const v = verdicts(m);
    const writeDetail = [m.ranTwice.length && `${m.ranTwice.length} ran twice`, m.notSentButRan.length && `${m.notSentButRan.length} not_sent but ran`, m.notResent.length && `${m.notResent.length} not re-sent`].filter(Boolean).join(", ");
    const slow = m.slowReactions.length + m.unsettled;
    return [
      m.name,
      `${m.restarts} (${m.downMs.map((d) => `${(d / 1000).toFixed(1)} s`).join(", ")})`,
      `${m.calls} (${ms(m.steadyCallMs)})`,
      String(m.inFlight),
      `${mark(v.settled)} ${ms(m.worstReactionMs)}${slow ? ` (${slow} late${m.unsettled ? `, ${m.unsettled} never` : ""})` : ""}`,
      `${mark(v.breaker)} ${m.circuitOpenAfterAnswer.length}${m.reopened.length ? `, reopened ${m.reopened.length}×` : ""}`,
      `${mark(v.writes)} ${m.writes} writes${writeDetail ? `: ${writeDetail}` : ""}`,
      `${mark(v.firstSuccess)} ${ms(m.firstSuccessP50)} (${ms(m.firstSuccessMax)}${Number.isFinite(m.floorP50) ? `; ${ms(m.floorP50)}` : ""})`,
      ms(m.closeMs),
    ];
  });
  const table = [head, head.map(() => "---"), ...rows];
  // Timings mean little on a starved machine: say how starved it was.
  const load = `${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) at the end`;
  return `${table.map((r) => `| ${r.join(" | ")} |`).join("\n")}\n\n${load}`;
}

/** Every property a kind broke, with the calls that broke it (the first few of each). */
export function formatProblems(metrics: KindMetrics[], perList = 5): string {
  const out: string[] = [];
  const list = (title: string, problems: Problem[]) => {
    if (problems.length === 0) return;
    out.push(`  ${title}: ${problems.length}`);
    for (const p of problems.slice(0, perList)) out.push(`    ${p.id} (${p.op}, ${p.restart})${p.ms !== undefined ? ` +${p.ms} ms` : ""}: ${p.what.slice(0, 300)}`);
  };
  for (const m of metrics) {
    const start = out.length;
    list(`late reactions to a fault (bound: ${REACTION_GOAL_MS} ms or the attempt's timeout)`, m.slowReactions);
    if (m.unsettled) out.push(`  calls never settled: ${m.unsettled}`);
    list("circuit_open after the server answered", m.circuitOpenAfterAnswer);
    list("circuit opened again after it closed on the server's answer", m.reopened);
    list("writes that ran more than once", m.ranTwice);
    list("writes reported not_sent that ran (or succeeded unrecorded)", m.notSentButRan);
    list("writes certainly not run, not re-sent once the server was back", m.notResent);
    if (m.notResent.length) out.push(`    by reason: ${count(m.notResent.map((p) => p.what.split(" ")[0]!))}`);
    list("failures during the crash loop that do not name the server's exit", m.hiddenCause);
    list("writes sent after the server process was gone, left unknown (never ran; not asserted)", m.unknownAfterDeath);
    for (const c of m.crashes.slice(0, perList)) out.push(`  crash: ${c.slice(0, 400)}`);
    if (out.length > start) out.splice(start, 0, `${m.name}:`);
    const failures = Object.entries(m.failures).map(([k, n]) => `${k} ${n}`).join(", ");
    out.push(`${m.name}: failed calls by reason: ${failures || "none"}; request_timeout attempts ${m.timeouts}; unknown-outcome writes that never ran ${m.unknownNeverRan}; first success per restart ${m.firstSuccessMs.map(ms).join(", ")}`);
  }
  return out.join("\n");
}

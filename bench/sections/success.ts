/** 1. Success path: a trivial echo over InMemoryTransport and over stdio. */
import { fmt, type Goal, type Ratio, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import { connectMemory, connectStdio } from "../servers.js";
import { interleave, latencyStats, type LatencyStats } from "../stats.js";
import { echoSubjects, layersOver } from "../subjects.js";

const RAW_GOAL = 1.25;
const ADAPTERS_GOAL = 1.0;

export async function successPath({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const memory = await connectMemory();
  cleanup(memory.close);
  const stdio = await connectStdio("bench-success");
  cleanup(stdio.close);
  const paths = [
    { path: "memory", layers: await layersOver(ours, memory.client) },
    { path: "stdio", layers: await layersOver(ours, stdio.client) },
  ];
  for (const p of paths) cleanup(p.layers.close);

  const stats = new Map<string, LatencyStats>();
  for (const { path, layers } of paths) {
    const samples = await interleave(echoSubjects(layers, path), { ...plan.success, warmupRounds: plan.warmupRounds });
    for (const [name, s] of samples) stats.set(name, latencyStats(s));
  }

  const rows: string[][] = [];
  const ratios: Ratio[] = [];
  const goals: Goal[] = [];
  for (const { path } of paths) {
    const get = (who: string) => stats.get(`${path}/${who}`)!;
    const raw = get("raw");
    for (const who of ["raw", "adapters args", "ours args", "adapters toolCall", "ours toolCall"]) {
      const s = get(who);
      rows.push([path, who, fmt(s.medianUs), fmt(s.p99Us), fmt(s.medianUs / raw.medianUs, 2), String(s.n)]);
    }
    for (const mode of ["args", "toolCall"] as const) {
      const ours = get(`ours ${mode}`);
      const adapters = get(`adapters ${mode}`);
      const vsAdapters = ours.medianUs / adapters.medianUs;
      ratios.push({ label: `${path} ${mode}: ours/adapters`, value: vsAdapters, goalMax: ADAPTERS_GOAL });
      goals.push({ goal: `${path} invoke(${mode}): ours/adapters ≤ ${ADAPTERS_GOAL.toFixed(2)}`, figure: vsAdapters.toFixed(3), pass: vsAdapters <= ADAPTERS_GOAL });
      const vsRaw = ours.medianUs / raw.medianUs;
      if (mode === "args") {
        ratios.push({ label: `${path} args: ours/raw`, value: vsRaw, goalMax: RAW_GOAL });
        goals.push({ goal: `${path} invoke(args): ours/raw ≤ ${RAW_GOAL.toFixed(2)}`, figure: vsRaw.toFixed(3), pass: vsRaw <= RAW_GOAL });
      } else {
        ratios.push({ label: `${path} toolCall: ours/raw`, value: vsRaw });
      }
    }
  }
  return {
    title: "1. Success path (echo)",
    method:
      `One client per transport, shared by all subjects. ${plan.success.rounds} rounds × ${plan.success.batch} sequential calls per subject, ` +
      `subjects rotated each round (${plan.warmupRounds} warm-up round(s) dropped). Ours runs with default policies (retry, breaker, 30 s timeout).`,
    tables: [{ headers: ["transport", "subject", "median µs", "p99 µs", "× raw (median)", "samples"], rows }],
    ratios,
    goals,
    notes: [],
  };
}

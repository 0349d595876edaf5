/**
 * Issue 24's "Done when", the one home of every threshold the report checks. Each section
 * computes its figures and builds its goals here, each time ratio paired round by round in one
 * run; the verdicts are computed, never written. Issue 16's goals that issue 24 dropped (ours
 * below the adapters in the graph, the connect ratio) keep their figures in the tables only.
 */
import { fmt, type Goal } from "./model.js";

export const GOALS = {
  /** A whole `createAgent` run (model → tool → model), in memory, both schemas: ours/adapters at most this. */
  agentVsAdapters: 1.0,
  /** Inside a LangGraph run, in memory: the tool's window, ours/floor at most this, per schema (see `SCHEMAS`). */
  vsFloor: { echo: 1.1, "12 fields": 0.9 } as Readonly<Record<string, number>>,
  /** Inside a LangGraph run, error paths (isError, JSON-RPC error): ours/adapters at most this. */
  errorsVsAdapters: 1.1,
  /** HTTP throughput at each caller count: ours/floor (the LangChain floor over the same v2 client) at least this. */
  throughputVsFloor: 0.97,
  throughputCallers: [1, 16, 64, 256],
  /** Heap per in-flight call of ours, in KB. */
  heapPerInFlightKb: 5,
  /** HTTP restart: p50 from the server being back to ours' first success, in ms. */
  restartP50Ms: 100,
  /** Building 1,000 tools with 200 glob policies (connect + getTools), in ms. */
  buildMs: 50,
  /** Issue 34: against a rate-limited server, the 429s with `throttle: true` at most this share of those without. */
  throttleRejectedShare: 0.1,
  /** ... while completing at least this share of the calls completed without. */
  throttleCompletedShare: 0.9,
  /** Issue 36: the main entry's own code (runtime-neutral build, minified, gzip), in KB. */
  bundleKb: 45,
} as const;

/** A time ratio, paired round by round, that must hold for the batch medians and the batch means alike. */
export function ratioGoal(goal: string, median: number, mean: number, max: number): Goal {
  return { goal: `${goal} ≤ ${max.toFixed(2)}`, figure: `paired: median ${fmt(median, 3)}, batch mean ${fmt(mean, 3)}`, pass: median <= max && mean <= max };
}

export function atMost(goal: string, value: number, max: number, unit: string): Goal {
  return { goal: `${goal} ≤ ${max} ${unit}`.trimEnd(), figure: `${fmt(value, 2)} ${unit}`.trimEnd(), pass: value <= max };
}

export function atLeast(goal: string, value: number, min: number): Goal {
  return { goal: `${goal} ≥ ${min.toFixed(2)}`, figure: fmt(value, 3), pass: value >= min };
}

/**
 * Issue 16's "Done when", the one home of every threshold the report checks. Each section
 * computes its figures and builds its goals here; the verdicts are computed, never written.
 */
import { fmt, type Goal } from "./model.js";

export const GOALS = {
  /** Inside a LangGraph run, in memory, success path: ours/adapters at most this. */
  graphVsAdapters: 0.85,
  /** Inside a LangGraph run, error paths (isError, JSON-RPC error): ours/adapters at most this. */
  errorsVsAdapters: 1.0,
  /** Inside a LangGraph run, in memory, both schemas: ours/floor at most this. */
  vsFloor: 1.0,
  /** HTTP throughput at each caller count: ours/raw at least this. */
  throughputVsRaw: 0.95,
  throughputCallers: [1, 16, 64, 256],
  /** Heap per in-flight call of ours, in KB. */
  heapPerInFlightKb: 5,
  /** HTTP restart: p50 from the server being back to ours' first success, in ms. */
  restartP50Ms: 100,
  /** Building 1,000 tools with 200 glob policies (connect + getTools), in ms. */
  buildMs: 50,
  /** Connecting to a 2025-era stdio server, p50: ours (default era) over the v1 SDK client alone (connect + listTools), at most this. */
  connectStdioVsV1Raw: 1.1,
} as const;

/** A time ratio, paired round by round, that must hold for the batch medians and the batch means alike. */
export function ratioGoal(goal: string, median: number, mean: number, max: number): Goal {
  return { goal: `${goal} ≤ ${max.toFixed(2)}`, figure: `paired: median ${fmt(median, 3)}, batch mean ${fmt(mean, 3)}`, pass: median <= max && mean <= max };
}

/** A time ratio judged on its p50; the p90's ratio is shown beside it, for the spread. */
export function p50RatioGoal(goal: string, p50: number, p90: number, max: number): Goal {
  return { goal: `${goal} ≤ ${max.toFixed(2)}`, figure: `p50 ${fmt(p50, 3)}, p90 ${fmt(p90, 3)}`, pass: p50 <= max };
}

export function atMost(goal: string, value: number, max: number, unit: string): Goal {
  return { goal: `${goal} ≤ ${max} ${unit}`.trimEnd(), figure: `${fmt(value, 2)} ${unit}`.trimEnd(), pass: value <= max };
}

export function atLeast(goal: string, value: number, min: number): Goal {
  return { goal: `${goal} ≥ ${min.toFixed(2)}`, figure: fmt(value, 3), pass: value >= min };
}

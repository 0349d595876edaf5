/**
 * Issue 33's "Benchmark goals (restated: what users see)", the one home of every threshold the
 * report checks (with issue 34's throttle goals and issue 36's bundle goal). Each section
 * computes its figures and builds its goals here, each time ratio paired round by round in one
 * run; the verdicts are computed, never written. In-memory figures (issue 24's goals) stay in
 * the tables as information, without a verdict.
 */
import { fmt, type Goal } from "./model.js";

export const GOALS = {
  /** Inside a LangGraph ToolNode, over stdio and streamable HTTP, echo and 12 fields: the whole graph step, ours/floor at most this. */
  stepVsFloor: 1.05,
  /** ... and the tool's window (ToolNode's `runTool`), ours/floor at most this. */
  windowVsFloor: 1.15,
  /** The transports the success and error goals hold on (in memory is information only). */
  goalTransports: ["stdio", "http"] as readonly string[],
  /** Inside a LangGraph ToolNode, over stdio and HTTP, error paths (isError, JSON-RPC error): the tool's window, ours/adapters at most this. */
  errorsVsAdapters: 1.15,
  /** A whole `createAgent` run (model → tool → model) over stdio, both schemas: ours/adapters at most this. */
  agentVsAdapters: 1.03,
  /** HTTP throughput at each caller count: ours/floor (the LangChain floor over the same v2 client) at least this. */
  throughputVsFloor: 0.95,
  throughputCallers: [1, 16, 64, 256],
  /** Heap per in-flight call, ours/floor at most this (async hooks on, as in any process that has run LangChain). */
  heapVsFloor: 2,
  /** HTTP restart: ours' p50 from the server being back to the first success, at most the floor's p50 plus this, in ms. */
  restartOverFloorMs: 30,
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

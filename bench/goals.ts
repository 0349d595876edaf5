/**
 * The one home of every threshold the report checks (issue 45, "The benchmark, restated").
 *
 * Goals are what the library is for, measured as ratios within one run: calls that succeed
 * under faults, a shorter tail with hedging at little extra load, a fallback that takes the
 * load off a failing server, a throttle that stops 429s. Guards keep the cost of all that in
 * bounds: each paired round by round against the floor or the adapters and checked on the
 * paired batch medians (the batch means are shown beside them). Every verdict is computed,
 * never written. In-memory figures stay in the tables as information.
 */
import { fmt, type Goal } from "./model.js";

export const GOALS = {
  /** Under faults: each of ours' configurations succeeds on at least this share of calls. */
  faultsSuccess: 0.999,
  /** Under faults: with hedging, p99 of the tool's window at most this times the adapters' p99. */
  hedgedP99VsAdapters: 0.3,
  /** ... and at most this times ours' p99 without hedging. */
  hedgedP99VsOurs: 0.3,
  /** ... while sending at most this times the requests per call of ours without hedging. */
  hedgedRequestsVsOurs: 1.1,
  /** A server failing 40% of calls, with a fallback server: at least this share of calls succeeds. */
  fallbackSuccess: 0.99,
  /** ... and once the breaker's window has filled, at most this share of calls is sent to the failing server. */
  fallbackPrimaryShare: 0.1,
  /** Issue 34: against a rate-limited server, the 429s after the first second with `throttle: true`, at most this share of those without. */
  throttleLaterRejectedShare: 0.1,
  /** ... while completing at least this share of the calls completed without. */
  throttleCompletedShare: 0.9,
} as const;

export const GUARDS = {
  /** Inside a LangGraph ToolNode, over stdio and streamable HTTP, echo and 12 fields: the whole graph step, ours/floor at most this. */
  stepVsFloor: 1.1,
  /** ... and the tool's window (ToolNode's `runTool`), ours/floor at most this. */
  windowVsFloor: 1.25,
  /** The transports the success and error guards hold on (in memory is information only). */
  goalTransports: ["stdio", "http"] as readonly string[],
  /** Inside a LangGraph ToolNode, over stdio and HTTP, error paths (isError, JSON-RPC error): the tool's window, ours/adapters at most this. */
  errorsVsAdapters: 1.3,
  /** A whole `createAgent` run (model → tool → model) over stdio, both schemas: ours/adapters at most this. */
  agentVsAdapters: 1.05,
  /** HTTP throughput at each caller count: ours/floor (the LangChain floor over the same v2 client) at least this. */
  throughputVsFloor: 0.9,
  throughputCallers: [1, 16, 64, 256],
  /** Heap per in-flight call, ours/floor at most this (async hooks on, as in any process that has run LangChain, and in a fresh process). */
  heapVsFloor: 2,
  /** HTTP restart: ours' p50 from the server being back to the first success, at most the floor's p50 plus this, in ms. */
  restartOverFloorMs: 30,
  /** Building 1,000 tools with 200 glob policies (connect + getTools), in ms: an absolute bound, wide. */
  buildMs: 100,
} as const;

/** A time ratio, paired round by round, guarded on the paired batch medians; the batch means are shown beside. */
export function ratioGuard(guard: string, median: number, mean: number, max: number): Goal {
  return { kind: "guard", goal: `${guard} ≤ ${max.toFixed(2)}`, figure: `paired: median ${fmt(median, 3)}, batch mean ${fmt(mean, 3)}`, pass: median <= max };
}

export function atMost(goal: string, value: number, max: number, unit: string, kind: Goal["kind"] = "goal"): Goal {
  return { kind, goal: `${goal} ≤ ${max} ${unit}`.trimEnd(), figure: `${fmt(value, 2)} ${unit}`.trimEnd(), pass: value <= max };
}

export function atLeast(goal: string, value: number, min: number, kind: Goal["kind"] = "goal"): Goal {
  return { kind, goal: `${goal} ≥ ${min.toFixed(2)}`, figure: fmt(value, 3), pass: value >= min };
}

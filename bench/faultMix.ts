/**
 * The "Under faults" section's faults, dealt per request by a seeded draw: the n-th request the
 * proxy sees for a key gets the fault of `draw(seed, key, n)`. Every subject calls the same keys,
 * so each subject's first request for a key meets the same fault, and its repeats (a retry, a
 * hedge) the same fresh draws: the mix is the same for all, and no subject's luck decides a ratio.
 */
import type { FaultProxyOptions, ProxyFault } from "../test/servers/proxy/faultProxy.js";
import { LOOKUP_WORK_MS } from "./server/lookup.js";

/** One share of requests and what the proxy does to them. */
export interface MixPart {
  /** Share of requests, 0..1. */
  share: number;
  /** For the report, e.g. "503 before the tool runs". */
  label: string;
  fault: ProxyFault;
}

/** How much slower a slow answer is than the tool's work. */
export const SLOW_FACTOR = 20;

/** Issue 45's mix: 5% answered 503 before the tool runs, 1% reset before the server reads the request, 2% answered 20× slower. */
export const FAULT_MIX: readonly MixPart[] = [
  { share: 0.05, label: "503 before the tool runs", fault: { kind: "status", when: "before", status: 503, body: "Service Unavailable" } },
  { share: 0.01, label: "connection reset before the server reads the request", fault: { kind: "reset" } },
  { share: 0.02, label: `answered ${SLOW_FACTOR}× slower (${SLOW_FACTOR * LOOKUP_WORK_MS} ms)`, fault: { kind: "delay", ms: (SLOW_FACTOR - 1) * LOOKUP_WORK_MS } },
];

/** A server that fails `share` of its calls with a 503 before the tool runs (the fallback scenario's primary). */
export const failingMix = (share: number): MixPart[] => [{ share, label: "503 before the tool runs", fault: { kind: "status", when: "before", status: 503, body: "Service Unavailable" } }];

/** A uniform number in [0, 1) from the seed and the parts (a 32-bit integer hash, mixed per part). */
export function draw(seed: number, ...parts: number[]): number {
  let h = seed >>> 0;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x9e3779b1) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return (h >>> 0) / 2 ** 32;
}

/** The fault of a draw `u`: the first part whose cumulative share passes it, or none. */
export function faultOf(mix: readonly MixPart[], u: number): MixPart | undefined {
  let edge = 0;
  for (const part of mix) {
    edge += part.share;
    if (u < edge) return part;
  }
  return undefined;
}

/** FaultProxy's `decide` for one proxy: counts each key's requests and deals the n-th its draw. Keys are integers. */
export function seededDecide(mix: readonly MixPart[], seed: number): NonNullable<FaultProxyOptions["decide"]> {
  const requests = new Map<string, number>();
  return ({ key }) => {
    if (key === undefined) return undefined;
    const n = requests.get(key) ?? 0;
    requests.set(key, n + 1);
    return faultOf(mix, draw(seed, Number(key), n))?.fault;
  };
}

/**
 * A tool's `chaos`, resolved: which faults its server's transport can carry, with their weights,
 * and the roll each attempt makes. The roll is made as the attempt is sent (mcp/call/callTool.ts);
 * the transport injects what it chose (mcp/transport/chaos.ts).
 */
import { CHAOS_FAULTS, HTTP_FAULTS, type ChaosFaultKind, type ChaosOptions } from "../config/chaos.js";

/** One fault an attempt met: its shape and its settings. */
export interface InjectedFault {
  kind: ChaosFaultKind;
  /** `slow`: the wait before the request goes, in milliseconds. */
  delayMs: number;
  /** `http_503`: the Retry-After, in seconds. */
  retryAfterS: number;
}

/** What a server's transport can carry: every fault over streamable HTTP, no reset after the answer began over SSE, none of HTTP's over stdio. */
export type ChaosTransport = "http" | "sse" | "stdio" | "client";

export function faultsCarriedBy(transport: ChaosTransport): readonly ChaosFaultKind[] {
  if (transport === "http") return CHAOS_FAULTS;
  if (transport === "sse") return CHAOS_FAULTS.filter((k) => k !== "reset_after");
  if (transport === "stdio") return CHAOS_FAULTS.filter((k) => !HTTP_FAULTS.includes(k));
  // A client the user holds runs over a transport we did not open: nothing is injected there.
  return [];
}

/** The rate and the weighted faults of one tool. */
export class ChaosPlan {
  private readonly faults: { fault: InjectedFault; weight: number }[];
  private readonly total: number;
  private readonly random: () => number;

  constructor(
    readonly rate: number,
    faults: { fault: InjectedFault; weight: number }[],
    seed: number | undefined,
  ) {
    this.faults = faults.filter((f) => f.weight > 0);
    this.total = this.faults.reduce((sum, f) => sum + f.weight, 0);
    this.random = seed === undefined ? Math.random : seeded(seed);
  }

  /** The fault this attempt meets, if any. */
  pick(): InjectedFault | undefined {
    if (this.total === 0 || this.random() >= this.rate) return undefined;
    let at = this.random() * this.total;
    for (const { fault, weight } of this.faults) {
      at -= weight;
      if (at < 0) return fault;
    }
    return this.faults.at(-1)!.fault;
  }
}

/**
 * A tool's plan from its `chaos` options, keeping the faults `transport` can carry; none when no
 * fault is left or the rate is 0.
 */
export function chaosPlan(options: ChaosOptions, transport: ChaosTransport): ChaosPlan | undefined {
  const carried = faultsCarriedBy(transport);
  const listed = options.faults ?? CHAOS_FAULTS;
  const faults = listed
    .map((f) => (typeof f === "string" ? { kind: f } : f))
    .filter((f) => carried.includes(f.kind))
    .map((f) => ({ fault: { kind: f.kind, delayMs: f.delayMs ?? 2000, retryAfterS: f.retryAfterS ?? 1 }, weight: f.weight ?? 1 }));
  if (options.rate === 0 || faults.length === 0) return undefined;
  return new ChaosPlan(options.rate, faults, options.seed);
}

/** mulberry32: a small seeded generator, enough to replay a fault sequence (not for secrets). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Which transport, tool flavour and fault each call of a run gets. Calls are dealt at random from
 * the seed, except that every combination the mix allows is dealt at least once, at evenly spread
 * places in the run: a short run (the one in `npm test`) covers every fault on both flavours with
 * any seed. The fault still follows from the key alone (plan.ts), so the servers and the proxy
 * agree with the driver: a covering call gets a key whose hash lands on its combination.
 */
import { faultFor, FAULTS, FAULT_INFO, unit, type Fault, type FaultMix } from "../servers/chaos/plan.js";
import type { DrivenTransport, ToolFlavor } from "./report.js";

export interface Deal {
  key: string;
  transport: DrivenTransport;
  tool: ToolFlavor;
  fault: Fault;
}

export interface DealOptions {
  seed: number;
  calls: number;
  transports: DrivenTransport[];
  mix: FaultMix;
}

/** The deal of a key: a pure function of the seed and the key. */
export function dealKey(key: string, { seed, transports, mix }: Omit<DealOptions, "calls">): Deal {
  const transport = transports[Math.floor(unit(seed, "transport", key) * transports.length)]!;
  const tool: ToolFlavor = unit(seed, "tool", key) < 0.5 ? "read" : "write";
  return { key, transport, tool, fault: faultFor(seed, key, transport, mix) };
}

/** Every (transport, tool, fault) the mix can deal. */
export function combinations({ transports, mix }: Pick<DealOptions, "transports" | "mix">): Omit<Deal, "key">[] {
  const out: Omit<Deal, "key">[] = [];
  for (const transport of transports) {
    for (const tool of ["read", "write"] as ToolFlavor[]) {
      for (const fault of FAULTS) if ((mix[fault] ?? 0) > 0 && FAULT_INFO[fault].transports.includes(transport)) out.push({ transport, tool, fault });
    }
  }
  return out;
}

/** The deal of every call, by index. */
export function dealer(options: DealOptions): (index: number) => Deal {
  const combos = combinations(options);
  const covering = new Map<number, Omit<Deal, "key">>();
  const n = Math.min(combos.length, options.calls);
  for (let j = 0; j < n; j++) covering.set(Math.floor((j * options.calls) / n), combos[j]!);
  return (index) => {
    const base = `call-${index}`;
    const want = covering.get(index);
    if (!want) return dealKey(base, options);
    for (let attempt = 0; attempt < 1_000_000; attempt++) {
      const deal = dealKey(attempt === 0 ? base : `${base}.${attempt}`, options);
      if (deal.transport === want.transport && deal.tool === want.tool && deal.fault === want.fault) return deal;
    }
    throw new Error(`no key deals ${want.transport}/${want.tool}/${want.fault}`);
  };
}

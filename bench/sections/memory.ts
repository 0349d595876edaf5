/**
 * 6. Memory: heap growth over 10,000 sequential echo calls in memory, measured after
 * forced full collections, so only what the calls leave alive counts.
 */
import { fmt, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import { connectMemory } from "../servers.js";
import { collect, median, rotate } from "../stats.js";
import { layersOver, toolCall } from "../subjects.js";

interface Caller {
  name: string;
  call: (i: number) => Promise<unknown>;
}

/** Heap bytes still alive after `calls` calls (positive: retained). */
async function growth(caller: Caller, calls: number): Promise<number> {
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < calls; i++) await caller.call(i);
  collect();
  return process.memoryUsage().heapUsed - before;
}

export async function memoryGrowth({ plan, ours: library, cleanup }: BenchContext): Promise<SectionResult> {
  const memory = await connectMemory();
  cleanup(memory.close);
  const layers = await layersOver(library, memory.client);
  cleanup(layers.close);
  const args = { text: "hello" };
  const ours = layers.ours("echo");
  const adapters = layers.adapters("echo");
  const callers: Caller[] = [
    { name: "raw callTool (reference)", call: () => memory.client.callTool({ name: "echo", arguments: args }) },
    { name: "adapters invoke(toolCall)", call: (i) => adapters.invoke(toolCall("echo", args, i)) },
    { name: "ours invoke(toolCall)", call: (i) => ours.invoke(toolCall("echo", args, i)) },
  ];
  // Warm-up: first calls build caches (schemas, JIT) that are not per-call growth.
  for (const c of callers) for (let i = 0; i < 300; i++) await c.call(i);

  const scale = 10_000 / plan.memory.calls;
  const bytes = new Map<string, number[]>(callers.map((c) => [c.name, []]));
  for (let round = 0; round < plan.memory.rounds; round++) {
    for (const c of rotate(callers, round)) bytes.get(c.name)!.push((await growth(c, plan.memory.calls)) * scale);
  }
  const kb = (b: number) => b / 1024;
  const rows = callers.map((c) => {
    const all = bytes.get(c.name)!;
    return [c.name, fmt(kb(median(all)), 1), all.map((b) => fmt(kb(b), 1)).join(", "), fmt(median(all) / 10_000, 1)];
  });
  return {
    title: "6. Heap growth per 10,000 calls",
    method:
      `In memory, sequential calls. Each measurement: 3× gc(), heapUsed, ${plan.memory.calls.toLocaleString("en-US")} calls, 3× gc(), heapUsed; ` +
      `${plan.memory.rounds} rounds, subject order rotated, after 300 warm-up calls each. Figures scaled to 10,000 calls; noise is a few tens of KB either way.`,
    tables: [{ headers: ["subject", "median KB retained", "each round, KB", "bytes per call"], rows }],
    ratios: [],
    goals: [],
    notes: [],
  };
}

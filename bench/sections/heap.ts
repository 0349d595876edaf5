/**
 * 6. Heap per in-flight call: N calls held open by the server at once, the client's heap
 * measured after forced GC while they wait, then after they all answer. The server runs in
 * a child process over stdio, so its memory is not counted.
 */
import type { BenchContext } from "../context.js";
import { atMost, GOALS } from "../goals.js";
import { fmt, type SectionResult } from "../model.js";
import type { Connected } from "../servers.js";
import { connectStdio } from "../servers.js";
import { collect, median, pollUntil, rotate, type Subject } from "../stats.js";
import { layersOver, subjectOf, textOf, type Layer } from "../subjects.js";

const LAYERS: Layer[] = ["raw", "floor", "adapters", "ours"];

async function count(server: Connected, tool: "held" | "release"): Promise<string> {
  return textOf(await server.client.callTool({ name: tool, arguments: {} }));
}

/** Bytes per call: while `n` calls are in flight, and left behind once they have all answered. */
async function perCall(subject: Subject, server: Connected, n: number): Promise<{ inFlight: number; retained: number }> {
  collect();
  const base = process.memoryUsage().heapUsed;
  const calls = Array.from({ length: n }, (_, i) => subject.call(i));
  if ((await pollUntil(async () => (await count(server, "held")) === String(n), 20_000)) === undefined) throw new Error(`${subject.name}: the server never held ${n} calls.`);
  collect();
  const inFlight = process.memoryUsage().heapUsed - base;
  await count(server, "release");
  const results = await Promise.all(calls);
  subject.check?.(results[0]);
  collect();
  return { inFlight: inFlight / n, retained: (process.memoryUsage().heapUsed - base) / n };
}

export async function heapPerCall({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const { rounds, inFlight: n } = plan.heap;
  const server = await connectStdio("bench-heap");
  cleanup(server.close);
  const layers = await layersOver(ours, server.client);
  cleanup(layers.close);
  const check = (result: unknown) => {
    if (textOf(result) !== "released") throw new Error(`A held call ended with ${textOf(result).slice(0, 200)}`);
  };
  const subjects = LAYERS.map((layer) => subjectOf(layers, layer, "bare", "hold", {}, check));
  // Warm-up: the first calls build caches (schemas, JIT) that are not per-call state.
  for (const s of subjects) await perCall(s, server, Math.min(100, n));

  const bytes = new Map(subjects.map((s) => [s.name, { inFlight: [] as number[], retained: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (const s of rotate(subjects, round)) {
      const r = await perCall(s, server, n);
      bytes.get(s.name)!.inFlight.push(r.inFlight);
      bytes.get(s.name)!.retained.push(r.retained);
    }
  }
  const kb = (b: number) => b / 1024;
  const rows = subjects.map((s) => {
    const b = bytes.get(s.name)!;
    return [s.name.replace("bare ", ""), fmt(kb(median(b.inFlight)), 2), b.inFlight.map((x) => fmt(kb(x), 2)).join(", "), fmt(median(b.retained), 0)];
  });
  const oursKb = kb(median(bytes.get("bare ours")!.inFlight));
  return {
    title: "6. Heap per in-flight call",
    method:
      `Over stdio to the bench server in a child process. Each measurement: 3× gc(), heapUsed; ${n.toLocaleString("en-US")} calls of \`hold\` started at once and left waiting ` +
      "(`held`, polled until the server holds them all; each poll has answered before the heap is read); 3× gc(), heapUsed; then `release`, every call awaited, 3× gc(), heapUsed. " +
      `${rounds} rounds, subject order rotated, after a warm-up. Each subject called bare (raw: \`callTool\`; the others: \`invoke(toolCall)\`, no config).`,
    tables: [{ headers: ["subject", "median KB per in-flight call", "each round, KB", "bytes per call left after all answered"], rows }],
    ratios: [],
    goals: [atMost("heap per in-flight call, ours", oursKb, GOALS.heapPerInFlightKb, "KB")],
    notes: [],
  };
}

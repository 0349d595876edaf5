/**
 * The heap section's client (see heap.ts), run as a child process: loads ours from
 * `BENCH_OURS`, measures every subject as a fresh process, then again after an
 * AsyncLocalStorage has been entered, and prints the figures as one line of JSON.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { pathToFileURL } from "node:url";
import type { Ours } from "../ours.js";
import { connectStdio, type Connected } from "../servers.js";
import { collect, pollUntil, rotate, type Subject } from "../stats.js";
import { layersOver, subjectOf, textOf, type Layer } from "../subjects.js";

const LAYERS: Layer[] = ["raw", "floor", "adapters", "ours"];

/** Per subject (`raw`, `floor`, `adapters`, `ours`): bytes per call in flight and left after, one figure per round. */
export type BySubject = Record<string, { inFlight: number[]; retained: number[] }>;

export interface HeapFigures {
  fresh: BySubject;
  hooked: BySubject;
}

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

async function measure(subjects: Subject[], server: Connected, rounds: number, n: number): Promise<BySubject> {
  // Warm-up: the first calls build caches (schemas, JIT) that are not per-call state.
  for (const s of subjects) await perCall(s, server, Math.min(100, n));
  const out: BySubject = Object.fromEntries(subjects.map((s) => [s.name.replace("bare ", ""), { inFlight: [], retained: [] }]));
  for (let round = 0; round < rounds; round++) {
    for (const s of rotate(subjects, round)) {
      const r = await perCall(s, server, n);
      out[s.name.replace("bare ", "")]!.inFlight.push(r.inFlight);
      out[s.name.replace("bare ", "")]!.retained.push(r.retained);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { rounds, inFlight } = JSON.parse(process.env.BENCH_HEAP ?? "{}") as { rounds: number; inFlight: number };
  const ours = (await import(pathToFileURL(process.env.BENCH_OURS!).href)) as Ours;
  const server = await connectStdio("bench-heap");
  const layers = await layersOver(ours, server.client);
  try {
    const check = (result: unknown) => {
      if (textOf(result) !== "released") throw new Error(`A held call ended with ${textOf(result).slice(0, 200)}`);
    };
    const subjects = LAYERS.map((layer) => subjectOf(layers, layer, "bare", "hold", {}, check));
    const fresh = await measure(subjects, server, rounds, inFlight);
    // What LangChain's and LangGraph's runs do first: from here on, async hooks stay on.
    new AsyncLocalStorage<object>().run({}, () => undefined);
    const hooked = await measure(subjects, server, rounds, inFlight);
    process.stdout.write(`${JSON.stringify({ fresh, hooked } satisfies HeapFigures)}\n`);
  } finally {
    await layers.close();
    await server.close();
  }
}

await main();

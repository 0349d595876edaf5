/**
 * 5. Throughput over streamable HTTP: calls per second of ours and of the raw SDK at 1, 16,
 * 64 and 256 concurrent callers, with the server in a process of its own (so the client's
 * work is what differs; the server is the same for both).
 */
import type { BenchContext } from "../context.js";
import { atLeast, GOALS } from "../goals.js";
import { fmt, type Goal, type Ratio, type SectionResult } from "../model.js";
import { connectHttp, startHttpChild } from "../servers.js";
import { delay, median, rotate } from "../stats.js";
import { textOf } from "../subjects.js";

const args = { text: "hello" };

interface Load {
  name: string;
  call: () => Promise<unknown>;
}

/** `callers` loops calling for `seconds`; returns completed calls per second and failures. */
async function drive(load: Load, callers: number, seconds: number): Promise<{ perSecond: number; failures: number }> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) {
        const result = await load.call().catch((e: unknown) => e);
        if (textOf(result) === "hello") done++;
        else failures++;
      }
    }),
  );
  return { perSecond: done / ((performance.now() - t0) / 1000), failures };
}

export async function throughput({ plan, ours: library, cleanup }: BenchContext): Promise<SectionResult> {
  const { rounds, seconds } = plan.throughput;
  const server = await startHttpChild("bench-throughput");
  cleanup(server.close);
  const raw = await connectHttp(server.url);
  cleanup(raw.close);
  const toolkit = await library.McpToolkit.connect({ servers: { s: { transport: "http", url: server.url } } });
  cleanup(() => toolkit.close());
  const ours = toolkit.getTool("echo")!;
  const loads: Load[] = [
    { name: "raw callTool", call: () => raw.client.callTool({ name: "echo", arguments: args }) },
    { name: "ours invoke(args)", call: () => ours.invoke(args) },
  ];

  const rows: string[][] = [];
  const ratios: Ratio[] = [];
  const goals: Goal[] = [];
  for (const callers of GOALS.throughputCallers) {
    for (const load of loads) await drive(load, callers, Math.min(0.3, seconds));
    const rates = new Map<string, number[]>(loads.map((l) => [l.name, []]));
    const failures = new Map<string, number>(loads.map((l) => [l.name, 0]));
    for (let round = 0; round < rounds; round++) {
      for (const load of rotate(loads, round)) {
        const r = await drive(load, callers, seconds);
        rates.get(load.name)!.push(r.perSecond);
        failures.set(load.name, failures.get(load.name)! + r.failures);
        await delay(50);
      }
    }
    const rawRate = median(rates.get(loads[0]!.name)!);
    for (const l of loads) {
      const r = median(rates.get(l.name)!);
      rows.push([String(callers), l.name, fmt(r, 0), rates.get(l.name)!.map((x) => fmt(x, 0)).join(", "), fmt(r / rawRate, 2), String(failures.get(l.name))]);
    }
    const value = median(rates.get(loads[1]!.name)!) / rawRate;
    const who = `${callers} caller${callers === 1 ? "" : "s"}`;
    ratios.push({ label: `HTTP throughput, ${who}: ours/raw`, value, goalMin: GOALS.throughputVsRaw });
    goals.push(atLeast(`HTTP throughput, ${who}: ours/raw`, value, GOALS.throughputVsRaw));
  }
  return {
    title: "5. Throughput over streamable HTTP (server in its own process)",
    method:
      `The bench server (bench/server/http.ts) in a child process on 127.0.0.1; each subject over its own session. At each caller count, every caller loops calling echo; ` +
      `${rounds} round(s) × ${seconds} s per subject, alternating, after a short warm-up of each. Ours with default policies (\`transport: "http"\`); raw over its own SDK client.`,
    tables: [{ headers: ["callers", "subject", "median calls/s", "each round", "× raw", "failed calls"], rows }],
    ratios,
    goals,
    notes: [],
  };
}

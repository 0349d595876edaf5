/**
 * 2b. `normalize` and `toModelText` alone, with a 1 KB and a 1 MB message (tinybench,
 * interleaved rounds). Both are synchronous, so a call's time is how long it blocks the event loop.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Bench } from "tinybench";
import type { McpToolError } from "../../src/index.js";
import { fmt, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import { median, rotate } from "../stats.js";

/** A server message of `bytes` characters: prose with a stack frame and an ANSI colour, as real ones carry. */
export function serverMessage(bytes: number): string {
  const unit = "\u001b[31mupstream failed\u001b[0m: the database refused the query for tenant 42; ";
  const body = unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes - 40);
  return `${body}\n    at handler (/srv/app.js:10:5)`.padEnd(bytes, ".");
}

interface MicroTask {
  name: string;
  fn: () => unknown;
}

export async function microBench({ plan, ours }: BenchContext): Promise<SectionResult> {
  const { normalize, toModelText } = ours;
  const tasks: MicroTask[] = [];
  for (const [label, bytes] of [["1 KB", 1024], ["1 MB", 1024 * 1024]] as const) {
    const raw = new McpError(-32602, serverMessage(bytes), { field: "cursor" });
    const normalized: McpToolError = normalize(raw, { toolName: "search", serverName: "db" });
    tasks.push({ name: `normalize ${label}`, fn: () => normalize(raw, { toolName: "search", serverName: "db" }) });
    tasks.push({ name: `toModelText ${label}`, fn: () => toModelText(normalized, { toolName: "search" }) });
  }

  const hz = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  for (let round = 0; round < plan.micro.rounds; round++) {
    // Few minimum iterations: a 1 MB input takes milliseconds per call, and the time budget governs.
    const bench = new Bench({ time: plan.micro.timeMs, warmupTime: Math.min(50, plan.micro.timeMs), iterations: 3, warmupIterations: 3 });
    for (const t of rotate(tasks, round)) bench.add(t.name, t.fn);
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed") throw new Error(`tinybench task ${task.name} ended ${result.state}`);
      // Calls per second from the mean latency (ms), which a few fast samples cannot inflate.
      hz.get(task.name)!.push(1000 / result.latency.mean);
    }
  }

  const textLength = (bytes: number) => toModelText(normalize(new McpError(-32602, serverMessage(bytes))), { toolName: "search" }).length;
  const rows = tasks.map((t) => {
    const h = median(hz.get(t.name)!);
    return [t.name, fmt(h, 0), fmt(1e6 / h, 2), fmt(1e3 / h, 3)];
  });
  return {
    title: "2b. normalize and toModelText alone",
    method:
      `tinybench, ${plan.micro.rounds} rounds of ${plan.micro.timeMs} ms per task, task order rotated per round; the figure is the median over rounds of 1000 / mean latency (ms). ` +
      "The input is an McpError (-32602) whose message holds ANSI escapes and a stack frame; toModelText gets the normalized error, so it times cleaning, redaction and the cut alone.",
    tables: [{ headers: ["operation", "calls/s", "µs/call", "event-loop block, ms"], rows }],
    ratios: [],
    goals: [],
    notes: [`The model text is ${textLength(1024)} characters for the 1 KB message and ${textLength(1024 * 1024)} for the 1 MB one (cut at the default maxLength).`],
  };
}

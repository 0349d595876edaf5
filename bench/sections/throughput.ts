/**
 * 5. Throughput: 64 concurrent callers over streamable HTTP on 127.0.0.1, calls per second.
 * The server runs in this process too, so client and server share the machine's cores.
 */
import { startHttpFixture } from "../../test/servers/http.js";
import { fmt, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import { connectHttp } from "../servers.js";
import { delay, median, rotate } from "../stats.js";

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
        if (result === "hello" || (result as { content?: { text?: string }[] })?.content?.[0]?.text === "hello") done++;
        else failures++;
      }
    }),
  );
  return { perSecond: done / ((performance.now() - t0) / 1000), failures };
}

export async function throughput({ plan, ours: library, cleanup }: BenchContext): Promise<SectionResult> {
  const { rounds, seconds, callers } = plan.throughput;
  const http = await startHttpFixture();
  cleanup(() => http.close());
  const raw = await connectHttp(http.url);
  cleanup(raw.close);
  const toolkit = await library.McpToolkit.connect({ servers: { s: { transport: "http", url: http.url } } });
  cleanup(() => toolkit.close());
  const ours = toolkit.getTool("echo")!;

  const loads: Load[] = [
    { name: "raw callTool", call: () => raw.client.callTool({ name: "echo", arguments: args }) },
    { name: "ours invoke(args)", call: () => ours.invoke(args) },
  ];
  // A short warm-up of each, then interleaved rounds.
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
  const oursRate = median(rates.get(loads[1]!.name)!);
  const rows = loads.map((l) => {
    const r = median(rates.get(l.name)!);
    return [l.name, fmt(r, 0), rates.get(l.name)!.map((x) => fmt(x, 0)).join(", "), fmt(r / rawRate, 2), String(failures.get(l.name))];
  });
  return {
    title: `5. Throughput, ${callers} concurrent callers over streamable HTTP`,
    method:
      `One HTTP fixture server (in this process) on 127.0.0.1; ${callers} callers each loop calling echo. ${rounds} rounds × ${seconds} s per subject, ` +
      "alternating, after a warm-up. Ours with default policies over its own connection; raw over its own SDK client.",
    tables: [{ headers: ["subject", "median calls/s", "each round", "× raw", "failed calls"], rows }],
    ratios: [{ label: "throughput: ours/raw (higher is better)", value: oursRate / rawRate }],
    goals: [],
    notes: [],
  };
}

/**
 * Section 8 alone: `npx tsx bench/catalog.ts [--quick] [--src]` prints the cold-against-catalog
 * start of 5 HTTP servers of 50 tools each (bench/sections/catalog.ts), without the rest of the
 * bench. `npm run bench` runs it too, as section "catalog".
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import { planFor } from "./options.js";
import { loadOurs, removeBuild } from "./ours.js";
import { renderMarkdown } from "./report.js";
import { catalogStart } from "./sections/catalog.js";

// Each round starts with a full GC, as in bench/run.ts: re-run this file under --expose-gc.
if (typeof (globalThis as { gc?: unknown }).gc !== "function") {
  if (process.env.BENCH_RESPAWNED) throw new Error("--expose-gc did not take effect.");
  const child = spawn(process.execPath, ["--expose-gc", ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_RESPAWNED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const plan = planFor(argv);
  const cleanups: (() => Promise<void>)[] = [];
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const cpu0 = process.cpuUsage();
  try {
    const loaded = await loadOurs(argv.includes("--src"));
    const ctx: BenchContext = { plan, ours: loaded.module, oursPath: loaded.path, cleanup: (fn) => void cleanups.push(fn) };
    const section = await catalogStart(ctx);
    const wallS = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const markdown = renderMarkdown([section], {
      quick: plan.quick,
      elapsedS: wallS,
      loadAtStart,
      origin: loaded.origin,
      timings: [{ name: "catalog", wallS, cpuS: (cpu.user + cpu.system) / 1e6, load: loadavg()[0]! }],
    });
    // The section's own part: from its heading on.
    console.log(markdown.slice(markdown.indexOf(`## ${section.title}`)));
    console.log(`Ran on ${loaded.origin}; load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end.`);
  } finally {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    removeBuild();
  }
}

/**
 * `npm run bench [-- --quick]`: side-by-side ratios of raw SDK calls, @langchain/mcp-adapters
 * and ours, measured in one process with subjects interleaved. Writes bench/results.md and
 * bench/results.svg.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import type { SectionResult } from "./model.js";
import { planFor } from "./options.js";
import { loadOurs, removeBuild } from "./ours.js";
import { renderMarkdown } from "./report.js";
import { deadServer } from "./sections/dead.js";
import { errorPath } from "./sections/errors.js";
import { memoryGrowth } from "./sections/memory.js";
import { microBench } from "./sections/micro.js";
import { recovery } from "./sections/recovery.js";
import { successPath } from "./sections/success.js";
import { throughput } from "./sections/throughput.js";
import { childPids } from "./servers.js";
import { renderSvg } from "./svg.js";
import { installWarningCounter } from "./warnings.js";

const entry = fileURLToPath(import.meta.url);

// Heap figures need forced GC: re-run this file under --expose-gc, keeping tsx's loader and
// any flags given (such as --cpu-prof).
if (typeof (globalThis as { gc?: unknown }).gc !== "function") {
  if (process.env.BENCH_RESPAWNED) throw new Error("--expose-gc did not take effect.");
  const child = spawn(process.execPath, ["--expose-gc", ...process.execArgv, entry, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_RESPAWNED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}

async function main(): Promise<void> {
  const plan = planFor(process.argv.slice(2));
  installWarningCounter();
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = (fn: () => Promise<void>) => void cleanups.push(fn);
  // A bound on the whole run: a hung section must not keep the process (or its children) alive.
  const watchdog = setTimeout(() => {
    console.error(`bench: over ${plan.watchdogMs / 1000} s, stopping.`);
    killChildren();
    process.exit(2);
  }, plan.watchdogMs);
  watchdog.unref();

  const sections: SectionResult[] = [];
  const loaded = await loadOurs(process.argv.includes("--src"));
  const ctx: BenchContext = { plan, ours: loaded.module, cleanup };
  const all: [string, (ctx: BenchContext) => Promise<SectionResult>][] = [
    ["success", successPath],
    ["errors", errorPath],
    ["micro", microBench],
    ["dead", deadServer],
    ["recovery", recovery],
    ["throughput", throughput],
    ["memory", memoryGrowth],
  ];
  // --only=success,dead runs those sections and prints them instead of writing the results.
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
  const steps = only ? all.filter(([name]) => only.includes(name)) : all;
  try {
    for (const [name, step] of steps) {
      const t0 = performance.now();
      process.stdout.write(`bench: ${name}… `);
      sections.push(await step(ctx));
      process.stdout.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      // Each section closes what it opened before the next one starts, so none disturbs another.
      while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    }
  } finally {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    await removeBuild();
  }

  const elapsed = (performance.now() - started) / 1000;
  const markdown = renderMarkdown(sections, { quick: plan.quick, elapsedS: elapsed, loadAtStart, origin: loaded.origin });
  if (only) {
    console.log(markdown);
  } else {
    const dir = new URL(".", import.meta.url);
    writeFileSync(new URL("results.md", dir), markdown);
    writeFileSync(new URL("results.svg", dir), renderSvg(sections.flatMap((s) => s.ratios)));
    console.log("bench: wrote bench/results.md and bench/results.svg");
  }
  const goals = sections.flatMap((s) => s.goals);
  console.log(`bench: done in ${elapsed.toFixed(1)} s; ${goals.filter((g) => g.pass).length}/${goals.length} goals met.`);
  for (const g of goals) console.log(`  ${g.pass ? "PASS" : "MISS"}  ${g.goal}: ${g.figure}`);
  // Every section closes what it started; a child left here (other than the esbuild service
  // tsup leaves, which does not hold the process) is a bug to see, not to wait on.
  const left = killChildren().filter((c) => c.name !== "esbuild");
  if (left.length > 0) console.warn(`bench: killed child processes left running: ${left.map((c) => `${c.pid} (${c.name})`).join(", ")}`);
  clearTimeout(watchdog);
}

/** SIGKILLs this process's children (all started by the bench or the tools it drives). */
function killChildren(): { pid: number; name: string }[] {
  return childPids().map((pid) => {
    let name = "?";
    try {
      name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    return { pid, name };
  });
}

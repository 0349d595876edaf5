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
import { failedSection, type SectionResult } from "./model.js";
import { planFor } from "./options.js";
import { loadOurs, removeBuild } from "./ours.js";
import { codeMeasured, goalLine, readmeSection, renderMarkdown, verdictCount, withReadmeSection, type RunInfo, type SectionTiming } from "./report.js";
import { agentRuns } from "./sections/agent.js";
import { buildMany } from "./sections/build.js";
import { catalogStart } from "./sections/catalog.js";
import { connectTimes } from "./sections/connect.js";
import { deadServer } from "./sections/dead.js";
import { errorPath } from "./sections/errors.js";
import { underFaults } from "./sections/faults.js";
import { heapPerCall } from "./sections/heap.js";
import { microBench } from "./sections/micro.js";
import { recovery } from "./sections/recovery.js";
import { httpRestart } from "./sections/restart.js";
import { successPath } from "./sections/success.js";
import { bundleSize } from "./sections/size.js";
import { throttled } from "./sections/throttle.js";
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
  const sections: SectionResult[] = [];
  const timings: SectionTiming[] = [];
  let origin = "";
  let code: string | undefined;
  let current = "";
  // --only=success,dead runs those sections and prints them instead of writing the results.
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
  const finish = (all: SectionResult[]) => report(all, { quick: plan.quick, elapsedS: (performance.now() - started) / 1000, loadAtStart, origin, timings, ...(code === undefined ? {} : { code }) }, only !== undefined);

  // A bound on the whole run: a hung section must not keep the process (or its children) alive.
  // What finished is still written, with the section that was running marked as failed.
  const watchdog = setTimeout(() => {
    console.error(`bench: over ${plan.watchdogMs / 1000} s, stopping.`);
    finish([...sections, failedSection(current, new Error(`The run passed the watchdog's ${plan.watchdogMs / 1000} s while this section ran.`))]);
    killChildren();
    removeBuild();
    process.exit(2);
  }, plan.watchdogMs);
  watchdog.unref();

  // The tree as it is built: another commit may land before the report is written.
  code = codeMeasured();
  const loaded = await loadOurs(process.argv.includes("--src"));
  origin = loaded.origin;
  const ctx: BenchContext = { plan, ours: loaded.module, oursPath: loaded.path, cleanup };
  const all: [string, (ctx: BenchContext) => Promise<SectionResult>][] = [
    ["faults", underFaults],
    ["success", successPath],
    ["agent", agentRuns],
    ["errors", errorPath],
    ["micro", microBench],
    ["build", buildMany],
    ["dead", deadServer],
    ["recovery", recovery],
    ["restart", httpRestart],
    ["throughput", throughput],
    ["heap", heapPerCall],
    ["connect", connectTimes],
    ["catalog", catalogStart],
    ["throttle", throttled],
    ["size", bundleSize],
  ];
  const steps = only ? all.filter(([name]) => only.includes(name)) : all;
  try {
    for (const [name, step] of steps) {
      current = name;
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      process.stdout.write(`bench: ${name}… `);
      try {
        sections.push(await step(ctx));
        process.stdout.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      } catch (error) {
        // One broken section is reported (and its goals missed), and the others still run.
        sections.push(failedSection(name, error));
        process.stdout.write(`failed: ${String(error)}\n`);
        process.exitCode = 1;
      }
      const cpu = process.cpuUsage(cpu0);
      timings.push({ name, wallS: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, load: loadavg()[0]! });
      // Each section closes what it opened before the next one starts, so none disturbs another.
      while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    }
  } finally {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    removeBuild();
  }
  finish(sections);
  // Every section closes what it started; a child left here (other than the esbuild service
  // tsup leaves, which does not hold the process) is a bug to see, not to wait on.
  const left = killChildren().filter((c) => c.name !== "esbuild");
  if (left.length > 0) console.warn(`bench: killed child processes left running: ${left.map((c) => `${c.pid} (${c.name})`).join(", ")}`);
  clearTimeout(watchdog);
}

/** Writes bench/results.md and results.svg (or prints the markdown, for `--only`), and the goals to the console. */
function report(sections: SectionResult[], run: RunInfo, print: boolean): void {
  const markdown = renderMarkdown(sections, run);
  if (print) {
    console.log(markdown);
  } else {
    const dir = new URL(".", import.meta.url);
    writeFileSync(new URL("results.md", dir), markdown);
    writeFileSync(new URL("results.svg", dir), renderSvg(sections.flatMap((s) => s.ratios)));
    console.log("bench: wrote bench/results.md and bench/results.svg");
    // The README's section speaks for a full run only: a quick run's figures are rough.
    if (!run.quick) {
      const readme = new URL("../README.md", dir);
      writeFileSync(readme, withReadmeSection(readFileSync(readme, "utf8"), readmeSection(sections.flatMap((s) => s.goals), run, sections.flatMap((s) => s.readme ?? []))));
      console.log("bench: wrote the Benchmarks section of README.md");
    }
  }
  const goals = sections.flatMap((s) => s.goals);
  console.log(`bench: done in ${run.elapsedS.toFixed(1)} s; ${verdictCount(goals)}.`);
  for (const g of goals) console.log(`  ${g.pass ? "PASS" : "MISS"}  ${goalLine(g)}: ${g.figure}`);
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

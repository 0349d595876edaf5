/**
 * The time goals' verdicts over several processes. One process's run of the goal sections
 * (success, agent, errors) settles its JIT and memory differently from the next: ours' CPU per
 * stdio `echo` step over the floor's, paired within a run, was 0.99 in one full run of a build
 * and 1.10 in the next, a spread wider than some goals' margins. This runs those sections in
 * `--processes` fresh processes, one after another, and judges each goal on the median over
 * processes of its paired median and of its paired batch mean.
 *
 *   npx tsx bench/verdicts.ts [--processes=3] [--quick] [--sections=success,agent,errors]
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { median } from "./stats.js";

const { values } = parseArgs({ options: { processes: { type: "string" }, quick: { type: "boolean" }, sections: { type: "string" } } });
const processes = Number(values.processes ?? 3);
if (!(processes >= 1)) throw new Error(`--processes wants a count, got "${values.processes}".`);
const sections = values.sections ?? "success,agent,errors";

/** One goal line of a run: `  PASS  <goal> ≤ 1.05: paired: median 1.024, batch mean 1.011`. */
const GOAL_LINE = /^\s+(?:PASS|MISS)\s+(.+ ≤ ([\d.]+)): paired: median ([\d.]+), batch mean ([\d.]+)$/;

function runOnce(i: number): Promise<Map<string, { bound: number; median: number; mean: number }>> {
  return new Promise((resolve, reject) => {
    const args = ["run", "bench", "--", `--only=${sections}`, ...(values.quick ? ["--quick"] : [])];
    const child = spawn("npm", args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const goals = new Map<string, { bound: number; median: number; mean: number }>();
      for (const line of out.split("\n")) {
        const m = GOAL_LINE.exec(line);
        if (m) goals.set(m[1]!, { bound: Number(m[2]), median: Number(m[3]), mean: Number(m[4]) });
      }
      if (code !== 0 || goals.size === 0) reject(new Error(`process ${i + 1}: the bench exited ${code} with ${goals.size} goals read`));
      else resolve(goals);
    });
  });
}

const runs: Map<string, { bound: number; median: number; mean: number }>[] = [];
for (let i = 0; i < processes; i++) {
  process.stderr.write(`verdicts: process ${i + 1} of ${processes}…\n`);
  runs.push(await runOnce(i));
}
console.log(`| goal | paired medians, per process | median of medians | median of batch means | verdict |`);
console.log(`|---|---|---:|---:|---|`);
for (const goal of runs[0]!.keys()) {
  const figures = runs.map((r) => r.get(goal)!);
  const med = median(figures.map((f) => f.median));
  const mean = median(figures.map((f) => f.mean));
  const bound = figures[0]!.bound;
  console.log(`| ${goal} | ${figures.map((f) => f.median.toFixed(3)).join(", ")} | ${med.toFixed(3)} | ${mean.toFixed(3)} | ${med <= bound && mean <= bound ? "PASS" : "MISS"} |`);
}

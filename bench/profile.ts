/**
 * Summarises a V8 .cpuprofile: the top frames by self and by total time, and total time
 * per package. Usage:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --expose-gc --import tsx bench/run.ts --quick
 *   npx tsx bench/profile.ts /tmp/prof/<file>.cpuprofile [top=25] [filter]
 *
 * `filter` keeps only samples whose stack holds a frame matching it (e.g. "McpTool"),
 * so the figures describe that call path alone.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  totalMs: number;
  frames: FrameTime[];
  packages: { name: string; totalMs: number; selfMs: number }[];
}

function frameName(f: CallFrame): string {
  const file = f.url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "").replace(/^\/work\/main\//, "");
  return `${f.functionName || "(anonymous)"} ${file}${file ? `:${f.lineNumber + 1}` : ""}`;
}

/** "ours" for src/, the package name under node_modules, "node" for internals. */
function packageOf(f: CallFrame): string {
  const url = f.url;
  // The build bench/ours.ts makes of src/.
  if (url.includes("/node_modules/.cache/langchain-mcp-errors-bench/")) return "ours (built)";
  if (url.includes("/src/")) return url.includes("/node_modules/") ? packageFromModules(url) : "ours (src/)";
  if (url.includes("/node_modules/")) return packageFromModules(url);
  if (url.includes("/bench/") || url.includes("/test/")) return "bench & fixtures";
  if (url.startsWith("node:") || url === "") return f.functionName.startsWith("(") ? f.functionName : "node internals";
  return "other";
}

function packageFromModules(url: string): string {
  const rest = url.slice(url.lastIndexOf("/node_modules/") + 14).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

export function summarise(profile: CpuProfile, filter?: RegExp): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const pkgTotal = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const stack: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) stack.push(byId.get(cur)!.callFrame);
    if (filter && !stack.some((f) => filter.test(frameName(f)))) return;
    all += dt;
    const leaf = stack[0]!;
    self.set(frameName(leaf), (self.get(frameName(leaf)) ?? 0) + dt);
    pkgSelf.set(packageOf(leaf), (pkgSelf.get(packageOf(leaf)) ?? 0) + dt);
    for (const name of new Set(stack.map(frameName))) total.set(name, (total.get(name) ?? 0) + dt);
    for (const p of new Set(stack.map(packageOf))) pkgTotal.set(p, (pkgTotal.get(p) ?? 0) + dt);
  });
  const frames = [...total.keys()].map((frame) => ({ frame, selfMs: self.get(frame) ?? 0, totalMs: total.get(frame)! }));
  const packages = [...pkgTotal.keys()].map((name) => ({ name, totalMs: pkgTotal.get(name)!, selfMs: pkgSelf.get(name) ?? 0 }));
  return { totalMs: all, frames, packages: packages.sort((a, b) => b.selfMs - a.selfMs) };
}

function print(summary: ProfileSummary, top: number): void {
  const pct = (ms: number) => `${((100 * ms) / summary.totalMs).toFixed(1).padStart(5)}%`;
  console.log(`sampled ${summary.totalMs.toFixed(0)} ms`);
  console.log("\nby self time:");
  for (const f of [...summary.frames].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) console.log(`  ${pct(f.selfMs)} self ${pct(f.totalMs)} total  ${f.frame}`);
  console.log("\nby total time:");
  for (const f of [...summary.frames].sort((a, b) => b.totalMs - a.totalMs).slice(0, top)) console.log(`  ${pct(f.totalMs)} total ${pct(f.selfMs)} self  ${f.frame}`);
  console.log("\nby package (self / total):");
  for (const p of summary.packages.slice(0, top)) console.log(`  ${pct(p.selfMs)} ${pct(p.totalMs)}  ${p.name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top = "25", filter] = process.argv.slice(2);
  if (!file) {
    console.error("usage: tsx bench/profile.ts <file.cpuprofile> [top] [filter]");
    process.exit(1);
  }
  print(summarise(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, filter ? new RegExp(filter) : undefined), Number(top));
}

/**
 * A quick look at one call path alone: ours against the floor and the adapters, in memory,
 * bare and as a ToolNode step, paired per round; CPU per call, the tool window's median, and
 * the paired ratios. With `--base=DIR` (a copy of the repository, or one whose src/ differs),
 * that tree's build is measured too, interleaved with ours, so a change to the call path is
 * measured against the code before it in the same run:
 *
 *   node --expose-gc --import tsx bench/callpath.ts [--rounds=12] [--batch=300] [--tool=echo|fail|raise|file_ticket] [--transport=memory|stdio|http] [--only='graph ours,graph adapters'] [--base=/tmp/base]
 *
 * `raise` answers a JSON-RPC error (-32602); `--transport` puts the server in a child process
 * (stdio, HTTP) as the goals' sections do, instead of in this process.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { mkdirSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadOurs, removeBuild, type Ours } from "./ours.js";
import { connectOver, type Transport } from "./servers.js";
import { interleave, median, pairedRatio, type Subject } from "./stats.js";
import { layersOver, subjectOf, type Layer, type Layers, type Mode } from "./subjects.js";
import { FORM_ARGS } from "./server/form.js";

const { values } = parseArgs({
  options: { rounds: { type: "string" }, batch: { type: "string" }, tool: { type: "string" }, only: { type: "string" }, base: { type: "string" }, transport: { type: "string" } },
});
const rounds = Number(values.rounds ?? 12);
const batch = Number(values.batch ?? 300);
const tool = values.tool ?? "echo";
const ARGS: Record<string, Record<string, unknown>> = { file_ticket: FORM_ARGS, echo: { text: "hello" }, fail: { message: "quota exceeded" }, raise: { code: -32602, message: "Invalid cursor: abc" } };
const args = ARGS[tool];
if (!args) throw new Error(`--tool wants one of ${Object.keys(ARGS).join(", ")}, got "${tool}".`);
const transport = (values.transport ?? "memory") as Transport;

/** The tree at `dir` built as bench/ours.ts builds ours. */
async function buildBase(dir: string): Promise<{ module: Ours; outDir: string }> {
  const outDir = fileURLToPath(new URL(`../node_modules/.cache/langchain-mcp-errors-callpath/${process.pid}/`, import.meta.url));
  mkdirSync(outDir, { recursive: true });
  const { build } = await import("tsup");
  await build({ entry: { index: `${dir}/src/index.ts` }, format: ["esm"], target: "node20", outDir, dts: false, sourcemap: false, clean: true, silent: true, config: false, tsconfig: `${dir}/tsconfig.json` });
  return { module: (await import(pathToFileURL(`${outDir}index.js`).href)) as Ours, outDir };
}

const ours = await loadOurs(false);
const base = values.base ? await buildBase(values.base) : undefined;
const server = await connectOver(transport, "callpath", tool === "raise");
const layers = await layersOver(ours.module, server.client);
const baseLayers = base ? await layersOver(base.module, server.client) : undefined;
try {
  const subjects: Subject[] = [];
  const add = (from: Layers, layer: Layer, mode: Mode, label?: string) => {
    const subject = subjectOf(from, layer, mode, tool, args, () => undefined);
    if (label) subject.name = `${mode} ${label}`;
    if (!values.only || values.only.split(",").includes(subject.name)) subjects.push(subject);
  };
  for (const mode of ["bare", "graph"] as Mode[]) {
    for (const layer of ["floor", "adapters", "ours"] as Layer[]) add(layers, layer, mode);
    if (baseLayers) add(baseLayers, "ours", mode, "base");
  }
  const out = await interleave(subjects, { rounds, batch, warmupRounds: 2 });
  for (const s of subjects) {
    const r = out.get(s.name)!;
    const window = r.windowMedians.length ? ` window ${median(r.windowMedians).toFixed(1)} µs` : "";
    console.log(`${s.name.padEnd(16)} median ${median(r.batchMedians).toFixed(1)} µs  cpu ${median(r.cpuMeans).toFixed(1)} µs${window}`);
  }
  for (const mode of ["bare", "graph"]) {
    for (const against of ["floor", "adapters", ...(base ? ["base"] : [])]) {
      const a = out.get(`${mode} ours`);
      const b = out.get(`${mode} ${against}`);
      if (!a || !b) continue;
      const w = mode === "graph" ? ` window ${pairedRatio(a.windowMedians, b.windowMedians).toFixed(3)}` : "";
      console.log(`${mode} ours/${against}: median ${pairedRatio(a.batchMedians, b.batchMedians).toFixed(3)} cpu ${pairedRatio(a.cpuMeans, b.cpuMeans).toFixed(3)}${w}`);
    }
  }
} finally {
  await baseLayers?.close();
  await layers.close();
  await server.close();
  removeBuild();
  if (base) rmSync(base.outDir, { recursive: true, force: true });
}

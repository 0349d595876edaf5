/**
 * What one in-flight call of ours holds, by object kind: a heap snapshot with N `hold` calls
 * waiting, diffed against one taken before they started (objects new in the second), grouped
 * by constructor, in bytes per call. For finding what to trim in the heap section's figure:
 *
 *   node --expose-gc --import tsx bench/heapdiff.ts [--n=300] [--top=40] [--layer=ours|floor]
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { writeHeapSnapshot } from "node:v8";
import { parseArgs } from "node:util";
import { loadOurs, removeBuild } from "./ours.js";
import { connectStdio } from "./servers.js";
import { collect, pollUntil } from "./stats.js";
import { layersOver, textOf, toolCall, type ToolLayer } from "./subjects.js";

const { values } = parseArgs({ options: { n: { type: "string" }, top: { type: "string" }, layer: { type: "string" } } });
const n = Number(values.n ?? 300);
const layer = (values.layer ?? "ours") as ToolLayer;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Every object's id → [kind, self size]. */
function objects(path: string): Map<number, [string, number]> {
  const snap = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iId, iSize] = ["type", "name", "id", "self_size"].map((f) => fields.indexOf(f)) as [number, number, number, number];
  const out = new Map<number, [string, number]>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]!]!;
    const name = snap.strings[snap.nodes[i + iName]!]!;
    const kind = type === "object" || type === "native" ? name : type === "closure" ? `closure ${name}` : `(${type})`;
    out.set(snap.nodes[i + iId]!, [kind, snap.nodes[i + iSize]!]);
  }
  return out;
}

/** Writes a snapshot to a file; read only after both are written, so the reading is in neither. */
function snapshot(tag: string): string {
  collect();
  return writeHeapSnapshot(`${tmpdir()}/heapdiff-${process.pid}-${tag}.heapsnapshot`);
}

const ours = await loadOurs(false);
const server = await connectStdio("bench-heap");
// Writing a snapshot blocks for seconds on a loaded machine: a long timeout keeps the held calls alive through it.
const layers = await layersOver(ours.module, server.client, { timeoutMs: 600_000 });
const count = async (name: string) => textOf(await server.client.callTool({ name, arguments: {} }));
try {
  const tool = layers.tool(layer, "hold");
  await layers.tool(layer, "echo").invoke(toolCall("echo", { text: "warm" }, 0));
  const round = async (keep: (before: string, during: string) => void) => {
    const before = snapshot("before");
    const calls = Array.from({ length: n }, (_, i) => tool.invoke(toolCall("hold", {}, i)));
    if ((await pollUntil(async () => (await count("held")) === String(n), 20_000)) === undefined) throw new Error(`the server holds ${await count("held")} calls, not ${n}: ${textOf(await Promise.race([calls[0], "pending"]))}`);
    const during = snapshot("during");
    await count("release");
    const results = await Promise.all(calls);
    if (textOf(results[0]) !== "released") throw new Error(`A held call ended with ${textOf(results[0]).slice(0, 200)}`);
    keep(before, during);
  };
  await round((before, during) => {
    rmSync(before);
    rmSync(during);
  });
  await round((beforePath, duringPath) => {
    const before = objects(beforePath);
    const during = objects(duringPath);
    rmSync(beforePath);
    rmSync(duringPath);
    const byKind = new Map<string, { bytes: number; count: number }>();
    let total = 0;
    for (const [id, [kind, size]] of during) {
      if (before.has(id)) continue;
      const k = byKind.get(kind) ?? { bytes: 0, count: 0 };
      k.bytes += size;
      k.count += 1;
      total += size;
      byKind.set(kind, k);
    }
    console.log(`${layer}: ${(total / n).toFixed(0)} B per in-flight call (new objects' self sizes)`);
    for (const [kind, { bytes, count }] of [...byKind].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top ?? 40))) {
      console.log(`${(bytes / n).toFixed(0).padStart(6)} B ${(count / n).toFixed(2).padStart(6)}/call  ${kind.slice(0, 100)}`);
    }
  });
} finally {
  await layers.close();
  await server.close();
  removeBuild();
}

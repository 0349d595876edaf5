/**
 * 2c. Building many tools: `McpToolkit.connect` + `getTools()` over a server listing 1,000
 * tools, with 200 glob policies in `tools` and, for reference, with none; then the cost of
 * `getTool(name)` on that toolkit.
 */
import { Bench } from "tinybench";
import type { ToolPolicy } from "../../src/index.js";
import type { BenchContext } from "../context.js";
import { atMost, GUARDS } from "../goals.js";
import { fmt, type SectionResult } from "../model.js";
import { buildManyToolsServer, groupName } from "../server/tools.js";
import { connectMemory } from "../servers.js";
import { collect, median, rotate } from "../stats.js";

const TOOLS = 1000;
const GROUPS = 50;
const GLOBS = 200;

/**
 * 200 globs in the shapes people write: a group by exposed name, a group by qualified name,
 * and name suffixes; each sets a different policy, so none can be folded into another.
 */
export function globPolicies(): Record<string, ToolPolicy> {
  const tools: Record<string, ToolPolicy> = {};
  for (let k = 0; k < GLOBS; k++) {
    const key = k < GROUPS ? `${groupName(k)}_*` : k < 2 * GROUPS ? `s/${groupName(k - GROUPS)}_1*` : `*_${k - 2 * GROUPS}`;
    tools[key] = k % 2 === 0 ? { timeoutMs: 10_000 + k } : { retry: { retries: k % 4 } };
  }
  return tools;
}

export async function buildMany({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const server = await connectMemory(buildManyToolsServer(TOOLS, GROUPS));
  cleanup(server.close);
  const policies = globPolicies();
  const builds = [
    { name: `connect + getTools, ${GLOBS} glob policies`, tools: policies },
    { name: "connect + getTools, no policies (reference)", tools: undefined },
  ];
  const times = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  const listing: number[] = [];
  for (let trial = 0; trial < plan.build.trials + 1; trial++) {
    for (const b of rotate(builds, trial)) {
      collect(1);
      const t0 = performance.now();
      const toolkit = await ours.McpToolkit.connect({ servers: { s: { client: server.client } }, ...(b.tools ? { tools: b.tools } : {}) });
      const count = toolkit.getTools().length;
      const ms = performance.now() - t0;
      await toolkit.close();
      if (count !== TOOLS) throw new Error(`Expected ${TOOLS} tools, got ${count}.`);
      // The first trial warms the JIT and is dropped.
      if (trial > 0) times.get(b.name)!.push(ms);
    }
    const t0 = performance.now();
    await server.client.listTools();
    if (trial > 0) listing.push(performance.now() - t0);
  }

  // A fresh `tools` object, so nothing cached for the one above can serve this toolkit.
  const toolkit = await ours.McpToolkit.connect({ servers: { s: { client: server.client } }, tools: globPolicies() });
  cleanup(() => toolkit.close());
  const names = toolkit.getTools().map((t) => t.name);
  const bench = new Bench({ time: plan.micro.timeMs, warmupTime: 30 });
  for (const [label, name] of [["first", names[0]!], ["last", names.at(-1)!]] as const) bench.add(`getTool(${label} of ${TOOLS})`, () => toolkit.getTool(name));
  await bench.run();

  const rows = [...times].map(([name, ms]) => [name, fmt(median(ms), 1), fmt(Math.max(...ms), 1), ms.map((x) => fmt(x, 0)).join(", ")]);
  rows.push(["`client.listTools()` alone (reference)", fmt(median(listing), 1), fmt(Math.max(...listing), 1), listing.map((x) => fmt(x, 0)).join(", ")]);
  const getToolRows = bench.tasks.map((t) => [t.name, fmt(t.result.state === "completed" ? t.result.latency.mean * 1000 : Number.NaN, 3)]);
  const withGlobs = median(times.get(builds[0]!.name)!);
  return {
    title: `2c. ${TOOLS.toLocaleString("en-US")} tools with ${GLOBS} glob policies`,
    method:
      `In memory, over a connected client to a server listing ${TOOLS} tools (\`group<g>_<n>\`, ${GROUPS} groups). Each trial times \`McpToolkit.connect({ servers: { s: { client } }, tools })\` and \`getTools()\`, ` +
      `so it includes listing the tools; ${plan.build.trials} trials after one dropped, alternating, a full GC before each. ` +
      `The ${GLOBS} \`tools\` keys: \`group<g>_*\`, \`s/group<g>_1*\` and \`*_<n>\`, each with its own timeout or retry policy.`,
    tables: [
      { headers: ["build", "median ms", "max ms", "each trial, ms"], rows },
      { headers: ["lookup (tinybench)", "µs per call"], rows: getToolRows },
    ],
    ratios: [],
    goals: [atMost(`${TOOLS} tools with ${GLOBS} globs: connect + getTools`, withGlobs, GUARDS.buildMs, "ms", "guard")],
    notes: [],
  };
}

/**
 * 1. Success path: raw, floor, adapters and ours, inside a LangGraph run (a ToolNode step)
 * and bare, for `echo` and a dozen-field tool, in memory, over stdio and over streamable HTTP
 * (the server in a child process for both). The guards: inside LangGraph over stdio and
 * HTTP, ours/floor for the whole step and for the tool's window; in memory is information.
 */
import type { BenchContext } from "../context.js";
import { measure, STEP_HEADERS, TIME_HEADERS, timeCells, VERSUS_HEADERS, versus, versusCells, type Measured } from "../compare.js";
import { GUARDS, ratioGuard } from "../goals.js";
import { fmt, type Goal, type Ratio, type SectionResult } from "../model.js";
import { FORM_ARGS, formReply } from "../server/form.js";
import { connectOver, type Transport } from "../servers.js";
import { expectText, LAYERS, layersOver, subjectOf, type Layer, type Layers, type Mode } from "../subjects.js";

/** The two tools every comparison runs: one string field, and a realistic dozen fields. */
export const SCHEMAS = [
  { schema: "echo", tool: "echo", args: { text: "hello" } as Record<string, unknown>, reply: "hello" },
  { schema: "12 fields", tool: "file_ticket", args: FORM_ARGS as Record<string, unknown>, reply: formReply(FORM_ARGS) },
];

const MODES: Mode[] = ["graph", "bare"];
const AGAINST = ["adapters", "floor", "raw"] as const;

/** The guards hold inside LangGraph, over stdio and HTTP, on ours/floor (ours/adapters and ours/raw keep their figures, without a bound). */
const hasGoal = (transport: Transport, mode: Mode, other: (typeof AGAINST)[number]): boolean => GUARDS.goalTransports.includes(transport) && mode === "graph" && other === "floor";

export async function successPath({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const transports: { transport: Transport; layers: Layers; runs: (typeof plan.success)[Transport] }[] = [];
  for (const transport of ["memory", "stdio", "http"] as const) {
    const connected = await connectOver(transport, `bench-success-${transport}`);
    cleanup(connected.close);
    const layers = await layersOver(ours, connected.client);
    cleanup(layers.close);
    transports.push({ transport, layers, runs: plan.success[transport] });
  }

  const rows: Record<Mode, string[][]> = { graph: [], bare: [] };
  const versusRows: string[][] = [];
  const ratios: Ratio[] = [];
  const goals: Goal[] = [];
  const rawEcho: Record<Mode, number> = { graph: Number.NaN, bare: Number.NaN };
  for (const { transport, layers, runs } of transports) {
    for (const { schema, tool, args, reply } of SCHEMAS) {
      const check = expectText((text) => text === reply, JSON.stringify(reply));
      for (const mode of MODES) {
        const subjects = LAYERS.map((layer) => subjectOf(layers, layer, mode, tool, args, check));
        const measured = await measure(subjects, { ...runs[mode], warmupRounds: plan.warmupRounds });
        if (transport === "memory" && schema === "echo") rawEcho[mode] = measured.get(`${mode} raw`)!.tool.medianUs;
        const get = (layer: Layer): Measured => measured.get(`${mode} ${layer}`)!;
        const raw = get("raw").tool.medianUs;
        for (const layer of LAYERS) {
          const tool = get(layer).tool.medianUs;
          rows[mode].push([transport, schema, layer, ...timeCells(get(layer), mode === "graph"), fmt(tool / raw, 2), fmt(tool - raw)]);
        }
        const how = mode === "graph" ? "LangGraph" : "bare";
        for (const other of AGAINST) {
          const v = versus(get("ours"), get(other));
          versusRows.push([transport, schema, how, `ours/${other}`, ...versusCells(v, mode === "graph")]);
          // The chart: every ratio inside LangGraph against the floor and the adapters.
          if (mode === "graph" && other !== "raw") {
            const goal = hasGoal(transport, mode, other);
            ratios.push({ label: `${transport} ${how} ${schema}: ours/${other}, step`, value: v.step, ...(goal ? { goalMax: GUARDS.stepVsFloor } : {}) });
            ratios.push({ label: `${transport} ${how} ${schema}: ours/${other}, tool window`, value: v.median, ...(goal ? { goalMax: GUARDS.windowVsFloor } : {}) });
          }
          if (hasGoal(transport, mode, other)) {
            goals.push(ratioGuard(`inside a ToolNode, ${transport}, ${schema}: whole step, ours/floor`, v.step, v.stepMean, GUARDS.stepVsFloor));
            goals.push(ratioGuard(`inside a ToolNode, ${transport}, ${schema}: tool window, ours/floor`, v.median, v.mean, GUARDS.windowVsFloor));
          }
        }
      }
    }
  }
  const { memory: m, stdio: s, http: h } = plan.success;
  return {
    title: "1. Success path, inside LangGraph and bare",
    method:
      "One v1 SDK client per transport, shared by every subject (in memory: the bench server in this process; stdio: the bench server as a child process; HTTP: the bench server in a child process over streamable HTTP on 127.0.0.1, one session). " +
      `In memory ${m.graph.rounds} rounds × ${m.graph.batch} graph runs and ${m.bare.rounds} × ${m.bare.batch} bare calls per subject; over stdio ${s.graph.rounds} × ${s.graph.batch} and ${s.bare.rounds} × ${s.bare.batch}; over HTTP ${h.graph.rounds} × ${h.graph.batch} and ${h.bare.rounds} × ${h.bare.batch}; ` +
      `subjects rotated each round, ${plan.warmupRounds} warm-up round(s) dropped, no GC forced (one forced before a batch slowed that batch's subject, ours most; see bench/stats.ts). ` +
      "Median: of every call. Batch mean: the batch's wall time over its size, GC included; the figure is its median over rounds. " +
      "The guards (issue 45) hold inside LangGraph over stdio and HTTP, ours/floor, for the whole step and for the tool's window, on the paired batch medians; in memory the figures are information. " +
      "The ratios and the goals are paired: each round, ours' batch median (and batch mean) over the other subject's in the same round, then the median over rounds, for the tool's window and for the whole step alike, so a drift of the machine's speed between rounds does not fall on one subject; `median of all calls` divides the medians of every call instead. " +
      "Inside LangGraph the tool's time is the window of ToolNode's `runTool` for the call, up to the ToolMessage it returns (for raw: `client.callTool` in the node and the ToolMessage it builds); the step is the whole `graph.invoke`. " +
      "Step CPU: the CPU this process used per step (every thread, GC included; in memory the server's work too), the median over batches. " +
      "The graph works on while a tool awaits its server, so some of the graph's own work falls inside the tool window, more or less of it with each subject: where the windows differ and the step's CPU does not, the difference is where that work fell, not work the subject did. " +
      "Ours runs with default policies (retry, breaker, 30 s timeout).",
    tables: [
      { headers: ["transport", "schema", "subject (inside LangGraph)", ...STEP_HEADERS, "tool × raw", "tool − raw µs (median)"], rows: rows.graph },
      { headers: ["transport", "schema", "subject (bare)", ...TIME_HEADERS, "× raw", "− raw µs (median)"], rows: rows.bare },
      { headers: ["transport", "schema", "how called", "ratio", ...VERSUS_HEADERS], rows: versusRows },
    ],
    ratios,
    goals,
    notes: [
      "The `echo` tool has one string field. The 12-field tool (`file_ticket`, bench/server/form.ts) has strings with formats (email, uuid, uri, date-time), enums, bounds, a nested object and arrays; every call fills every field.",
      `Inside a graph the window also holds work the graph does in the background while the tool awaits its server (in memory a raw \`callTool\` of echo took ${fmt(rawEcho.graph)} µs there, ${fmt(rawEcho.bare)} µs bare); it falls on every subject alike, and shrinks every ratio towards 1.`,
      "Bare calls of the adapters' tools throw and catch an Error in `getCurrentTaskInput` on every call (no graph), which a graph run does not; the LangGraph figures are the ones that compare what users run.",
    ],
  };
}

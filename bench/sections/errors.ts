/**
 * 2. Error paths: a tool answering `isError`, and one answering a JSON-RPC error, inside a
 * LangGraph run and bare. Inside a graph both LangChain layers end in an error ToolMessage
 * (ours returns it; ToolNode catches the adapters' ToolException and writes it); bare, the
 * time runs until the model's text is ready (the adapters' exception caught and stringified).
 * Over stdio and streamable HTTP (servers in child processes) inside LangGraph: the
 * guards; in memory inside LangGraph and bare: information.
 */
import type { BenchContext } from "../context.js";
import { measure, STEP_HEADERS, timeCells, VERSUS_HEADERS, versus, versusCells } from "../compare.js";
import { GUARDS, ratioGuard } from "../goals.js";
import type { Goal, Ratio, SectionResult } from "../model.js";
import { connectOver, type Transport } from "../servers.js";
import { expectText, layersOver, subjectOf, textOf, type Layer, type Mode } from "../subjects.js";

const CASES = [
  { label: "isError", tool: "fail", message: "quota exceeded for project alpha", args: { message: "quota exceeded for project alpha" } },
  // -32602 is permanent, so no retry delay is timed: only the classification and the text.
  { label: "JSON-RPC error", tool: "raise", message: "Invalid cursor: abc", args: { code: -32602, message: "Invalid cursor: abc" } },
];
const LAYERS: Layer[] = ["raw", "adapters", "ours"];
/** Where each transport is measured: the goals are inside LangGraph over stdio and HTTP. */
const MODES: Record<Transport, Mode[]> = { memory: ["graph", "bare"], stdio: ["graph"], http: ["graph"] };

/** The call failed with the server's message; a LangChain layer in a graph ended in an error ToolMessage. */
function failedWith(message: string, layer: Layer, mode: Mode): (result: unknown) => void {
  const marked = layer !== "raw" && !(mode === "bare" && layer === "adapters");
  return expectText((text) => text.includes(message) && (!marked || text.startsWith("error: ")), `a failure carrying "${message}"`);
}

export async function errorPath({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const rows: string[][] = [];
  const versusRows: string[][] = [];
  const ratios: Ratio[] = [];
  const goals: Goal[] = [];
  const examples: string[] = [];
  for (const transport of ["memory", "stdio", "http"] as const) {
    for (const c of CASES) {
      const server = await connectOver(transport, `bench-errors-${transport}`, c.tool === "raise");
      cleanup(server.close);
      const layers = await layersOver(ours, server.client);
      cleanup(layers.close);
      for (const mode of MODES[transport]) {
        const subjects = LAYERS.map((layer) => subjectOf(layers, layer, mode, c.tool, c.args, failedWith(c.message, layer, mode)));
        const runs = transport === "memory" ? plan.errors.memory[mode] : plan.errors[transport];
        const measured = await measure(subjects, { ...runs, warmupRounds: plan.warmupRounds });
        const where = mode === "graph" ? "LangGraph" : "bare";
        for (const layer of LAYERS) rows.push([transport, c.label, where, layer, ...timeCells(measured.get(`${mode} ${layer}`)!, true)]);
        const v = versus(measured.get(`${mode} ours`)!, measured.get(`${mode} adapters`)!);
        versusRows.push([transport, c.label, where, "ours/adapters", ...versusCells(v, mode === "graph")]);
        const goal = mode === "graph" && GUARDS.goalTransports.includes(transport);
        ratios.push({ label: `${transport} ${where} ${c.label}: ours/adapters`, value: v.median, ...(goal ? { goalMax: GUARDS.errorsVsAdapters } : {}) });
        if (goal) goals.push(ratioGuard(`inside a ToolNode, ${transport}, ${c.label}: tool window, ours/adapters`, v.median, v.mean, GUARDS.errorsVsAdapters));
        if (transport !== "memory") continue;
        for (const layer of ["adapters", "ours"] as const) {
          examples.push(`${c.label}, ${where}, ${layer}: \`${textOf(await subjects.find((s) => s.name === `${mode} ${layer}`)!.call(0)).slice(0, 200).replace(/\n/g, "⏎")}\``);
        }
      }
    }
  }
  return {
    title: "2. Error paths, inside LangGraph and bare",
    method:
      `Over stdio and over streamable HTTP (each server in a child process, one v1 SDK client shared by the subjects), inside LangGraph: the guards, ${plan.errors.stdio.rounds} rounds × ${plan.errors.stdio.batch} graph runs (stdio) and ${plan.errors.http.rounds} × ${plan.errors.http.batch} (HTTP) per subject. ` +
      `In memory, information: ${plan.errors.memory.graph.rounds} rounds × ${plan.errors.memory.graph.batch} graph runs and ${plan.errors.memory.bare.rounds} × ${plan.errors.memory.bare.batch} bare calls. Interleaved, no GC forced. ` +
      "Inside LangGraph: the same ToolNode step as the success path; the tool window is ToolNode's `runTool`, so it ends when the error ToolMessage exists: ours returns it, ToolNode catches the adapters' ToolException and writes it (raw: the node writes it). " +
      "Bare: `invoke(toolCall)`, the adapters' ToolException caught and stringified (raw: `callTool`, its error caught). The JSON-RPC error is -32602 (permanent, so no retry wait). " +
      "The ratios and the goals are paired round by round, as in section 1. " +
      "For bare calls the tool columns are the calls themselves. Step CPU: the CPU this process used per step or bare call (every thread, GC included, the in-memory server's work too), the median over batches.",
    tables: [
      { headers: ["transport", "case", "how called", "subject", ...STEP_HEADERS], rows },
      { headers: ["transport", "case", "how called", "ratio", ...VERSUS_HEADERS], rows: versusRows },
    ],
    ratios,
    goals,
    notes: ["What the model reads, in memory (⏎ marks a line break):", ...examples],
  };
}

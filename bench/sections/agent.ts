/**
 * 1b. Whole agent runs: `createAgent` with a scripted `fakeModel` that asks for one tool
 * call and then answers, so each run is model → tool → model, as in demo/run.ts. The tool is
 * the floor's, the adapters' or ours; everything else in the run is the same. Over stdio (the
 * bench server in a child process; the guard) and in memory (information).
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createAgent, fakeModel } from "langchain";
import type { BenchContext } from "../context.js";
import { measure, TIME_HEADERS, timeCells, VERSUS_HEADERS, versus, versusCells } from "../compare.js";
import { GUARDS, ratioGuard } from "../goals.js";
import { fmt, type Goal, type Ratio, type SectionResult } from "../model.js";
import { connectOver } from "../servers.js";
import type { Subject } from "../stats.js";
import { layersOver, type ToolLayer } from "../subjects.js";
import { SCHEMAS } from "./success.js";

const LAYERS: ToolLayer[] = ["floor", "adapters", "ours"];

/** An agent over one tool whose model asks for `args` once per run, then answers. */
function agentSubject(layer: ToolLayer, tool: StructuredToolInterface, args: Record<string, unknown>, reply: string): Subject {
  const model = fakeModel();
  const agent = createAgent({ model, tools: [tool] });
  return {
    name: layer,
    call: (i) => {
      // The script grows by one run per call; queuing two entries costs next to nothing.
      model.respondWithTools([{ name: tool.name, args, id: `call-${i}` }]).respond(new AIMessage("done"));
      return agent.invoke({ messages: [{ role: "user", content: "go" }] });
    },
    check: (result) => {
      const answer = (result as { messages: unknown[] }).messages.find((m): m is ToolMessage => m instanceof ToolMessage);
      if (answer?.content !== reply) throw new Error(`Agent run: expected ${JSON.stringify(reply)}, got ${JSON.stringify(answer?.content)}`);
    },
  };
}

export async function agentRuns({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const rows: string[][] = [];
  const versusRows: string[][] = [];
  const ratios: Ratio[] = [];
  const goals: Goal[] = [];
  for (const transport of ["memory", "stdio"] as const) {
    const connected = await connectOver(transport, "bench-agent");
    cleanup(connected.close);
    const layers = await layersOver(ours, connected.client);
    cleanup(layers.close);
    for (const { schema, tool, args, reply } of SCHEMAS) {
      const subjects = LAYERS.map((layer) => agentSubject(layer, layers.tool(layer, tool), args, reply));
      const measured = await measure(subjects, { ...plan.agent[transport], warmupRounds: plan.warmupRounds });
      const adapters = measured.get("adapters")!.call;
      for (const layer of LAYERS) {
        const m = measured.get(layer)!;
        rows.push([transport, schema, layer, ...timeCells(m, false), fmt(m.call.medianUs / adapters.medianUs, 2), fmt(m.call.meanUs / adapters.meanUs, 2)]);
      }
      for (const other of ["adapters", "floor"] as const) {
        const v = versus(measured.get("ours")!, measured.get(other)!);
        versusRows.push([transport, schema, `ours/${other}`, ...versusCells(v, false)]);
        // The guard is on ours/adapters over stdio; ours/floor is shown for what LangChain's own layer costs.
        const goalMax = other === "adapters" && transport === "stdio" ? GUARDS.agentVsAdapters : undefined;
        ratios.push({ label: `createAgent run, ${transport}, ${schema}: ours/${other}`, value: v.median, ...(goalMax === undefined ? {} : { goalMax }) });
        if (goalMax !== undefined) goals.push(ratioGuard(`whole createAgent run, stdio, ${schema}: ours/adapters`, v.median, v.mean, goalMax));
      }
    }
  }
  return {
    title: "1b. Whole agent runs (createAgent, scripted model)",
    method:
      `Over stdio (the bench server in a child process; the guard, ours/adapters) and in memory (information). \`agent.invoke({ messages: [user] })\` on \`createAgent({ model: fakeModel(), tools: [tool] })\`; the model asks for one call of the tool, then answers. ` +
      `Over stdio ${plan.agent.stdio.rounds} rounds × ${plan.agent.stdio.batch} runs per subject, in memory ${plan.agent.memory.rounds} × ${plan.agent.memory.batch}, interleaved (rotated each round), ${plan.warmupRounds} warm-up round(s) dropped, no GC forced. The whole run is timed, so the model's and the graph's work dilute every ratio. ` +
      "The ratios and the goals are paired, as in section 1: each round, ours' batch median (and batch mean) over the other subject's in the same round, then the median over rounds; the `× adapters` columns of the first table divide the medians of every run instead.",
    tables: [
      { headers: ["transport", "schema", "tool", ...TIME_HEADERS, "× adapters (median of all)", "× adapters (batch mean)"], rows },
      { headers: ["transport", "schema", "ratio", ...VERSUS_HEADERS], rows: versusRows },
    ],
    ratios,
    goals,
    notes: [],
  };
}

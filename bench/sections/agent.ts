/**
 * 1b. Whole agent runs: `createAgent` with a scripted `fakeModel` that asks for one tool
 * call and then answers, so each run is model → tool → model, as in demo/run.ts. The tool is
 * the floor's, the adapters' or ours; everything else in the run is the same.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createAgent, fakeModel } from "langchain";
import type { BenchContext } from "../context.js";
import { measure, TIME_HEADERS, timeCells } from "../compare.js";
import { fmt, type SectionResult } from "../model.js";
import { connectMemory } from "../servers.js";
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
  const memory = await connectMemory();
  cleanup(memory.close);
  const layers = await layersOver(ours, memory.client);
  cleanup(layers.close);
  const rows: string[][] = [];
  for (const { schema, tool, args, reply } of SCHEMAS) {
    const subjects = LAYERS.map((layer) => agentSubject(layer, layers.tool(layer, tool), args, reply));
    const measured = await measure(subjects, { ...plan.agent, warmupRounds: plan.warmupRounds });
    const adapters = measured.get("adapters")!.call;
    for (const layer of LAYERS) {
      const m = measured.get(layer)!;
      rows.push([schema, layer, ...timeCells(m, false), fmt(m.call.medianUs / adapters.medianUs, 2), fmt(m.call.meanUs / adapters.meanUs, 2)]);
    }
  }
  return {
    title: "1b. Whole agent runs (createAgent, scripted model)",
    method:
      `In memory. \`agent.invoke({ messages: [user] })\` on \`createAgent({ model: fakeModel(), tools: [tool] })\`; the model asks for one call of the tool, then answers. ` +
      `${plan.agent.rounds} rounds × ${plan.agent.batch} runs per subject, interleaved, no GC forced. The whole run is timed, so the model's and the graph's work dilute every ratio.`,
    tables: [{ headers: ["schema", "tool", ...TIME_HEADERS, "× adapters (median)", "× adapters (batch mean)"], rows }],
    ratios: [],
    goals: [],
    notes: [],
  };
}

/**
 * Where a ToolNode step's tool window goes, ours against the adapters over one client: before the
 * `tools/call` is written, the round trip (written to answer read, on the client's transport),
 * and after the answer until the ToolMessage exists. Subjects alternate batch by batch; the
 * window ratio is paired per round, as in the bench. This is how the progress token each graph
 * call used to ask for was found (about 45 µs of a JSON-RPC error's window over stdio).
 *
 *   node --expose-gc --import tsx bench/stages.ts [--tool=echo|fail|raise] [--transport=stdio|http|memory] [--rounds=20] [--batch=150] [--src]
 */
import { parseArgs } from "node:util";
import type { ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { stepInput } from "./graph.js";
import { loadOurs, removeBuild } from "./ours.js";
import { connectOver, type Transport } from "./servers.js";
import { median, pairedRatio } from "./stats.js";
import { layersOver } from "./subjects.js";

const { values } = parseArgs({ options: { tool: { type: "string" }, transport: { type: "string" }, rounds: { type: "string" }, batch: { type: "string" }, src: { type: "boolean" } } });
const tool = values.tool ?? "raise";
const ARGS: Record<string, Record<string, unknown>> = { echo: { text: "hello" }, fail: { message: "quota exceeded" }, raise: { code: -32602, message: "Invalid cursor: abc" } };
const chosen = ARGS[tool];
if (!chosen) throw new Error(`--tool wants one of ${Object.keys(ARGS).join(", ")}, got "${tool}".`);
const args: Record<string, unknown> = chosen;
const transport = (values.transport ?? "stdio") as Transport;
const rounds = Number(values.rounds ?? 20);
const batch = Number(values.batch ?? 150);
const WARMUP_ROUNDS = 2;

const ours = await loadOurs(values.src === true);
const server = await connectOver(transport, "stages", tool === "raise");
const layers = await layersOver(ours.module, server.client);

/** The last step's marks, in ms (performance.now()). */
const t = { start: 0, sent: 0, answered: 0, end: 0 };
// The client's transport, as the SDK wired it: its send and its onmessage, timed where they are.
const transportOf = server.client.transport as { send: (m: JSONRPCMessage, o?: unknown) => Promise<void>; onmessage?: (m: JSONRPCMessage, e?: unknown) => void };
const send = transportOf.send.bind(transportOf);
transportOf.send = (message, options) => {
  if ("method" in message && message.method === "tools/call") t.sent = performance.now();
  return send(message, options);
};
const onmessage = transportOf.onmessage!;
transportOf.onmessage = (message, extra) => {
  if ("id" in message && !("method" in message)) t.answered = performance.now();
  onmessage(message, extra);
};

function stepOf(layer: "ours" | "adapters"): (i: number) => Promise<unknown> {
  class TimedToolNode extends ToolNode {
    protected override async runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<ToolMessage> {
      t.start = performance.now();
      try {
        return (await super.runTool(call, config, state)) as ToolMessage;
      } finally {
        t.end = performance.now();
      }
    }
  }
  const graph = new StateGraph(MessagesAnnotation).addNode("tools", new TimedToolNode([layers.tool(layer, tool)])).addEdge(START, "tools").addEdge("tools", END).compile();
  return (i) => graph.invoke(stepInput(tool, args, i));
}

const subjects = { adapters: stepOf("adapters"), ours: stepOf("ours") };
type Name = keyof typeof subjects;
const stages = { before: [] as number[], trip: [] as number[], after: [] as number[], window: [] as number[] };
const samples: Record<Name, typeof stages> = { adapters: structuredClone(stages), ours: structuredClone(stages) };
const windowMedians: Record<Name, number[]> = { adapters: [], ours: [] };
try {
  for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
    for (const name of (round % 2 ? ["ours", "adapters"] : ["adapters", "ours"]) as Name[]) {
      const windows: number[] = [];
      for (let i = 0; i < batch; i++) {
        await subjects[name](i);
        const s = samples[name];
        windows.push((t.end - t.start) * 1000);
        if (round < WARMUP_ROUNDS) continue;
        s.before.push((t.sent - t.start) * 1000);
        s.trip.push((t.answered - t.sent) * 1000);
        s.after.push((t.end - t.answered) * 1000);
        s.window.push((t.end - t.start) * 1000);
      }
      if (round >= WARMUP_ROUNDS) windowMedians[name].push(median(windows));
    }
  }
  console.log(`${tool} over ${transport}, ${rounds} rounds × ${batch} steps per subject; medians in µs`);
  for (const name of Object.keys(subjects) as Name[]) {
    const s = samples[name];
    console.log(`${name.padEnd(9)} before send ${median(s.before).toFixed(1).padStart(7)}   round trip ${median(s.trip).toFixed(1).padStart(7)}   after answer ${median(s.after).toFixed(1).padStart(7)}   window ${median(s.window).toFixed(1).padStart(7)}`);
  }
  console.log(`tool window ours/adapters, paired per round: ${pairedRatio(windowMedians.ours, windowMedians.adapters).toFixed(3)}`);
} finally {
  await layers.close();
  await server.close();
  removeBuild();
}

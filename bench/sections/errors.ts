/**
 * 2. Error path: time until the text the model reads is ready, for a tool answering
 * `isError` and one answering a JSON-RPC error. Ours returns it (a ToolMessage); the
 * adapters throw a ToolException, which the caller catches and stringifies.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { buildFixtureServer, buildProtocolErrorServer, newState } from "../../test/servers/fixture.js";
import { fmt, type Ratio, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import { connectMemory } from "../servers.js";
import { interleave, latencyStats, type Subject } from "../stats.js";
import { layersOver, toolCall } from "../subjects.js";
import type { McpTool } from "../../src/index.js";

interface Case {
  label: string;
  tool: string;
  args: Record<string, unknown>;
}

const CASES: Case[] = [
  { label: "isError", tool: "fail", args: { message: "quota exceeded for project alpha" } },
  // -32602 is permanent, so no retry delay is timed: only the classification and text.
  { label: "protocol error", tool: "raise", args: { code: -32602, message: "Invalid cursor: abc" } },
];

/** The adapters' text: what a caller gets by catching the ToolException. */
async function adaptersText(tool: StructuredToolInterface, args: Record<string, unknown>, i: number): Promise<string> {
  try {
    await tool.invoke(toolCall(tool.name, args, i));
  } catch (error) {
    return String(error);
  }
  throw new Error("The adapters' tool did not throw for a failing call.");
}

async function oursText(tool: McpTool, args: Record<string, unknown>, i: number): Promise<string> {
  const message = await tool.invoke(toolCall(tool.name, args, i));
  if (!(message instanceof ToolMessage) || message.status !== "error") throw new Error("Our tool did not answer an error ToolMessage.");
  return message.content as string;
}

async function rawText(client: Client, c: Case): Promise<string> {
  try {
    const result = await client.callTool({ name: c.tool, arguments: c.args });
    return (result.content as { text?: string }[])[0]?.text ?? "";
  } catch (error) {
    return String(error);
  }
}

export async function errorPath({ plan, ours: library, cleanup }: BenchContext): Promise<SectionResult> {
  const fixture = await connectMemory(buildFixtureServer(newState()));
  const protocol = await connectMemory(buildProtocolErrorServer());
  cleanup(fixture.close);
  cleanup(protocol.close);
  const clients: Record<string, Client> = { fail: fixture.client, raise: protocol.client };

  const rows: string[][] = [];
  const ratios: Ratio[] = [];
  const examples: string[] = [];
  for (const c of CASES) {
    const layers = await layersOver(library, clients[c.tool]!);
    cleanup(layers.close);
    const ours = layers.ours(c.tool);
    const adapters = layers.adapters(c.tool);
    const subjects: Subject[] = [
      { name: "raw callTool (reference)", call: () => rawText(clients[c.tool]!, c) },
      { name: "adapters (catch + String)", call: (i) => adaptersText(adapters, c.args, i) },
      { name: "ours (error ToolMessage)", call: (i) => oursText(ours, c.args, i) },
    ];
    const samples = await interleave(subjects, { ...plan.errors, warmupRounds: plan.warmupRounds });
    const stats = new Map([...samples].map(([k, v]) => [k, latencyStats(v)]));
    const raw = stats.get(subjects[0]!.name)!;
    for (const s of subjects) {
      const st = stats.get(s.name)!;
      rows.push([c.label, s.name, fmt(st.medianUs), fmt(st.p99Us), fmt(st.medianUs / raw.medianUs, 2)]);
    }
    const value = stats.get(subjects[2]!.name)!.medianUs / stats.get(subjects[1]!.name)!.medianUs;
    ratios.push({ label: `${c.label}: ours/adapters`, value });
    examples.push(`${c.label}, adapters: \`${(await adaptersText(adapters, c.args, 0)).slice(0, 160)}\``);
    examples.push(`${c.label}, ours: \`${(await oursText(ours, c.args, 0)).slice(0, 220)}\``);
  }
  return {
    title: "2. Error path (time until the model-facing text is ready)",
    method:
      `In memory. ${plan.errors.rounds} rounds × ${plan.errors.batch} calls per subject, interleaved. Both LangChain layers are called with a tool call; ` +
      "ours returns an error ToolMessage, the adapters' ToolException is caught and stringified. The protocol error is -32602 (permanent, so no retry wait).",
    tables: [{ headers: ["case", "subject", "median µs", "p99 µs", "× raw"], rows }],
    ratios,
    goals: [],
    notes: examples,
  };
}

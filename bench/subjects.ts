/**
 * The four ways to call one MCP tool, each over the same connected client so only the layer
 * on top differs: the SDK client itself ("raw"), the LangChain floor (a bare StructuredTool
 * over the SDK), a tool of @langchain/mcp-adapters, and ours. Each is called bare or as a
 * ToolNode step inside a LangGraph run; `HOW` says exactly how, for the report.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpToolkit, McpToolkitConfig } from "../src/index.js";
import { floorTools } from "./floor.js";
import { lastMessage, rawNodeCaller, toolNodeCaller } from "./graph.js";
import type { Ours } from "./ours.js";
import type { Subject } from "./stats.js";

export const LAYERS = ["raw", "floor", "adapters", "ours"] as const;
export type Layer = (typeof LAYERS)[number];
export type ToolLayer = Exclude<Layer, "raw">;
export type Mode = "graph" | "bare";

export const toolCall = (name: string, args: Record<string, unknown>, i: number) => ({ type: "tool_call" as const, id: `call-${i}`, name, args });

/** How each subject is called, word for word in the report. */
export const HOW: Record<Mode, Record<Layer, string>> = {
  bare: {
    raw: "`client.callTool({ name, arguments })`",
    floor: "`floorTool.invoke(toolCall)`, no config",
    adapters: "`tool.invoke(toolCall)` on a tool from `loadMcpTools`, no config (it throws and catches inside `getCurrentTaskInput`)",
    ours: "`toolkit.getTool(name).invoke(toolCall)`, no config",
  },
  graph: {
    raw: "`graph.invoke({ messages: [aiMessage] })`; the node is a function calling `client.callTool(params, undefined, { signal })` and returning a ToolMessage (its window: the call and the message)",
    floor: "`graph.invoke({ messages: [aiMessage] })`; the node is `new ToolNode([floorTool])`",
    adapters: "`graph.invoke({ messages: [aiMessage] })`; the node is `new ToolNode([tool])`",
    ours: "`graph.invoke({ messages: [aiMessage] })`; the node is `new ToolNode([tool])`",
  },
};

/** The "how called" table of the report: one row per mode and subject. */
export function howCalled(): string[][] {
  return (["graph", "bare"] as const).flatMap((mode) => LAYERS.map((layer) => [mode === "graph" ? "inside LangGraph" : "bare", layer, HOW[mode][layer]]));
}

/** The tools of one client as the floor, the adapters and ours, plus a way to close what was opened. */
export interface Layers {
  client: Client;
  tool: (layer: ToolLayer, name: string) => StructuredToolInterface;
  toolkit: McpToolkit;
  close: () => Promise<void>;
}

export async function layersOver(ours: Ours, client: Client, config: Omit<McpToolkitConfig, "servers"> = {}): Promise<Layers> {
  const byLayer: Record<ToolLayer, StructuredToolInterface[]> = {
    floor: await floorTools(client),
    adapters: await loadMcpTools("s", client),
    ours: [],
  };
  const toolkit = await ours.McpToolkit.connect({ ...config, servers: { s: { client } } });
  byLayer.ours = toolkit.getTools();
  return {
    client,
    toolkit,
    tool: (layer, name) => {
      const found = byLayer[layer].find((t) => t.name === name);
      if (!found) throw new Error(`The bench could not find the ${layer} tool ${name}.`);
      return found;
    },
    close: () => toolkit.close(),
  };
}

/** The text a subject's call ended with: a ToolMessage's content, the raw result's text, or what was thrown. */
export function textOf(result: unknown): string {
  const message = result instanceof ToolMessage ? result : typeof result === "object" && result !== null && "messages" in result ? lastMessage(result) : undefined;
  if (message) return `${(message as ToolMessage).status === "error" ? "error: " : ""}${String(message.content)}`;
  if (typeof result === "object" && result !== null && "content" in result) {
    const r = result as { content: { text?: string }[]; isError?: boolean };
    return `${r.isError ? "error: " : ""}${r.content.map((c) => c.text ?? "").join("")}`;
  }
  return String(result);
}

/** A check that the call did what it is meant to (a silent failure must not look fast). */
export function expectText(test: (text: string) => boolean, what: string): (result: unknown) => void {
  return (result) => {
    const text = textOf(result);
    if (!test(text)) throw new Error(`Expected ${what}, got ${JSON.stringify(text.slice(0, 200))}`);
  };
}

/** One layer called in one mode, named `<mode> <layer>`. Bare raw calls that throw resolve to the error. */
export function subjectOf(layers: Layers, layer: Layer, mode: Mode, name: string, args: Record<string, unknown>, check: (result: unknown) => void): Subject {
  const label = `${mode} ${layer}`;
  if (mode === "graph") {
    const caller = layer === "raw" ? rawNodeCaller(layers.client, name, args) : toolNodeCaller(layers.tool(layer, name), args);
    return { name: label, call: caller.call, window: caller.window, check };
  }
  if (layer === "raw") return { name: label, call: () => layers.client.callTool({ name, arguments: args }).catch((e: unknown) => e), check };
  const tool = layers.tool(layer, name);
  // The adapters throw a ToolException for a failed call; the caller's catch is part of the path.
  return { name: label, call: (i) => tool.invoke(toolCall(name, args, i)).catch((e: unknown) => e), check };
}

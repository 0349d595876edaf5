/**
 * The three ways to call one MCP tool: the SDK client itself ("raw"), a tool from
 * @langchain/mcp-adapters, and ours. Each is built on the same connected client, so the
 * server and transport are identical and only the layer on top differs.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpTool, McpToolkit, McpToolkitConfig } from "../src/index.js";
import type { Ours } from "./ours.js";
import type { Subject } from "./stats.js";

export const toolCall = (name: string, args: Record<string, unknown>, i: number) => ({ type: "tool_call" as const, id: `call-${i}`, name, args });

/** The tools of one client, as the adapters and as ours, plus a way to close what was opened. */
export interface Layers {
  client: Client;
  adapters: (name: string) => StructuredToolInterface;
  ours: (name: string) => McpTool;
  close: () => Promise<void>;
}

/** Our toolkit over an already connected client, with default policies unless `config` says otherwise. */
export async function oursOver(ours: Ours, client: Client, config: Omit<McpToolkitConfig, "servers"> = {}): Promise<McpToolkit> {
  return ours.McpToolkit.connect({ ...config, servers: { s: { client } } });
}

export async function layersOver(ours: Ours, client: Client, config: Omit<McpToolkitConfig, "servers"> = {}): Promise<Layers> {
  const adapterTools = await loadMcpTools("s", client);
  const toolkit = await oursOver(ours, client, config);
  return {
    client,
    adapters: (name) => need(adapterTools.find((t) => t.name === name), `adapters tool ${name}`),
    ours: (name) => need(toolkit.getTool(name), `our tool ${name}`),
    close: () => toolkit.close(),
  };
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`The bench could not find ${what}.`);
  return value;
}

function expectText(expected: string): (result: unknown) => void {
  return (result) => {
    const text =
      result instanceof ToolMessage ? (result.status === "error" ? `error: ${String(result.content)}` : result.content) :
      typeof result === "object" && result !== null && "content" in result ? (result as { content: { text?: string }[] }).content[0]?.text :
      result;
    if (text !== expected) throw new Error(`Expected ${JSON.stringify(expected)}, got ${JSON.stringify(text)?.slice(0, 200)}`);
  };
}

/** The success-path subjects for `echo`: raw, and invoke(args) / invoke(toolCall) for both layers. */
export function echoSubjects(layers: Layers, prefix: string): Subject[] {
  const args = { text: "hello" };
  const check = expectText("hello");
  const adapters = layers.adapters("echo");
  const ours = layers.ours("echo");
  return [
    { name: `${prefix}/raw`, call: () => layers.client.callTool({ name: "echo", arguments: args }), check },
    { name: `${prefix}/adapters args`, call: () => adapters.invoke(args), check },
    { name: `${prefix}/ours args`, call: () => ours.invoke(args), check },
    { name: `${prefix}/adapters toolCall`, call: (i) => adapters.invoke(toolCall("echo", args, i)), check },
    { name: `${prefix}/ours toolCall`, call: (i) => ours.invoke(toolCall("echo", args, i)), check },
  ];
}

/**
 * Calling a subject as LangGraph users do: each call is one run of a compiled
 * `StateGraph(MessagesAnnotation)` whose one node, a `ToolNode`, answers an AIMessage
 * carrying one tool call. The tool gets the config the graph supplies (signal, scratchpad,
 * state), so nothing throws in `getCurrentTaskInput` as it does outside a graph.
 *
 * Two times per call: the whole step (`graph.invoke`), and the tool window: ToolNode's
 * `runTool` for the call, from finding the tool to the ToolMessage it returns, whether the
 * tool returned that message itself, ToolNode wrapped its output, or ToolNode caught its
 * error and wrote one (a subclass times it). The graph works on in the background while a
 * tool awaits its server, so the window also holds some of the graph's own work, the same
 * for every subject.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type Command, END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type Messages = { messages: BaseMessage[] };

/** Something graph.invoke can run with one tool call, and the window of its last call. */
export interface GraphCaller {
  call: (i: number) => Promise<unknown>;
  /** The last call's tool window, in µs. */
  window: () => number;
}

/** The graph's input: an AIMessage asking for one call of `name`. */
export function stepInput(name: string, args: Record<string, unknown>, i: number): Messages {
  return { messages: [new AIMessage({ content: "", tool_calls: [{ type: "tool_call", id: `call-${i}`, name, args }] })] };
}

/** The message the step appended: ToolNode's answer to the tool call. */
export const lastMessage = (state: unknown): BaseMessage | undefined => (state as Messages).messages.at(-1);

function oneNodeGraph(node: ToolNode | ((state: Messages, config: RunnableConfig) => Promise<Messages>)) {
  return new StateGraph(MessagesAnnotation).addNode("tools", node).addEdge(START, "tools").addEdge("tools", END).compile();
}

/** A LangChain tool in a ToolNode step. */
export function toolNodeCaller(tool: StructuredToolInterface, args: Record<string, unknown>): GraphCaller {
  let last = 0;
  class TimedToolNode extends ToolNode {
    protected override async runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<ToolMessage | Command> {
      const t0 = performance.now();
      try {
        return await super.runTool(call, config, state);
      } finally {
        last = (performance.now() - t0) * 1000;
      }
    }
  }
  const graph = oneNodeGraph(new TimedToolNode([tool]));
  return { call: (i) => graph.invoke(stepInput(tool.name, args, i)), window: () => last };
}

/** The raw SDK in a graph: a node function that calls `client.callTool` with the step's signal. */
export function rawNodeCaller(client: Client, name: string, args: Record<string, unknown>): GraphCaller {
  let last = 0;
  const graph = oneNodeGraph(async (state, config) => {
    const call = (state.messages.at(-1) as AIMessage).tool_calls![0]!;
    const t0 = performance.now();
    let message: ToolMessage;
    try {
      const result = (await client.callTool({ name, arguments: call.args }, undefined, config.signal ? { signal: config.signal } : undefined)) as CallToolResult;
      message = new ToolMessage({ content: result.content.map((c) => (c.type === "text" ? c.text : "")).join(""), tool_call_id: call.id!, name });
    } catch (error) {
      message = new ToolMessage({ status: "error", content: `Error: ${(error as Error).message}`, tool_call_id: call.id!, name });
    } finally {
      last = (performance.now() - t0) * 1000;
    }
    return { messages: [message] };
  });
  return { call: (i) => graph.invoke(stepInput(name, args, i)), window: () => last };
}

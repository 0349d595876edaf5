/**
 * What tests of the toolkit share: closing what a test opened, and calling a tool as an agent
 * does, reading back the text the model gets and the classified error, if any.
 */
import type { McpTool, McpToolError } from "../../src/index.js";

/** `later(thing)` closes `thing` after the test (through a `closeAfterEach()` list) and returns it. */
export function closesLater(cleanups: (() => Promise<void>)[]) {
  return <T extends { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => thing.close());
    return thing;
  };
}

let ids = 0;

/** Calls `tool` with a tool call, as ToolNode does; the reply's text, and its error when it failed. */
export async function replyOf(tool: McpTool | undefined, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<{ content: string; error: McpToolError | undefined }> {
  if (!tool) throw new Error("no such tool");
  const message = await tool.invoke({ id: `call_${++ids}`, name: tool.name, args, type: "tool_call" }, signal ? { signal } : {});
  return { content: String(message.content), error: message.status === "error" ? (message.artifact as McpToolError) : undefined };
}

/**
 * A call's progress is visible: every `notifications/progress` becomes a `progress` event, a
 * custom event `mcp_progress` inside the tool's run (callbacks, streamEvents), a chunk on a
 * LangGraph graph's custom stream, and an event on the attempt's span.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterEach, describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";
import { startHttpFixture } from "../servers/http.js";
import { registerSdk, type TestSdk } from "../telemetry/sdk.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);
const LONG = "trigger-long-running-operation";

describe("progress of a call", () => {
  let sdk: TestSdk | undefined;
  afterEach(async () => {
    await sdk?.shutdown();
    sdk = undefined;
  });

  it("reaches progress listeners, the tool run's callbacks and the span, from server-everything over stdio", async () => {
    sdk = registerSdk();
    const toolkit = later(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } } }));
    const events: McpEvent[] = [];
    toolkit.on("progress", (e) => events.push(e));
    const custom: { name: string; data: unknown }[] = [];
    const handler = BaseCallbackHandler.fromMethods({ handleCustomEvent: (name: string, data: unknown) => void custom.push({ name, data }) });
    const message = await toolkit.getTool(LONG)!.invoke({ type: "tool_call", id: "c1", name: LONG, args: { duration: 0.6, steps: 3 } }, { callbacks: [handler] });
    expect(String(message.content)).toContain("Long running operation completed");
    // The SDK drops a notification it reads after the call's answer: the last step may not arrive.
    const expected = [1, 2, 3].map((progress) => ({ type: "progress", toolName: LONG, serverName: "everything", progress, total: 3, toolCallId: "c1" }));
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events).toEqual(expected.slice(0, events.length));
    expect(custom.filter((c) => c.name === "mcp_progress").map((c) => (c.data as { progress: number }).progress)).toEqual(events.map((e) => (e as { progress: number }).progress));
    const attempt = sdk.spans().find((s) => s.name === `tools/call ${LONG}`);
    expect(attempt?.events.filter((e) => e.name === "langchain_mcp.progress").map((e) => e.attributes?.["langchain_mcp.progress"])).toEqual(events.map((e) => (e as { progress: number }).progress));
  });

  it("is streamed from a LangGraph run with streamMode custom, with streamProgress", async () => {
    const http = later(await startHttpFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, streamProgress: true }));
    const graph = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile();
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c9", name: "slow", args: { ms: 600, progressEveryMs: 200 } }] });
    const chunks: unknown[] = [];
    for await (const chunk of await graph.stream({ messages: [new HumanMessage("wait"), call] }, { streamMode: "custom" })) chunks.push(chunk);
    expect(chunks).toEqual([200, 400, 600].map((progress) => ({ event: "mcp_progress", toolName: "slow", serverName: "s", progress, total: 600, toolCallId: "c9" })));
  });

  it("is not streamed without streamProgress, though LangGraph hands the tool a writer", async () => {
    const http = later(await startHttpFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } } }));
    const graph = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile();
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c11", name: "slow", args: { ms: 300, progressEveryMs: 100 } }] });
    const chunks: [string, unknown][] = [];
    for await (const chunk of await graph.stream({ messages: [new HumanMessage("wait"), call] }, { streamMode: ["custom", "updates"] })) chunks.push(chunk as [string, unknown]);
    expect(chunks.filter(([mode]) => mode === "custom")).toEqual([]);
    // The call itself went as usual.
    expect(JSON.stringify(chunks.filter(([mode]) => mode === "updates"))).toContain("slept 300");
  });

  // Over stdio the notifications are read on the pipe's reader, in the context the toolkit
  // connected in, outside the graph: each chunk must still be written under the namespace of
  // the subgraph whose node called the tool.
  it("is streamed under the namespace of the subgraph that called the tool", async () => {
    const toolkit = later(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, streamProgress: true }));
    const inner = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile();
    const outer = new StateGraph(MessagesAnnotation).addNode("inner", inner).addEdge(START, "inner").addEdge("inner", END).compile();
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c10", name: LONG, args: { duration: 0.6, steps: 3 } }] });
    const chunks: [string[], unknown][] = [];
    for await (const chunk of await outer.stream({ messages: [new HumanMessage("wait"), call] }, { streamMode: "custom", subgraphs: true })) chunks.push(chunk as [string[], unknown]);
    // The SDK drops a notification it reads after the call's answer: the last step may not arrive.
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.map(([, chunk]) => (chunk as { progress: number }).progress)).toEqual([1, 2, 3].slice(0, chunks.length));
    for (const [namespace] of chunks) expect(namespace).toEqual([expect.stringMatching(/^inner:/)]);
  });
});

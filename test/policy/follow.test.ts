/**
 * Many calls follow one signal (a LangGraph step's, shared by a ToolNode's parallel tool calls;
 * a caller's, over hundreds of calls) through one listener on it, so Node never warns of a leak,
 * and the signal's abort still reaches each of them with its reason.
 */
import { getEventListeners } from "node:events";
import { AIMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { follow } from "../../src/policy/abort.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { startHttpFixture } from "../servers/http.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe("following one signal", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => void warnings.push(warning);
  beforeEach(() => {
    warnings.length = 0;
    process.on("warning", onWarning);
  });
  afterEach(() => void process.off("warning", onWarning));

  it("takes one listener for any number of followers, and none once they detach", () => {
    const caller = new AbortController();
    const detaches = Array.from({ length: 50 }, () => follow(new AbortController(), caller.signal));
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    for (const detach of detaches.slice(0, 49)) detach();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    detaches[49]!();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    // Following again after every follower left listens again.
    const again = new AbortController();
    follow(again, caller.signal);
    caller.abort(new Error("stop"));
    expect(again.signal.reason).toEqual(new Error("stop"));
  });

  it("aborts every follower still attached with the signal's reason, and no detached one", () => {
    const caller = new AbortController();
    const followers = Array.from({ length: 20 }, () => new AbortController());
    const detaches = followers.map((f) => follow(f, caller.signal));
    detaches[3]!();
    // A follower whose abort detaches another (an attempt ending its call's other waits) breaks nothing.
    followers[0]!.signal.addEventListener("abort", () => detaches[1]!());
    const reason = new Error("caller gave up");
    caller.abort(reason);
    expect(followers.filter((f) => f.signal.aborted)).toHaveLength(18);
    expect([followers[1]!.signal.aborted, followers[3]!.signal.aborted]).toEqual([false, false]);
    for (const f of followers.filter((f) => f.signal.aborted)) expect(f.signal.reason).toBe(reason);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    // A signal already aborted aborts a new follower at once.
    const late = new AbortController();
    follow(late, caller.signal);
    expect(late.signal.reason).toBe(reason);
  });

  it("lets a ToolNode run 24 tool calls in one step without Node's leak warning", async () => {
    const http = later(await startHttpFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } } }));
    const graph = new StateGraph(MessagesAnnotation).addNode("tools", new ToolNode(toolkit.getTools())).addEdge(START, "tools").addEdge("tools", END).compile();
    const calls = Array.from({ length: 24 }, (_, i) => ({ type: "tool_call" as const, id: `c${i}`, name: "slow", args: { ms: 20 } }));
    const out = await graph.invoke({ messages: [new AIMessage({ content: "", tool_calls: calls })] });
    const answers = out.messages.slice(1).map((m) => String(m.content));
    expect(answers).toEqual(calls.map(() => "slept 20"));
    // Node emits the warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  });

  it("ends 16 parallel calls to server-everything at once when their one shared signal aborts", async () => {
    const toolkit = later(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } } }));
    const tool = toolkit.getTool("trigger-long-running-operation")!;
    const caller = new AbortController();
    const calls = Array.from({ length: 16 }, (_, i) => tool.invoke({ type: "tool_call", id: `c${i}`, name: tool.name, args: { duration: 10, steps: 10 } }, { signal: caller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    caller.abort(new Error("the user stopped the run"));
    const messages = (await Promise.all(calls)) as { status?: string; artifact?: { reason?: string } }[];
    expect(messages.map((m) => [m.status, m.artifact?.reason])).toEqual(calls.map(() => ["error", "cancelled"]));
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    // The connection is still good for the next call.
    expect(String(await toolkit.getTool("echo")!.invoke({ message: "after" }))).toContain("after");
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  }, 30_000);
});

/**
 * Servers that ask for input during a tool call: an elicitation handler answers (both eras), a
 * LangGraph graph pauses on the request and resumes with a person's answer (2026-07-28, where
 * the server asks before it runs anything), and the rounds are bounded.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { inputRequired, McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { langGraphInputHandler, type McpInputInterrupt } from "../../src/agents.js";
import { McpToolkit, type InputHandler } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startV2Http, type V2HttpMode } from "../servers/v2/http.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const invoke = (toolkit: McpToolkit, name: string, args: Record<string, unknown>) => replyOf(toolkit.getTool(name), args);

const accept: InputHandler = { elicit: async () => ({ action: "accept", content: { ok: true } }) };

async function toolkitOn(mode: V2HttpMode, server: Record<string, unknown> = {}) {
  const http = later(await startV2Http({ mode }));
  const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, ...server } } }));
  return { http, toolkit };
}

describe("an elicitation handler", () => {
  it.each([
    ["2026-07-28 (an input_required round)", "modern"],
    ["the 2025 era (the server's own elicitation request)", "legacy-session"],
  ] as const)("answers a form request in %s, and the tool completes", async (_, mode) => {
    const seen: unknown[] = [];
    const handler: InputHandler = {
      elicit: async (request, context) => {
        seen.push({ message: request.message, serverName: context.serverName });
        return { action: "accept", content: { ok: true } };
      },
    };
    const { http, toolkit } = await toolkitOn(mode, { inputHandler: handler });
    expect(toolkit.protocolEra("s")).toBe(mode === "modern" ? "modern" : "legacy");
    const reply = await invoke(toolkit, "confirm", { action: "ship it" });
    expect(reply).toEqual({ content: "done: ship it", error: undefined });
    expect(seen).toEqual([{ message: "Really ship it?", serverName: "s" }]);
    expect(http.state.calls.filter((c) => c === "confirm").length).toBeGreaterThanOrEqual(1);
  });

  it("without one, the client declares no elicitation and the model reads elicitation_required (2026-07-28: the server's -32021)", async () => {
    const { http, toolkit } = await toolkitOn("modern");
    const reply = await invoke(toolkit, "confirm", { action: "ship it" });
    expect(reply.error).toMatchObject({ reason: "elicitation_required", transient: false, outcome: "not_sent" });
    expect(reply.error!.message).toContain("required: elicitation");
    expect(http.state.calls).toEqual(["confirm"]);
  });

  it("is asked at most maxInputRounds times for one call", async () => {
    const http = later(
      await startV2Http({
        mode: "modern",
        build: () => {
          const server = new McpServer({ name: "insatiable", version: "1.0.0" });
          server.registerTool("ask", { description: "Never satisfied.", inputSchema: z.object({}) }, async () =>
            inputRequired({ inputRequests: { more: inputRequired.elicit({ message: "And?", requestedSchema: { type: "object", properties: {} } }) } }),
          );
          return server;
        },
      }),
    );
    let asked = 0;
    const toolkit = later(
      await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, maxInputRounds: 2, inputHandler: { elicit: async () => (asked++, { action: "accept", content: {} }) } } } }),
    );
    const reply = await invoke(toolkit, "ask", {});
    expect(reply.error).toMatchObject({ reason: "elicitation_required", outcome: "not_sent" });
    expect(reply.error!.message).toContain("maxInputRounds: 2");
    expect(asked).toBe(2);
  });
});

describe("an accepted form without some fields (SEP-1034)", () => {
  it.each(["modern", "legacy-session"] as const)("gets the schema's defaults for them (%s)", async (mode) => {
    const http = later(
      await startV2Http({
        mode,
        build: () => {
          const server = new McpServer({ name: "defaults", version: "1.0.0" });
          server.registerTool("profile", { description: "Asks for a profile.", inputSchema: z.object({}) }, async (_args, ctx) => {
            const answer = (ctx.mcpReq.inputResponses as Record<string, { content?: unknown }> | undefined)?.profile;
            if (answer) return { content: [{ type: "text", text: JSON.stringify(answer.content) }] };
            const requestedSchema = { type: "object" as const, properties: { name: { type: "string" as const, default: "John Doe" }, age: { type: "integer" as const, default: 30 }, note: { type: "string" as const } } };
            return inputRequired({ inputRequests: { profile: inputRequired.elicit({ message: "Your profile?", requestedSchema }) } });
          });
          return server;
        },
      }),
    );
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, inputHandler: { elicit: async () => ({ action: "accept", content: { age: 41 } }) } } } }));
    const reply = await invoke(toolkit, "profile", {});
    expect(JSON.parse(reply.content)).toEqual({ name: "John Doe", age: 41 });
  });
});

describe("the call's timeout during an input round (2026-07-28)", () => {
  it("aborts the handler's signal and ends the call as request_timeout, whatever the transport's own timer covers", async () => {
    let aborted: unknown;
    // A person who never answers: the handler waits on the call's signal alone.
    const handler: InputHandler = {
      elicit: (_request, context) =>
        new Promise((_resolve, reject) => {
          context.signal?.addEventListener("abort", () => {
            aborted = context.signal?.reason;
            reject(new Error("nobody answered"));
          });
        }),
    };
    const http = later(await startV2Http({ mode: "modern" }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, inputHandler: handler } }, timeoutMs: 300, retry: { retries: 0 } }));
    const reply = await invoke(toolkit, "confirm", { action: "ship it" });
    expect(aborted, "the handler's signal aborted").toBeDefined();
    expect(reply.error).toMatchObject({ reason: "request_timeout" });
  });
});

describe("langGraphInputHandler", () => {
  it("pauses the graph on the server's question and, resumed with the answer, completes the call; the tool ran once", async () => {
    const { http, toolkit } = await toolkitOn("modern", { inputHandler: langGraphInputHandler() });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", new ToolNode(toolkit.getTools()))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: "t1" } };
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "confirm", args: { action: "refund order 7" } }] });

    const paused = await graph.invoke({ messages: [new HumanMessage("Refund it."), call] }, thread);
    const interrupts = (paused as { __interrupt__?: { value: McpInputInterrupt }[] }).__interrupt__ ?? [];
    expect(interrupts.map((i) => i.value)).toMatchObject([{ type: "mcp_input", kind: "elicitation", serverName: "s", toolName: "confirm", request: { message: "Really refund order 7?" } }]);
    // In 2026-07-28 the server asks before it acts: nothing ran yet.
    expect(http.state.calls).toEqual(["confirm"]);

    const done = await graph.invoke(new Command({ resume: { action: "accept", content: { ok: true } } }), thread);
    const reply = done.messages.filter((m) => ToolMessage.isInstance(m)).at(-1)!;
    expect(reply).toMatchObject({ status: "success", content: "done: refund order 7" });
    // The handler was entered three times: it asked before the pause, asked again when the node
    // re-ran after it, and acted once, on the request that carried the answer.
    expect(http.state.calls).toEqual(["confirm", "confirm", "confirm"]);
  });

  it("answers cancel outside a graph run (a 2025-era request arrives outside the tool call)", async () => {
    const { toolkit } = await toolkitOn("legacy-session", { inputHandler: langGraphInputHandler() });
    const reply = await invoke(toolkit, "confirm", { action: "ship it" });
    expect(reply.error).toMatchObject({ reason: "tool_error" });
    expect(reply.error!.message).toContain("declined: ship it");
  });
});

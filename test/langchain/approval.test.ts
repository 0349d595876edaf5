/**
 * Approval from annotations: `approvalFor(toolkit)` as the `interruptOn` of LangChain's
 * `humanInTheLoopMiddleware`, in a real `createAgent` with a checkpointer and a scripted model,
 * against a real MCP server over HTTP. The agent pauses before a destructive tool (the server sees
 * no call), and after the approval the tool runs, once.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createAgent, fakeModel, humanInTheLoopMiddleware, type HITLRequest } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalFor, needsApproval } from "../../src/agents.js";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();

/** A file server whose tools carry the annotations real ones do; it records every execution. */
async function fileServer() {
  const calls: string[] = [];
  const http = await startHttpFixture({
    build: () => {
      const server = new McpServer({ name: "files", version: "1.0.0" });
      server.registerTool("read_file", { description: "Reads a file.", inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } }, async ({ path }) => {
        calls.push(`read_file ${path}`);
        return { content: [{ type: "text", text: `contents of ${path}` }] };
      });
      server.registerTool("delete_file", { description: "Deletes a file.", inputSchema: { path: z.string() }, annotations: { readOnlyHint: false, destructiveHint: true } }, async ({ path }) => {
        calls.push(`delete_file ${path}`);
        return { content: [{ type: "text", text: `deleted ${path}` }] };
      });
      server.registerTool("append_line", { description: "Appends a line.", inputSchema: { line: z.string() }, annotations: { readOnlyHint: false, destructiveHint: false } }, async ({ line }) => {
        calls.push(`append_line ${line}`);
        return { content: [{ type: "text", text: "appended" }] };
      });
      server.registerTool("touch", { description: "No annotations at all.", inputSchema: { path: z.string() } }, async ({ path }) => {
        calls.push(`touch ${path}`);
        return { content: [{ type: "text", text: "touched" }] };
      });
      return server;
    },
  });
  cleanups.push(() => http.close());
  return { http, calls };
}

async function toolkitFor(url: string, trustAnnotations: boolean) {
  const toolkit = await McpToolkit.connect({ servers: { files: { transport: "http", url, trustAnnotations } } });
  cleanups.push(() => toolkit.close());
  return toolkit;
}

/** An agent whose model calls one tool, then answers with what the tool said. */
function agentCalling(toolkit: McpToolkit, call: { name: string; args: Record<string, unknown> }) {
  const model = fakeModel()
    .respondWithTools([{ ...call, id: "tc-1" }])
    .respond((messages: BaseMessage[]) => new AIMessage(`Tool said: ${String(messages.filter((m) => ToolMessage.isInstance(m)).at(-1)?.content)}`));
  return createAgent({
    model,
    tools: toolkit.getTools(),
    middleware: [humanInTheLoopMiddleware({ interruptOn: approvalFor(toolkit) })],
    checkpointer: new MemorySaver(),
  });
}

const ask = { messages: [{ role: "user", content: "go" }] };

describe("approvalFor", () => {
  it("asks for a trusted server's destructive tools (explicit, or by the spec's defaults) and lets read-only and non-destructive ones run", async () => {
    const { http } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, true);
    expect(approvalFor(toolkit)).toEqual({ read_file: false, delete_file: true, append_line: false, touch: true });
  });

  it("asks for every tool of a server whose annotations are not trusted", async () => {
    const { http } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, false);
    expect(approvalFor(toolkit)).toEqual({ read_file: true, delete_file: true, append_line: true, touch: true });
  });

  it("takes a rule, decisions and a description of one's own", async () => {
    const { http } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, true);
    const map = approvalFor(toolkit, { requires: (t) => t.mcpName.startsWith("read"), allowedDecisions: ["approve", "reject"], description: "Check it" });
    expect(map).toEqual({ read_file: { allowedDecisions: ["approve", "reject"], description: "Check it" }, delete_file: false, append_line: false, touch: false });
  });

  it("reads a destructiveHint: true beside a contradicting readOnlyHint as destructive", () => {
    expect(needsApproval({ trusted: true, annotations: { readOnlyHint: true, destructiveHint: true } })).toBe(true);
    expect(needsApproval({ trusted: true, annotations: { readOnlyHint: true } })).toBe(false);
    expect(needsApproval({ trusted: true })).toBe(true);
  });
});

describe("an agent with humanInTheLoopMiddleware({ interruptOn: approvalFor(toolkit) })", () => {
  it("pauses before a destructive tool (the server sees no call), and after approval the tool runs once", async () => {
    const { http, calls } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, true);
    const agent = agentCalling(toolkit, { name: "delete_file", args: { path: "/tmp/report.txt" } });
    const config = { configurable: { thread_id: "approve-1" } };

    const paused = await agent.invoke(ask, config);
    const interrupts = paused.__interrupt__ ?? [];
    expect(interrupts).toHaveLength(1);
    const request = interrupts[0]!.value as HITLRequest;
    expect(request.actionRequests).toMatchObject([{ name: "delete_file", args: { path: "/tmp/report.txt" } }]);
    expect(request.reviewConfigs).toMatchObject([{ actionName: "delete_file", allowedDecisions: ["approve", "edit", "reject"] }]);
    expect(calls).toEqual([]);

    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(calls).toEqual(["delete_file /tmp/report.txt"]);
    expect(String(done.messages.at(-1)!.content)).toBe("Tool said: deleted /tmp/report.txt");
    expect(done.__interrupt__ ?? []).toEqual([]);
  });

  it("never runs the tool when the person rejects it; the model reads why", async () => {
    const { http, calls } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, true);
    const agent = agentCalling(toolkit, { name: "delete_file", args: { path: "/etc/passwd" } });
    const config = { configurable: { thread_id: "reject-1" } };
    await agent.invoke(ask, config);
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "Not that file." }] } }), config);
    expect(calls).toEqual([]);
    expect(String(done.messages.at(-1)!.content)).toBe("Tool said: Not that file.");
  });

  it("runs a trusted read-only tool without pausing", async () => {
    const { http, calls } = await fileServer();
    const toolkit = await toolkitFor(http.url.href, true);
    const agent = agentCalling(toolkit, { name: "read_file", args: { path: "/tmp/a" } });
    const done = await agent.invoke(ask, { configurable: { thread_id: "read-1" } });
    expect(done.__interrupt__ ?? []).toEqual([]);
    expect(calls).toEqual(["read_file /tmp/a"]);
  });
});

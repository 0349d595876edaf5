/**
 * A tool object keeps its identity: the one the agent holds stays valid across relists, and a
 * tool the server drops and lists again works through that same object. A fastmcp server (which
 * announces no `listChanged` and answers an unknown tool with -32601 "Unknown tool: x") is the
 * real case: its -32601 means tool_not_found and makes the toolkit list again, once.
 */
import { createServer } from "node:net";
import { FastMCP } from "fastmcp";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const quiet = { debug() {}, error() {}, info() {}, log() {}, warn() {} };
const beta = { name: "beta", description: "Answers beta.", parameters: z.object({}), execute: async () => "beta here" };

async function startFastmcp(stateless: boolean): Promise<{ server: FastMCP; url: string }> {
  const server = new FastMCP({ name: "identity", version: "1.0.0", logger: quiet });
  server.addTool({ name: "alpha", description: "Answers alpha.", parameters: z.object({}), execute: async () => "alpha here" });
  server.addTool(beta);
  const port = await freePort();
  await server.start({ transportType: "httpStream", httpStream: { port, host: "127.0.0.1", endpoint: "/mcp", ...(stateless ? { stateless: true } : {}) } });
  cleanups.push(() => server.stop());
  return { server, url: `http://127.0.0.1:${port}/mcp` };
}

describe.each([
  ["stateless", true],
  ["stateful", false],
] as const)("a fastmcp server (%s) that drops a tool and lists it again", (_, stateless) => {
  it("reads its -32601 'Unknown tool' as tool_not_found, lists once, and the held tool object works again once the tool is back", async () => {
    const { server, url } = await startFastmcp(stateless);
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { f: { transport: "http", url } }, onEvent: (e) => events.push(e) }));
    const held = toolkit.getTool("beta")!;
    expect((await replyOf(held, {})).content).toBe("beta here");

    server.removeTool("beta");
    const gone = await replyOf(held, {});
    expect(gone.error).toMatchObject({ reason: "tool_not_found", transient: false });
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["alpha"]);
    expect(events.filter((e) => e.type === "tools_changed")).toMatchObject([{ removed: ["beta"] }]);

    server.addTool(beta);
    // No listChanged from fastmcp: the call of the held object lists once more and finds it back.
    const back = await replyOf(held, {});
    expect(back).toEqual({ content: "beta here", error: undefined });
    expect(toolkit.getTool("beta")).toBe(held);
    expect(toolkit.getTools()).toContain(held);
  });
});

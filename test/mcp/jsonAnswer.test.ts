/**
 * A JSON answer (a server with JSON responses instead of event streams) is the whole answer to
 * its POST: one that carries another request's id answers nothing, and the call must not wait
 * out its timeout for an answer that cannot come. The server is a raw HTTP endpoint that speaks
 * the 2025 wire by hand, as a buggy server or a proxy mixing up responses would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { replyOf } from "../servers/replies.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();

interface Message {
  jsonrpc: "2.0";
  id?: number | string;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown>; protocolVersion?: string };
}

/** Answers every request with JSON; `tools/call` of `mixup` answers with an id the client never sent. */
async function jsonServer(): Promise<{ url: string; calls: string[]; close: () => Promise<void> }> {
  const calls: string[] = [];
  const answer = (message: Message): unknown => {
    const reply = (result: unknown) => ({ jsonrpc: "2.0", id: message.id, result });
    switch (message.method) {
      case "initialize":
        return reply({ protocolVersion: message.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "json-only", version: "1.0.0" } });
      case "tools/list":
        return reply({ tools: ["echo", "mixup"].map((name) => ({ name, inputSchema: { type: "object", properties: { text: { type: "string" } } } })) });
      case "tools/call": {
        const name = String(message.params?.name);
        calls.push(name);
        const text = String(message.params?.arguments?.text ?? "");
        if (name === "mixup") return { jsonrpc: "2.0", id: Number(message.id) + 1000, result: { content: [{ type: "text", text: "for another request" }] } };
        return reply({ content: [{ type: "text", text }] });
      }
      default:
        return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } };
    }
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message;
    if (message.id === undefined) return void res.writeHead(202).end();
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" }).end(JSON.stringify(answer(message)));
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("a JSON answer that answers no request of its POST", () => {
  it("fails the call at once (the answer is lost, the tool may have run), not at its timeout, and the connection serves the next call", async () => {
    const server = await jsonServer();
    cleanups.push(server.close);
    const toolkit = await McpToolkit.connect({ servers: { json: { transport: "http", url: server.url, era: "legacy" } }, timeoutMs: 60_000, retry: { retries: 0 } });
    cleanups.push(() => toolkit.close());
    const clock = stopwatch();
    const reply = await replyOf(toolkit.getTool("mixup"), { text: "x" });
    const elapsed = clock.elapsed();
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown" });
    expect(reply.error!.message).toContain("carried id");
    // Far from the 60 s timeout: the call did not wait for an answer that could not come.
    clock.within(30_000, "a JSON answer to no request of its POST (timeout 60 s)", elapsed, 20_000);
    expect(server.calls).toEqual(["mixup"]);
    expect((await replyOf(toolkit.getTool("echo"), { text: "still here" })).content).toBe("still here");
  });
});

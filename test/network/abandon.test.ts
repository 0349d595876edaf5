/**
 * A call that gives up over streamable HTTP closes the response stream it was waiting on, even
 * when the server ignores the cancel: a server never answers a cancelled request, so the stream
 * (and its socket) would otherwise stay open until the session ends.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it, vi } from "vitest";
import { server, toolkitFor } from "./helpers.js";

/** A server whose `stall` tool waits for `release`, deaf to cancellation. */
function stallingServer(gate: Promise<void>): McpServer {
  const mcp = new McpServer({ name: "stall", version: "1.0.0" });
  mcp.registerTool("stall", { description: "Waits for the test, whatever the client says.", annotations: { readOnlyHint: true } }, async () => {
    await gate;
    return { content: [{ type: "text", text: "done" }] };
  });
  return mcp;
}

describe("a call that gives up over streamable HTTP", () => {
  it.each([
    ["its own timeout", {}],
    ["a total cap (the leased path)", { maxTotalTimeoutMs: 5_000 }],
  ])("closes the answer stream the server would keep open (%s)", async (_label, extra) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const http = await server({ build: () => stallingServer(gate) });
    // Every POST whose response is still open on the server's side.
    let openPosts = 0;
    (http as unknown as { http: HttpServer }).http.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== "POST") return;
      openPosts++;
      res.once("close", () => openPosts--);
    });
    try {
      const { call } = await toolkitFor(http.url, {}, { retry: { retries: 0 }, tools: { stall: { timeoutMs: 300, ...extra } } });
      const reply = await call("stall", {});
      expect(reply.error).toMatchObject({ reason: "request_timeout" });
      // The cancel travels on a POST of its own and ends; the stalled call's stream is closed by us.
      await vi.waitFor(() => expect(openPosts).toBe(0), { timeout: 3_000 });
    } finally {
      release();
    }
  });
});

/**
 * A v2 SDK server (`@modelcontextprotocol/server`) over streamable HTTP in a process of its own.
 * Env: RESTART_PORT, RESTART_MODE (`modern`: `createMcpHandler`, a fresh instance per request,
 * 2026-07-28 and stateless 2025; `legacy-session`: a sessionful 2025 endpoint on the Node
 * transport), RESTART_LEDGER. On SIGTERM it stops gracefully. Tools as in toolsV1.ts.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { recordExecution } from "../ledger.js";

const port = Number(process.env.RESTART_PORT);
const mode = process.env.RESTART_MODE ?? "modern";
const ledger = process.env.RESTART_LEDGER;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function build(): McpServer {
  const server = new McpServer({ name: "restart-v2", version: "2.0.0" });
  const args = z.object({ id: z.string(), ms: z.number() });
  server.registerTool("read", { description: "Reads (waits ms, then answers).", inputSchema: args, annotations: { readOnlyHint: true, idempotentHint: true } }, async ({ id, ms }) => {
    await sleep(ms);
    return { content: [{ type: "text", text: `read ${id}` }] };
  });
  server.registerTool("write", { description: "Writes once per id (not idempotent).", inputSchema: args, annotations: { readOnlyHint: false, idempotentHint: false } }, async ({ id, ms }) => {
    recordExecution(ledger, id);
    await sleep(ms);
    return { content: [{ type: "text", text: `wrote ${id}` }] };
  });
  return server;
}

const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
let closeHandler: () => Promise<void> = async () => {};

function sessionful(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (typeof id === "string") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport) });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await build().connect(transport);
    await transport.handleRequest(req, res);
  };
}

function perRequest(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const handler = createMcpHandler(() => build(), { legacy: "stateless" });
  closeHandler = () => handler.close();
  const node = toNodeHandler(handler);
  return async (req, res) => node(req, res);
}

const serve = mode === "legacy-session" ? sessionful() : perRequest();
const http = createServer((req, res) => {
  serve(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  });
});
http.listen(port, "127.0.0.1");

process.on("SIGTERM", () => {
  http.close();
  void Promise.allSettled([closeHandler(), ...[...sessions.values()].map((t) => t.close())]).then(() => {
    http.closeAllConnections();
    process.exit(0);
  });
});

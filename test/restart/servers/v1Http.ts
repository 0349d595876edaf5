/**
 * A v1 SDK server over streamable HTTP, as its README shows it, in a process of its own so the
 * restart suite can kill -9 it. Env: RESTART_PORT, RESTART_MODE (`sessionful`: a transport per
 * session, 404 for an unknown one; `stateless`: a server and transport per request),
 * RESTART_LEDGER. On SIGTERM it stops gracefully: closes every session, then the listener.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { buildRestartServerV1 } from "./toolsV1.js";

const port = Number(process.env.RESTART_PORT);
const stateless = process.env.RESTART_MODE === "stateless";
const ledger = process.env.RESTART_LEDGER;
const sessions = new Map<string, StreamableHTTPServerTransport>();

async function sessionful(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = req.headers["mcp-session-id"];
  if (typeof id === "string") {
    const known = sessions.get(id);
    if (known) return known.handleRequest(req, res);
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport) });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await buildRestartServerV1(ledger).connect(transport);
  await transport.handleRequest(req, res);
}

async function perRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const server = buildRestartServerV1(ledger);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
  (stateless ? perRequest : sessionful)(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  });
});
http.listen(port, "127.0.0.1");

process.on("SIGTERM", () => {
  http.close();
  void Promise.allSettled([...sessions.values()].map((t) => t.close())).then(() => {
    http.closeAllConnections();
    process.exit(0);
  });
});

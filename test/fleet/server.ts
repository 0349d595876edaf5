/**
 * The upstream of the fleet tests and `npm run fleet`: a real MCP server (the SDK's McpServer
 * behind a stateless StreamableHTTPServerTransport) on 127.0.0.1 that can go down (every POST
 * answered 503), rate-limit (429 with Retry-After) and come back, counting what it served.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export type UpstreamMode = "up" | "down" | "limited";

export class FleetUpstream {
  mode: UpstreamMode = "up";
  /** Retry-After sent with each 429, in seconds. */
  retryAfterSeconds = 1;
  /** Recovery pings (MCP `ping`) answered 503 while down. */
  deadPings = 0;
  /** POSTs answered 503 while down, pings aside: attempts that reached a dead server. */
  deadAttempts = 0;
  /** 429s served while rate-limiting. */
  served429 = 0;
  /** Tool calls answered while up. */
  served = 0;
  private http: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async start(): Promise<this> {
    const http = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    http.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    // Node closes a keep-alive socket idle for 5 s. On a loaded machine a worker's event loop
    // can stall that long between two requests of its connect, and its next request then meets
    // the socket the server is closing: the connect fails with connection_reset and the whole
    // run with it (the keep-alive race, tested on its own in test/chaos). The fleet measures the
    // shared breaker, so its upstream keeps idle sockets for the length of a run.
    http.keepAliveTimeout = 10 * 60_000;
    this.http = http;
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(0, "127.0.0.1", () => resolve());
    });
    const address = http.address();
    if (address && typeof address === "object") this.port = address.port;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = undefined;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const body = await readJson(req);
    const isCall = (body as { method?: unknown } | undefined)?.method === "tools/call";
    if (this.mode === "down") {
      // A breaker's recovery ping runs no tool: counted apart from the attempts.
      if ((body as { method?: unknown } | undefined)?.method === "ping") this.deadPings++;
      else this.deadAttempts++;
      res.writeHead(503, { "content-type": "text/plain" }).end("upstream down");
      return;
    }
    if (this.mode === "limited" && isCall) {
      this.served429++;
      res.writeHead(429, { "content-type": "text/plain", "retry-after": String(this.retryAfterSeconds) }).end("slow down");
      return;
    }
    if (isCall) this.served++;
    // Stateless: a server and a transport per request, so no session outlives a restart.
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

function buildServer(): McpServer {
  const server = new McpServer({ name: "fleet-upstream", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, ({ text }) =>
    // "fail" answers as a tool's own failure does: a result the fleet must leave alone.
    text === "fail" ? { content: [{ type: "text", text: "refused: fail" }], isError: true } : { content: [{ type: "text", text }] },
  );
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

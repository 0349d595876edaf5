/**
 * The bench server over streamable HTTP on 127.0.0.1: one McpServer per session, and a
 * restart that forgets every session and closes every socket before listening again on the
 * same port, as a redeployed server does.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { stopSessionsAndServer } from "../../test/servers/stopHttp.js";
import { buildBenchServer } from "./tools.js";

export class BenchHttpServer {
  /** `build` makes each session's server (the bench server by default). */
  constructor(private readonly build: () => McpServer | Server = () => buildBenchServer("bench-http")) {}

  private http: HttpServer | undefined;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  port = 0;

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  async listen(port = this.port): Promise<void> {
    const http = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    this.http = http;
    await new Promise<void>((resolve, reject) => http.once("error", reject).listen(port, "127.0.0.1", resolve));
    this.port = (http.address() as AddressInfo).port;
  }

  /** Closes every session and every connection, then the listener. */
  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    await stopSessionsAndServer(this.sessions, http);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = this.sessions.get(sessionId);
      if (transport) return transport.handleRequest(req, res);
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await this.build().connect(transport);
    await transport.handleRequest(req, res);
  }
}

/**
 * The v2 fixture over HTTP on 127.0.0.1, in the three ways v2 servers are deployed:
 * - `modern`: `createMcpHandler`, a fresh instance per request, serving 2026-07-28 clients
 *   and 2025-era ones statelessly (the SDK's default posture);
 * - `modern-only`: the same with `legacy: 'reject'`, answering a 2025 `initialize` with
 *   HTTP 400 and -32022;
 * - `legacy-session`: a sessionful 2025 endpoint on the v2 package's Node transport.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, type McpServer, type Server } from "@modelcontextprotocol/server";
import { buildV2Server, newV2State, type V2State } from "./fixture.js";

export type V2HttpMode = "modern" | "modern-only" | "legacy-session";

export interface V2HttpOptions {
  mode?: V2HttpMode;
  /** Builds the server instance; defaults to the v2 fixture. */
  build?: (state: V2State) => McpServer | Server;
}

export class V2HttpFixture {
  readonly state: V2State = newV2State();
  /** POSTs received. */
  posts = 0;
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  private closeHandler?: () => Promise<void>;
  private failures: { status: number; count: number }[] = [];
  port = 0;

  constructor(private readonly options: V2HttpOptions = {}) {}

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Answers the next `count` POSTs with `status`. */
  failNext(status: number, count = 1): void {
    this.failures.push({ status, count });
  }

  async start(): Promise<this> {
    const mode = this.options.mode ?? "modern";
    const build = () => (this.options.build ?? buildV2Server)(this.state);
    const serve = mode === "legacy-session" ? this.sessionful(build) : this.perRequest(build, mode === "modern-only" ? "reject" : "stateless");
    this.http = createServer((req, res) => {
      if (req.method === "POST") this.posts++;
      const failure = req.method === "POST" ? this.failures[0] : undefined;
      if (failure) {
        if (--failure.count <= 0) this.failures.shift();
        res.writeHead(failure.status, { "content-type": "text/plain" }).end(`planned failure ${failure.status}`);
        return;
      }
      void serve(req, res);
    });
    this.http.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.http!.listen(0, "127.0.0.1", resolve));
    this.port = (this.http.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    await this.closeHandler?.();
    for (const transport of this.sessions.values()) await transport.close().catch(() => undefined);
    this.sessions.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
  }

  private perRequest(build: () => McpServer | Server, legacy: "stateless" | "reject"): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    const handler = createMcpHandler(() => build() as McpServer, { legacy });
    this.closeHandler = () => handler.close();
    const node = toNodeHandler(handler);
    return async (req, res) => node(req, res);
  }

  private sessionful(build: () => McpServer | Server): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return async (req, res) => {
      const id = req.headers["mcp-session-id"];
      const known = typeof id === "string" ? this.sessions.get(id) : undefined;
      if (known) return known.handleRequest(req, res);
      if (typeof id === "string") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void this.sessions.set(sessionId, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) this.sessions.delete(transport.sessionId);
      };
      await build().connect(transport);
      await transport.handleRequest(req, res);
    };
  }
}

export async function startV2Http(options: V2HttpOptions = {}): Promise<V2HttpFixture> {
  return new V2HttpFixture(options).start();
}

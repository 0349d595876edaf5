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
import { createMcpHandler, type McpServer, type PerRequestResponseMode, type Server } from "@modelcontextprotocol/server";
import { buildV2Server, newV2State, type V2State } from "./fixture.js";
import { listenTracking } from "../stopHttp.js";

export type V2HttpMode = "modern" | "modern-only" | "legacy-session";

export interface V2HttpOptions {
  mode?: V2HttpMode;
  /** Builds the server instance; defaults to the v2 fixture. */
  build?: (state: V2State) => McpServer | Server;
  /** How the per-request modes answer a 2026-07-28 request: `auto` is JSON unless the handler streams. @default "auto" */
  responseMode?: PerRequestResponseMode;
}

/** What a planned failure answers besides its status. */
export interface PlannedResponse {
  headers?: Record<string, string>;
  body?: string;
  contentType?: string;
}

interface PlannedFailure extends PlannedResponse {
  status: number;
  count: number;
}

export class V2HttpFixture {
  readonly state: V2State = newV2State();
  /** POSTs received. */
  posts = 0;
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  private closeHandler?: () => Promise<void>;
  private serve?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  private failures: PlannedFailure[] = [];
  port = 0;

  constructor(private readonly options: V2HttpOptions = {}) {}

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Answers the next `count` POSTs with `status` (and the headers and body given). */
  failNext(status: number, count = 1, response: PlannedResponse = {}): void {
    this.failures.push({ status, count, ...response });
  }

  async start(): Promise<this> {
    const mode = this.options.mode ?? "modern";
    const build = () => (this.options.build ?? buildV2Server)(this.state);
    this.serve = mode === "legacy-session" ? this.sessionful(build) : this.perRequest(build, mode === "modern-only" ? "reject" : "stateless");
    await this.listen(0);
    return this;
  }

  /** Forgets every session while staying up, as a server behind a load balancer does after a redeploy. */
  async forgetSessions(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((t) => t.close()));
  }

  /** Stops and starts again on the same port, with no sessions and no open sockets, as a redeployed server does. */
  async restart(): Promise<void> {
    await this.stop();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.closeHandler?.();
    await this.stop();
  }

  private async stop(): Promise<void> {
    await this.forgetSessions();
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = undefined;
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  }

  private async listen(port: number): Promise<void> {
    const http = createServer((req, res) => {
      if (req.method === "POST") this.posts++;
      const failure = req.method === "POST" ? this.failures[0] : undefined;
      if (failure) {
        if (--failure.count <= 0) this.failures.shift();
        res.writeHead(failure.status, { "content-type": failure.contentType ?? "text/plain", ...failure.headers }).end(failure.body ?? `planned failure ${failure.status}`);
        return;
      }
      void this.serve!(req, res);
    });
    this.http = http;
    this.port = await listenTracking(http, port, this.sockets);
  }

  private perRequest(build: () => McpServer | Server, legacy: "stateless" | "reject"): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    const handler = createMcpHandler(() => build() as McpServer, { legacy, ...(this.options.responseMode ? { responseMode: this.options.responseMode } : {}) });
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

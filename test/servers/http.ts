/**
 * A real streamable-HTTP (or legacy SSE) MCP server on 127.0.0.1, with switches for the
 * faults HTTP servers produce: a status for the next POSTs, a dropped socket, a restart
 * that forgets every session, bearer auth.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { buildFixtureServer, newState, type FixtureState } from "./fixture.js";

interface PlannedFailure {
  status: number;
  count: number;
  retryAfter?: string;
  body?: string;
}

export interface HttpFixtureOptions {
  /** Builds one MCP server per session. Defaults to the fixture server. */
  build?: (state: FixtureState, drop: () => void) => McpServer | Server;
  /** `sse` serves only the legacy SSE transport (GET /sse, POST /messages). @default "streamable" */
  mode?: "streamable" | "sse";
  /** Requests must carry `Authorization: Bearer <token>`. */
  bearer?: string;
  /** How an unknown session id is answered: the spec's 404, or the 400 some servers send. @default 404 */
  unknownSession?: 404 | 400;
  port?: number;
  /** Keeps each session's events so a client can resume a broken stream (`Last-Event-ID`); the server then primes every stream with an event id. */
  resumable?: boolean;
  /** The `retry` (ms) the server sets on its streams: how long a client waits before it resumes one. */
  retryIntervalMs?: number;
  /** How long the answer to the n-th request (from 0) on an unknown session is held back: a slow path for an old session's 404s. */
  unknownSessionDelayMs?: (n: number) => number;
}

export class HttpFixture {
  readonly state: FixtureState = newState();
  /** POSTs received, including failed ones. */
  posts = 0;
  /** Headers of every request, for checking what the client sent. */
  readonly seenHeaders: IncomingMessage["headers"][] = [];
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly inFlight = new Set<Socket>();
  private readonly sessions = new Map<string, StreamableHTTPServerTransport | SSEServerTransport>();
  private readonly planned: PlannedFailure[] = [];
  private dropNextPost = false;
  private unknownSessionRequests = 0;
  port = 0;

  constructor(private readonly options: HttpFixtureOptions = {}) {}

  get url(): URL {
    return new URL(this.options.mode === "sse" ? `http://127.0.0.1:${this.port}/sse` : `http://127.0.0.1:${this.port}/mcp`);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Answers the next `count` POSTs with `status` (and a Retry-After header if given). */
  failNext(status: number, options: { count?: number; retryAfter?: string; body?: string } = {}): void {
    this.planned.push({ status, count: options.count ?? 1, ...options });
  }

  /** Destroys the socket of the next POST before answering it. */
  dropNext(): void {
    this.dropNextPost = true;
  }

  /** Destroys the sockets of every POST in flight (a connection lost mid-call). */
  dropInFlight(): void {
    for (const s of this.inFlight) s.destroy();
  }

  async start(): Promise<this> {
    await this.listen(this.options.port ?? 0);
    return this;
  }

  /** Forgets every session while staying up, as a server behind a load balancer does after a redeploy. */
  async forgetSessions(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((t) => t.close()));
  }

  /** Stops and starts again on the same port with no sessions, as a redeployed server does. */
  async restart(): Promise<void> {
    await this.stop();
    await this.listen(this.port);
  }

  /** Stops, as a crashed server does: connections refused until {@link up}. */
  async down(): Promise<void> {
    await this.stop();
  }

  /** Listens again on the same port, with no sessions: the restarted server. */
  async up(): Promise<void> {
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private listen(port: number): Promise<void> {
    const http = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    http.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    this.http = http;
    return new Promise((resolve, reject) => {
      http.once("error", reject);
      http.listen(port, "127.0.0.1", () => {
        const address = http.address();
        if (address && typeof address === "object") this.port = address.port;
        resolve();
      });
    });
  }

  private async stop(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((t) => t.close()));
    for (const s of this.sockets) s.destroy();
    const http = this.http;
    this.http = undefined;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.seenHeaders.push(req.headers);
    if (this.options.bearer && req.headers.authorization !== `Bearer ${this.options.bearer}`) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' });
      res.end(JSON.stringify({ error: "invalid_token", error_description: "Missing or invalid bearer token" }));
      return;
    }
    if (req.method === "POST") {
      this.posts++;
      if (this.dropNextPost) {
        this.dropNextPost = false;
        req.socket.destroy();
        return;
      }
      const plan = this.planned[0];
      if (plan) {
        if (--plan.count <= 0) this.planned.shift();
        const headers: Record<string, string> = { "content-type": "text/plain" };
        if (plan.retryAfter) headers["retry-after"] = plan.retryAfter;
        res.writeHead(plan.status, headers).end(plan.body ?? `planned failure ${plan.status}`);
        return;
      }
    }
    if (this.options.mode === "sse") return this.handleSse(req, res);
    return this.handleStreamable(req, res);
  }

  private async handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = this.sessions.get(sessionId);
      if (!transport) {
        const delay = this.options.unknownSessionDelayMs?.(this.unknownSessionRequests++) ?? 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        const status = this.options.unknownSession ?? 404;
        const message = status === 404 ? "Session not found" : "Bad Request: No valid session ID provided";
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: status === 404 ? -32001 : -32000, message }, id: null }));
        return;
      }
      await this.track(req, () => (transport as StreamableHTTPServerTransport).handleRequest(req, res));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(this.options.resumable ? { eventStore: new InMemoryEventStore() } : {}),
      ...(this.options.retryIntervalMs !== undefined ? { retryInterval: this.options.retryIntervalMs } : {}),
      onsessioninitialized: (id) => {
        this.sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    const server = this.build();
    await server.connect(transport);
    await this.track(req, () => transport.handleRequest(req, res));
  }

  private async handleSse(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      this.sessions.set(transport.sessionId, transport);
      transport.onclose = () => this.sessions.delete(transport.sessionId);
      await this.build().connect(transport);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const transport = this.sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!(transport instanceof SSEServerTransport)) {
        res.writeHead(404).end("Session not found");
        return;
      }
      await this.track(req, () => transport.handlePostMessage(req, res));
      return;
    }
    // A streamable-HTTP client probing an SSE-only server gets what old servers answer.
    res.writeHead(405).end("Method Not Allowed");
  }

  private async track(req: IncomingMessage, run: () => Promise<void>): Promise<void> {
    const socket = req.socket;
    if (req.method === "POST") this.inFlight.add(socket);
    try {
      await run();
    } finally {
      this.inFlight.delete(socket);
    }
  }

  private build(): McpServer | Server {
    const drop = () => this.dropInFlight();
    return this.options.build?.(this.state, drop) ?? buildFixtureServer(this.state, { onDrop: drop });
  }
}

export async function startHttpFixture(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  return new HttpFixture(options).start();
}

/**
 * A real streamable-HTTP MCP server on 127.0.0.1 that admits at most `perSecond` tool calls in
 * any sliding second, as an API gateway's rate limit does: a `tools/call` past it is answered
 * 429 with `Retry-After` (whole seconds, as HTTP has it) before it reaches the MCP server.
 * `initialize`, notifications and `tools/list` are not limited, so a client always connects.
 * It counts what it admitted and what it refused, for the throttle's test and bench.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { stopSessionsAndServer } from "./stopHttp.js";
import { z } from "zod";

export interface LimitedServerOptions {
  /** Tool calls admitted in any sliding 1000 ms. @default 50 */
  perSecond?: number;
  /** How long the `search` tool takes to answer, ms. @default 2 */
  latencyMs?: number;
}

export class LimitedHttpServer {
  /** Tool calls that reached the tool. */
  admitted = 0;
  /** Tool calls answered 429. */
  rejected = 0;
  private readonly perSecond: number;
  private readonly latencyMs: number;
  /** When each of the last `perSecond` admitted calls arrived, oldest first (a ring). */
  private readonly window: number[] = [];
  private http: HttpServer | undefined;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  port = 0;

  constructor(options: LimitedServerOptions = {}) {
    this.perSecond = options.perSecond ?? 50;
    this.latencyMs = options.latencyMs ?? 2;
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  /** Forgets the counts (not the window): a fresh measurement on the same server. */
  resetCounts(): void {
    this.admitted = 0;
    this.rejected = 0;
  }

  async start(): Promise<this> {
    const http = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    this.http = http;
    await new Promise<void>((resolve, reject) => http.once("error", reject).listen(0, "127.0.0.1", resolve));
    this.port = (http.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    await stopSessionsAndServer(this.sessions, http);
  }

  /** Admits a call now, or returns the whole seconds until one would be admitted. */
  private admit(now: number): number | undefined {
    const window = this.window;
    while (window.length > 0 && now - window[0]! >= 1000) window.shift();
    if (window.length < this.perSecond) {
      window.push(now);
      return undefined;
    }
    return Math.max(1, Math.ceil((window[0]! + 1000 - now) / 1000));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if ((body as { method?: unknown }).method === "tools/call") {
        const wait = this.admit(performance.now());
        if (wait !== undefined) {
          this.rejected++;
          res.writeHead(429, { "content-type": "text/plain", "retry-after": String(wait) }).end("Too Many Requests");
          return;
        }
        this.admitted++;
      }
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = this.sessions.get(sessionId);
      if (transport) return transport.handleRequest(req, res, body);
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
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
    await transport.handleRequest(req, res, body);
  }

  private build(): McpServer {
    const server = new McpServer({ name: "limited", version: "1.0.0" });
    const latencyMs = this.latencyMs;
    // Two tools alike, so that a test can give one of them another policy (a shorter timeout).
    for (const name of ["search", "lookup"]) {
      server.registerTool(
        name,
        { description: "Searches; the server admits a limited number of calls a second.", inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } },
        async ({ q }) => {
          if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
          return { content: [{ type: "text" as const, text: `found ${q}` }] };
        },
      );
    }
    return server;
  }
}

export function startLimitedServer(options: LimitedServerOptions = {}): Promise<LimitedHttpServer> {
  return new LimitedHttpServer(options).start();
}

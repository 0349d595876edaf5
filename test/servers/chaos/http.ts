/**
 * The chaos server over streamable HTTP on 127.0.0.1. A front reads each POST first: it counts
 * the request key's attempt, answers 429/503 itself when the plan says so, refuses bodies over
 * `maxBodyBytes` with 413, and can destroy a request's socket mid-response.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Ledger } from "./ledger.js";
import { DEFAULT_MIX, faultFor, firesOn } from "./plan.js";
import { buildChaosServer, serveChaos, type ChaosServerOptions } from "./server.js";

export interface ChaosHttpOptions extends Omit<ChaosServerOptions, "transport" | "ledger" | "frontCountsArrivals" | "hooks" | "shutdown"> {
  ledger?: Ledger;
  /** Answer POSTs with one JSON body instead of an event stream. @default false */
  jsonResponse?: boolean;
  /** The largest POST body accepted; larger ones get 413. @default 4 MiB */
  maxBodyBytes?: number;
  port?: number;
}

interface Pending {
  req: IncomingMessage;
  res: ServerResponse;
  wrote: boolean;
}

class BodyTooLarge extends Error {}

export class ChaosHttpServer {
  readonly ledger: Ledger;
  /** Requests whose response has not closed yet (a leak check after the client closes). */
  openRequests = 0;
  /** Every POST, including refused ones. */
  posts = 0;
  port = 0;
  private http: HttpServer | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  private readonly pending = new Map<string, Pending>();
  private readonly shutdown = new AbortController();

  constructor(private readonly options: ChaosHttpOptions) {
    this.ledger = options.ledger ?? new Ledger();
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async start(): Promise<this> {
    const http = createServer((req, res) => {
      this.openRequests++;
      res.once("close", () => this.openRequests--);
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
        else res.destroy();
      });
    });
    http.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    this.http = http;
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(this.options.port ?? 0, "127.0.0.1", () => {
        const address = http.address();
        if (address && typeof address === "object") this.port = address.port;
        resolve();
      });
    });
    return this;
  }

  async close(): Promise<void> {
    this.shutdown.abort();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map(async ({ transport, server }) => {
      await transport.close();
      await server.close();
    }));
    for (const s of this.sockets) s.destroy();
    const http = this.http;
    this.http = undefined;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let parsed: unknown;
    let key: string | undefined;
    if (req.method === "POST") {
      this.posts++;
      let body: string;
      try {
        body = await readBody(req, this.options.maxBodyBytes ?? 4 * 1024 * 1024);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        res.writeHead(413, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Request body too large" }, id: null }));
        return;
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }));
        return;
      }
      key = chaosKey(parsed);
      if (key !== undefined) {
        const attempt = this.ledger.arrive(key);
        const fault = faultFor(this.options.seed, key, "http", this.options.mix ?? DEFAULT_MIX);
        if ((fault === "http_429" || fault === "http_503") && firesOn(fault, attempt, this.options.transientAttempts ?? 1)) {
          const status = fault === "http_429" ? 429 : 503;
          res.writeHead(status, { "content-type": "text/plain", ...(status === 429 ? { "retry-after": "0" } : {}) });
          res.end(status === 429 ? "Too Many Requests" : "Service Unavailable: upstream is restarting");
          return;
        }
        const entry: Pending = { req, res, wrote: false };
        const write = res.write.bind(res) as (...a: unknown[]) => boolean;
        res.write = ((...a: unknown[]) => {
          entry.wrote = true;
          return write(...a);
        }) as ServerResponse["write"];
        this.pending.set(key, entry);
        res.once("close", () => {
          if (this.pending.get(key!) === entry) this.pending.delete(key!);
        });
      }
    }
    await this.route(req, res, parsed);
  }

  private async route(req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<void> {
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = this.sessions.get(sessionId);
      if (!session) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      await session.transport.handleRequest(req, res, parsed);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.options.jsonResponse ?? false,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    const server = buildChaosServer({
      ...this.options,
      transport: "http",
      ledger: this.ledger,
      frontCountsArrivals: true,
      shutdown: this.shutdown.signal,
      hooks: { dropSocket: (k) => this.dropSocket(k) },
    });
    await serveChaos(server, transport);
    await transport.handleRequest(req, res, parsed);
  }

  /** Destroys the socket of `key`'s POST once its event stream has started and been flushed. */
  private async dropSocket(key: string): Promise<void> {
    const entry = this.pending.get(key);
    if (!entry) return;
    const deadline = Date.now() + 5_000;
    while (!(entry.wrote && entry.req.socket.writableLength === 0) && Date.now() < deadline && !entry.res.destroyed) {
      await new Promise((r) => setTimeout(r, 2));
    }
    // A moment for the flushed bytes to reach the client before the FIN.
    await new Promise((r) => setTimeout(r, 10));
    entry.req.socket.destroy();
  }
}

/** The `key` argument of a `read`/`write` tools/call, if this body is one. */
function chaosKey(body: unknown): string | undefined {
  const m = body as { method?: unknown; params?: { name?: unknown; arguments?: { key?: unknown } } } | null;
  if (!m || typeof m !== "object" || m.method !== "tools/call") return undefined;
  if (m.params?.name !== "read" && m.params?.name !== "write") return undefined;
  const key = m.params.arguments?.key;
  return typeof key === "string" ? key : undefined;
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) tooLarge = true;
      else chunks.push(chunk);
    });
    req.once("end", () => (tooLarge ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString("utf8"))));
    req.once("error", reject);
  });
}

export async function startChaosHttp(options: ChaosHttpOptions): Promise<ChaosHttpServer> {
  return new ChaosHttpServer(options).start();
}

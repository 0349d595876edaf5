/**
 * MCP servers behind the SDKs' own bearer auth on 127.0.0.1, as users deploy them, to check whose
 * token each request carried:
 * - `v1`: the v1 McpServer on StreamableHTTPServerTransport (a session per client), in the SDK's
 *   express app behind its `requireBearerAuth` middleware;
 * - `v1-sse`: the same app serving the legacy SSE transport (GET /sse, POST /messages);
 * - `v2`: the v2 McpServer through `createMcpHandler` (per request, no session), behind the v2
 *   `requireBearerAuth` fetch gate, bridged from node:http with `@modelcontextprotocol/node`;
 * - `v2-sessions`: the v2 McpServer on `NodeStreamableHTTPServerTransport` (a 2025-era session).
 * Every POST is recorded before the auth (its JSON-RPC method, the `caller` argument of a
 * tools/call, and its Authorization, DPoP and X-Tenant headers). The one tool, `my_data`, answers
 * the records of the user the request's token belongs to, and nothing else.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth as expressBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer as V2McpServer, OAuthError, OAuthErrorCode, requireBearerAuth as fetchBearerAuth } from "@modelcontextprotocol/server";
import { z } from "zod";
import { listenTracking } from "./stopHttp.js";

export const USERS = ["alice", "bob", "carol"] as const;
/** Who a request can be for: a user, or the toolkit's own service account. */
export type Caller = (typeof USERS)[number] | "service";
export const TOKENS: Record<Caller, string> = { alice: "tok-alice-7f3", bob: "tok-bob-91c", carol: "tok-carol-2d8", service: "tok-service-55a" };
/** What `my_data` answers to a request with `caller`'s token. */
export const dataOf = (caller: string): string => `records of ${caller}`;

export type BearerKind = "v1" | "v1-sse" | "v2" | "v2-sessions";

/** One POST as it arrived, before the auth. */
export interface SeenPost {
  method: string;
  /** The `caller` argument of a tools/call: who the test sent it for. */
  caller?: string;
  authorization?: string;
  dpop?: string;
  tenant?: string;
}

async function verifyAccessToken(token: string, invalid: (message: string) => Error): Promise<AuthInfo> {
  const caller = (Object.keys(TOKENS) as Caller[]).find((c) => TOKENS[c] === token);
  if (!caller) throw invalid("Unknown token");
  return { token, clientId: caller, scopes: ["mcp"], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
}

const SESSION_GONE = JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });

type Session = StreamableHTTPServerTransport | SSEServerTransport | NodeStreamableHTTPServerTransport;
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export class BearerServer {
  readonly seen: SeenPost[] = [];
  /** The callers whose token reached `my_data`, in order. */
  readonly ran: string[] = [];
  /** The `caller` arguments of the `wait_data` calls whose handler saw its request cancelled. */
  readonly cancelled: string[] = [];
  /** Which tools/call POSTs, by their `caller` argument, are answered 503 before the auth. */
  failWhen: (caller: string | undefined) => boolean = () => false;
  /** Which calls of `my_data`, by their `caller` argument, are answered as the SDK answers a tool it stopped listing. */
  missWhen: (caller: string) => boolean = () => false;
  /** Tokens revoked since they were issued: the SDK's bearer auth refuses them (401 invalid_token). */
  readonly revoked = new Set<string>();
  port = 0;
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Map<string, Session>();
  private readonly handler: Handler;
  private closeHandler?: () => Promise<void>;

  constructor(readonly kind: BearerKind) {
    this.handler = kind.startsWith("v1") ? this.expressApp() : this.fetchGate();
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}${this.kind === "v1-sse" ? "/sse" : "/mcp"}`);
  }

  /** Does a restart end the client's session (so its next request meets `session_expired`)? */
  get sessionful(): boolean {
    return this.kind === "v1" || this.kind === "v2-sessions";
  }

  /** The tools/call POSTs received. */
  get calls(): SeenPost[] {
    return this.seen.filter((p) => p.method === "tools/call");
  }

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  /** Stops and listens again on the same port, every session forgotten: a redeployed server. */
  async restart(): Promise<void> {
    await this.stop();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.stop();
    await this.closeHandler?.();
  }

  private answer(caller: string, auth: AuthInfo | undefined) {
    if (this.missWhen(caller)) {
      // What both SDKs' McpServer answer for a tool they have disabled (no longer listed).
      return { content: [{ type: "text" as const, text: "MCP error -32602: Tool my_data disabled" }], isError: true };
    }
    // The data of the user whose token the request carried, whoever the arguments say it is for.
    const user = auth?.clientId ?? "nobody";
    this.ran.push(user);
    // Parallel requests interleave: a wait of its own makes a mix-up between them show.
    return new Promise<{ content: { type: "text"; text: string }[] }>((resolve) => setTimeout(() => resolve({ content: [{ type: "text", text: dataOf(user) }] }), 5 + Math.random() * 20));
  }

  /** Answers after 10 s, or at once when its request is cancelled (recorded). */
  private waitForCancel(caller: string, signal: AbortSignal) {
    return new Promise<{ content: { type: "text"; text: string }[] }>((resolve) => {
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "waited" }] }), 10_000);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        this.cancelled.push(caller);
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    });
  }

  private v1Server(): V1McpServer {
    const server = new V1McpServer({ name: "bearer-v1", version: "1.0.0" });
    server.registerTool("my_data", { description: "The caller's own records.", inputSchema: { caller: z.string() }, annotations: { readOnlyHint: true } }, ({ caller }, extra) => this.answer(caller, extra.authInfo));
    server.registerTool("wait_data", { description: "Waits until cancelled.", inputSchema: { caller: z.string() } }, ({ caller }, extra) => this.waitForCancel(caller, extra.signal));
    return server;
  }

  private v2Server(): V2McpServer {
    const server = new V2McpServer({ name: "bearer-v2", version: "2.0.0" });
    server.registerTool("my_data", { description: "The caller's own records.", inputSchema: z.object({ caller: z.string() }), annotations: { readOnlyHint: true } }, ({ caller }, ctx) => this.answer(caller, ctx.http?.authInfo));
    return server;
  }

  /** The token, or none when it was revoked. */
  private live(token: string): string {
    return this.revoked.has(token) ? "" : token;
  }

  /** Records a POST and answers the planned failures; false when it answered. */
  private front(req: IncomingMessage, body: unknown, res: ServerResponse): boolean {
    // The toolkit's keep-alive check (an OPTIONS before a call on idle connections).
    if (req.method === "OPTIONS") return void res.writeHead(204).end(), false;
    if (req.method !== "POST") return true;
    const message = body as { method?: string; params?: { arguments?: { caller?: string } } } | undefined;
    const one = (name: string) => (typeof req.headers[name] === "string" ? (req.headers[name] as string) : undefined);
    const method = message?.method ?? "";
    this.seen.push({ method, caller: message?.params?.arguments?.caller, authorization: one("authorization"), dpop: one("dpop"), tenant: one("x-tenant") });
    if (method !== "tools/call" || !this.failWhen(message?.params?.arguments?.caller)) return true;
    res.writeHead(503, { "content-type": "text/plain" }).end("busy, try again");
    return false;
  }

  /** v1: the SDK's express app (JSON body parser, host check), its bearer middleware, its transports. */
  private expressApp(): Handler {
    const app = createMcpExpressApp();
    app.use((req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: () => void) => this.front(req, req.body, res) && next());
    app.use(expressBearerAuth({ verifier: { verifyAccessToken: (token) => verifyAccessToken(this.live(token), (m) => new InvalidTokenError(m)) } }));
    const serve = this.kind === "v1-sse" ? this.v1Sse : this.v1Streamable;
    app.all(["/mcp", "/sse", "/messages"], (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void serve.call(this, req, res, req.body));
    return app as Handler;
  }

  private async v1Streamable(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const known = this.session(req, res);
    if (known) return (known as StreamableHTTPServerTransport).handleRequest(req, res, body);
    if (known === null) return;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void this.sessions.set(id, transport) });
    transport.onclose = () => void this.sessions.delete(transport.sessionId ?? "");
    await this.v1Server().connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await transport.close();
  }

  private async v1Sse(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      this.sessions.set(transport.sessionId, transport);
      transport.onclose = () => this.sessions.delete(transport.sessionId);
      return this.v1Server().connect(transport);
    }
    const transport = this.sessions.get(new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("sessionId") ?? "");
    if (transport instanceof SSEServerTransport) return transport.handlePostMessage(req, res, body);
    res.writeHead(404).end("Session not found");
  }

  /** v2: node:http bridged to the v2 fetch gate, then the per-request handler or a session transport. */
  private fetchGate(): Handler {
    const gate = fetchBearerAuth({ verifier: { verifyAccessToken: (token) => verifyAccessToken(this.live(token), (m) => new OAuthError(OAuthErrorCode.InvalidToken, m)) } });
    let serve: (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown) => Promise<void>;
    if (this.kind === "v2") {
      const handler = createMcpHandler(() => this.v2Server(), { legacy: "stateless" });
      this.closeHandler = () => handler.close();
      serve = toNodeHandler(handler);
    } else serve = (req, res, body) => this.v2Session(req, res, body);
    return (req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString();
        const body: unknown = text ? JSON.parse(text) : undefined;
        if (!this.front(req, body, res)) return;
        const auth = await gate(await toWebRequest(req, body));
        if (auth instanceof Response) {
          res.writeHead(auth.status, Object.fromEntries(auth.headers)).end(await auth.text());
          return;
        }
        await serve(Object.assign(req, { auth }), res, body);
      })().catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    };
  }

  private async v2Session(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void> {
    const known = this.session(req, res);
    if (known) return (known as NodeStreamableHTTPServerTransport).handleRequest(req, res, body);
    if (known === null) return;
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void this.sessions.set(id, transport) });
    transport.onclose = () => void this.sessions.delete(transport.sessionId ?? "");
    await this.v2Server().connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await transport.close();
  }

  /** The request's session; `null` when it names one this server does not know (answered 404), `undefined` when it names none. */
  private session(req: IncomingMessage, res: ServerResponse): Session | null | undefined {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string") return undefined;
    const known = this.sessions.get(id);
    if (known) return known;
    res.writeHead(404, { "content-type": "application/json" }).end(SESSION_GONE);
    return null;
  }

  private async listen(port: number): Promise<void> {
    const http = createServer(this.handler);
    this.http = http;
    this.port = await listenTracking(http, port, this.sockets);
  }

  private async stop(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.close()));
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = undefined;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

export function startBearerServer(kind: BearerKind): Promise<BearerServer> {
  return new BearerServer(kind).start();
}

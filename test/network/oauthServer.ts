/**
 * An MCP server behind OAuth on 127.0.0.1, as the MCP authorization spec lays it out: the MCP
 * endpoint answers a request without a valid bearer token with 401 and a `WWW-Authenticate`
 * that points at its protected-resource metadata; that metadata names an authorization server
 * on the same origin, which serves its own metadata, dynamic client registration, an authorize
 * endpoint that approves at once (redirecting with a code) and a token endpoint.
 *
 * Both metadata documents are padded past 8 KB with `scopes_supported` entries, as large real
 * deployments are: a client that reads only the start of a body cannot parse them.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { buildFixtureServer } from "../servers/fixture.js";
import { buildV2Server, newV2State, type V2State } from "../servers/v2/fixture.js";

export interface OAuthServerOptions {
  /** Where the authorization server's metadata is served; the other well-known path answers 404. @default "oauth-authorization-server" */
  metadataAt?: "oauth-authorization-server" | "openid-configuration";
  /** How many padding scopes each metadata document lists. @default 600 (about 15 KB) */
  paddingScopes?: number;
  /** `sse` serves the legacy HTTP+SSE transport (GET /sse, POST /messages) with the v1 server. @default "streamable" */
  mode?: "streamable" | "sse";
}

/** The scope the MCP endpoint asks for in its challenge. */
export const MCP_SCOPE = "mcp:tools";

export class OAuthMcpServer {
  readonly state: V2State = newV2State();
  /** Every request, as `METHOD /path`, in order. */
  readonly seen: string[] = [];
  /** Access tokens the token endpoint issued and the MCP endpoint accepts. */
  readonly validTokens = new Set<string>();
  /** Bytes of the two metadata documents, to show they are past 8 KB. */
  readonly documentBytes: Record<"resource" | "authorizationServer", number> = { resource: 0, authorizationServer: 0 };
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly codes = new Map<string, { clientId: string; challenge: string }>();
  private issued = 0;
  private closeMcp?: () => Promise<void>;
  private readonly sseSessions = new Map<string, SSEServerTransport>();
  port = 0;

  constructor(private readonly options: OAuthServerOptions = {}) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get url(): URL {
    return new URL(`${this.origin}${this.mcpPath}`);
  }

  get resourceMetadataUrl(): string {
    return `${this.origin}/.well-known/oauth-protected-resource${this.mcpPath}`;
  }

  private get mcpPath(): string {
    return this.options.mode === "sse" ? "/sse" : "/mcp";
  }

  async start(): Promise<this> {
    const handler = createMcpHandler(() => buildV2Server(this.state), { legacy: "stateless" });
    this.closeMcp = () => handler.close();
    const mcp = toNodeHandler(handler);
    const http = createServer((req, res) => {
      this.seen.push(`${req.method} ${new URL(req.url ?? "/", this.origin).pathname}`);
      this.route(req, res, mcp).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    http.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    this.http = http;
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (http.address() as { port: number }).port;
    return this;
  }

  /** Takes back every token issued: the next request with one is answered 401 invalid_token. */
  revokeTokens(): void {
    this.validTokens.clear();
  }

  async close(): Promise<void> {
    await this.closeMcp?.();
    await Promise.allSettled([...this.sseSessions.values()].map((t) => t.close()));
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = undefined;
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  }

  /** The legacy transport, on the v1 fixture server (most SSE servers in the wild are v1). */
  private async serveSse(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      this.sseSessions.set(transport.sessionId, transport);
      transport.onclose = () => this.sseSessions.delete(transport.sessionId);
      await buildFixtureServer().connect(transport);
      return;
    }
    const transport = this.sseSessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method !== "POST" || url.pathname !== "/messages" || !transport) return void res.writeHead(404).end("Session not found");
    await transport.handlePostMessage(req, res);
  }

  private async route(req: IncomingMessage, res: ServerResponse, mcp: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void): Promise<void> {
    const url = new URL(req.url ?? "/", this.origin);
    const path = url.pathname;
    const padding = Array.from({ length: this.options.paddingScopes ?? 600 }, (_, i) => `padding:scope-${String(i).padStart(4, "0")}`);
    if (path === "/mcp" || path === "/sse" || path === "/messages") {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (token && this.validTokens.has(token)) return this.options.mode === "sse" ? this.serveSse(req, res, url) : void (await mcp(req, res));
      // RFC 6750 §3: a request with no credentials gets no error code; a bad token gets invalid_token.
      const error = token ? ', error="invalid_token", error_description="The access token is expired or revoked"' : "";
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": `Bearer resource_metadata="${this.resourceMetadataUrl}", scope="${MCP_SCOPE}"${error}` });
      res.end(JSON.stringify({ error: token ? "invalid_token" : "unauthorized" }));
      return;
    }
    if (path === `/.well-known/oauth-protected-resource${this.mcpPath}` || path === "/.well-known/oauth-protected-resource") {
      const body = JSON.stringify({ resource: this.url.href, authorization_servers: [this.origin], scopes_supported: [MCP_SCOPE, ...padding], bearer_methods_supported: ["header"] });
      this.documentBytes.resource = Buffer.byteLength(body);
      return json(res, 200, body);
    }
    if (path === `/.well-known/${this.options.metadataAt ?? "oauth-authorization-server"}`) {
      const body = JSON.stringify({
        issuer: this.origin,
        authorization_endpoint: `${this.origin}/authorize`,
        token_endpoint: `${this.origin}/token`,
        registration_endpoint: `${this.origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: [MCP_SCOPE, ...padding],
        // What OpenID Connect Discovery requires beyond OAuth's metadata.
        ...(this.options.metadataAt === "openid-configuration" ? { jwks_uri: `${this.origin}/jwks`, subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"] } : {}),
      });
      this.documentBytes.authorizationServer = Buffer.byteLength(body);
      return json(res, 200, body);
    }
    if (path === "/register" && req.method === "POST") {
      const metadata = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
      return json(res, 201, JSON.stringify({ ...metadata, client_id: `client-${++this.issued}`, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: "none" }));
    }
    if (path === "/authorize") {
      // Approves at once, as a user who clicks "allow" would.
      const code = `code-${++this.issued}`;
      this.codes.set(code, { clientId: url.searchParams.get("client_id") ?? "", challenge: url.searchParams.get("code_challenge") ?? "" });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      const state = url.searchParams.get("state");
      if (state) back.searchParams.set("state", state);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (path === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await bodyOf(req));
      const grant = this.codes.get(form.get("code") ?? "");
      if (form.get("grant_type") !== "authorization_code" || !grant || !form.get("code_verifier")) {
        return json(res, 400, JSON.stringify({ error: "invalid_grant", error_description: "Unknown or used code" }));
      }
      this.codes.delete(form.get("code")!);
      const token = `token-${++this.issued}`;
      this.validTokens.add(token);
      return json(res, 200, JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600, scope: MCP_SCOPE }));
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  }
}

function json(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(body);
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthMcpServer> {
  return new OAuthMcpServer(options).start();
}

/**
 * A reference server for the conformance suite's resource and prompt *server* scenarios
 * (@modelcontextprotocol/conformance has no client scenario for either): exactly the resources
 * and prompts those scenarios ask for, built with the v2 SDK (`@modelcontextprotocol/server`).
 * It serves both revisions on one URL, the way the SDK documents for a server that keeps 2025
 * sessions beside 2026-07-28: `isLegacyRequest` routes a 2025-era request to a sessionful
 * streamable HTTP transport (where `resources/subscribe` means something: a subscribed session is
 * sent `notifications/resources/updated` when `touch` changes the resource), and everything else
 * to `createMcpHandler(..., { legacy: "reject" })`, which builds an instance per request.
 *
 * - `test://static-text` (text/plain), `test://static-binary` (image/png, a blob),
 *   `test://watched-resource` (the one the subscribe scenarios name), and the template
 *   `test://template/{id}/data` (application/json, the id in the text);
 * - an unknown URI: the SDK's `ResourceNotFoundError`, -32602 with `data.uri`, in both eras;
 * - `test_simple_prompt`, `test_prompt_with_arguments` (arg1, arg2), `test_prompt_with_embedded_resource`
 *   (resourceUri) and `test_prompt_with_image`;
 * - 2025 only: `resources/subscribe` and `resources/unsubscribe` (2026-07-28 removed them).
 *
 * Standalone: `npx tsx test/conformance/resourceServer.ts [port]` prints its URL and stays up.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { localhostHostValidation, NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import { createMcpHandler, isLegacyRequest, McpServer, ResourceNotFoundError, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";
import { listenTracking, stopSessionsAndServer } from "../servers/stopHttp.js";

export const STATIC_TEXT = "This is the content of the static text resource.";
/** A 1×1 PNG, for the binary resource and the prompt's image. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
export const EMBEDDED_TEXT = "Embedded resource content for testing.";
export const WATCHED = "test://watched-resource";

export type Era = "legacy" | "modern";

/** What a 2025 session's instance needs besides the resources: the shared versions and its subscriptions. */
interface BuildOptions {
  /** How many times `touch` changed a URI. */
  version: (uri: string) => number;
  /** The URIs this session subscribed to (2025 sessions only). */
  subscribed?: Set<string>;
}

const text = (uri: string, body: string, mimeType = "text/plain") => ({ contents: [{ uri, mimeType, text: body }] });

/** One instance of the reference server, for `era`: the resources and prompts the scenarios ask for. */
export function buildResourceServer(era: Era, options: BuildOptions): McpServer {
  const server = new McpServer({ name: "conformance-resources", version: "1.0.0" });
  server.registerResource("static-text", "test://static-text", { description: "A static text resource.", mimeType: "text/plain" }, async (uri) => text(uri.href, STATIC_TEXT));
  server.registerResource("static-binary", "test://static-binary", { description: "A static binary resource (a PNG).", mimeType: "image/png" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "image/png", blob: PNG }],
  }));
  server.registerResource("watched-resource", WATCHED, { description: "A resource that changes; subscribe to it (2025).", mimeType: "text/plain" }, async (uri) =>
    text(uri.href, `version ${options.version(uri.href)}`),
  );
  server.registerResource(
    "template-data",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { description: "Data for an id.", mimeType: "application/json" },
    async (uri, { id }) => text(uri.href, JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }), "application/json"),
  );

  server.registerPrompt("test_simple_prompt", { description: "A simple prompt without arguments." }, async () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }));
  server.registerPrompt(
    "test_prompt_with_arguments",
    { description: "A prompt with two required arguments.", argsSchema: z.object({ arg1: z.string().describe("First test argument"), arg2: z.string().describe("Second test argument") }) },
    async ({ arg1, arg2 }) => ({ messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    { description: "A prompt that embeds a resource.", argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }) },
    async ({ resourceUri }) => ({
      messages: [
        { role: "user", content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: EMBEDDED_TEXT } } },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  );
  server.registerPrompt("test_prompt_with_image", { description: "A prompt with an image." }, async () => ({
    messages: [
      { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));

  const subscribed = options.subscribed;
  if (era === "legacy" && subscribed) {
    // Only a URI the server has can be subscribed to: anything else is not found, as a read is.
    const known = new Set(["test://static-text", "test://static-binary", WATCHED]);
    const check = (uri: string) => {
      if (!known.has(uri)) throw new ResourceNotFoundError(uri);
    };
    server.server.registerCapabilities({ resources: { subscribe: true } });
    server.server.setRequestHandler("resources/subscribe", async (request) => {
      check(request.params.uri);
      subscribed.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", async (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
  }
  return server;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  subscribed: Set<string>;
}

/** The reference server over streamable HTTP on 127.0.0.1: 2025 sessions and 2026-07-28 on one URL. */
export class ConformanceResourceServer {
  private http?: HttpServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Map<string, Session>();
  private readonly versions = new Map<string, number>();
  private readonly build = (era: Era, subscribed?: Set<string>) =>
    buildResourceServer(era, { version: (uri) => this.versions.get(uri) ?? 1, ...(subscribed ? { subscribed } : {}) });
  private readonly modern = createMcpHandler(({ era }) => this.build(era), { legacy: "reject" });
  private readonly serveModern = toNodeHandler(this.modern);
  private readonly hostCheck = localhostHostValidation();
  port = 0;

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  /** The 2025 sessions open now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  async start(port = 0): Promise<this> {
    const http = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(String(error));
      });
    });
    this.http = http;
    this.port = await listenTracking(http, port, this.sockets);
    return this;
  }

  /** Changes a resource: its text's version goes up, and every 2025 session subscribed to it is told. */
  async touch(uri: string): Promise<void> {
    this.versions.set(uri, (this.versions.get(uri) ?? 1) + 1);
    const told = [...this.sessions.values()].filter((s) => s.subscribed.has(uri));
    await Promise.all(told.map((s) => s.server.server.sendResourceUpdated({ uri })));
  }

  async close(): Promise<void> {
    await this.modern.close();
    await stopSessionsAndServer(new Map([...this.sessions].map(([id, s]) => [id, s.transport])), this.http);
    this.sessions.clear();
    this.http = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.hostCheck(req, res)) return;
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
        return;
      }
    }
    const probe = await toWebRequest(req, body);
    if (await isLegacyRequest(probe, body)) return this.legacy(req, res, body);
    return this.serveModern(req, res, body);
  }

  /** A 2025-era request: to its session, or a new session for an `initialize`. */
  private async legacy(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? this.sessions.get(id) : undefined;
    if (known) return known.transport.handleRequest(req, res, body);
    const initialize = req.method === "POST" && (body as { method?: unknown } | undefined)?.method === "initialize";
    if (typeof id === "string" || !initialize) {
      const [status, message] = typeof id === "string" ? [404, "Session not found"] : [400, "Bad Request: no session (send initialize first)"];
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message } }));
      return;
    }
    const subscribed = new Set<string>();
    const server = this.build("legacy", subscribed);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void this.sessions.set(sessionId, { transport, server, subscribed }),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

export async function startConformanceResourceServer(port = 0): Promise<ConformanceResourceServer> {
  return new ConformanceResourceServer().start(port);
}

// Standalone: `npx tsx test/conformance/resourceServer.ts [port]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startConformanceResourceServer(Number(process.argv[2] ?? 0));
  console.log(server.url.href);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

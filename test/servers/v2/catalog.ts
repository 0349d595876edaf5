/**
 * A v2 server over HTTP on 127.0.0.1 whose 2026-07-28 `tools/list` result carries a ttl
 * (`cacheHints`, so the SDK fills `ttlMs`/`cacheScope` as a real server configured for caching
 * does), with as many tools as asked, and a count of the JSON-RPC methods it was sent, read
 * from each POST's body before the SDK's handler sees it. Per request (`createMcpHandler`),
 * serving 2025-era clients statelessly too.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { Socket } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer, Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import { listenTracking } from "../stopHttp.js";

export interface CatalogServerOptions {
  /** How many tools besides `echo`: `tool_1` … `tool_<n>`, each with a small schema. @default 0 */
  tools?: number;
  /** The `ttlMs` of the `tools/list` result (2026-07-28). @default 60000 */
  ttlMs?: number;
  /** @default "public" */
  cacheScope?: "public" | "private";
  /** Put before every tool's name, so that several servers offer distinct tools. @default "" */
  prefix?: string;
  /** How long each request waits before the server handles it, in ms: a network's round trip. @default 0 */
  delayMs?: number;
}

export class CatalogServer {
  /** Requests received, by JSON-RPC method. */
  readonly methods = new Map<string, number>();
  /** Tools this server lists and answers; remove one to make it unknown (-32602). */
  readonly names: Set<string>;
  ttlMs: number;
  cacheScope: "public" | "private";
  delayMs: number;
  port = 0;
  private http: HttpServer | undefined;
  private readonly sockets = new Set<Socket>();
  private closeHandler: (() => Promise<void>) | undefined;
  private notify: (() => void) | undefined;

  constructor(options: CatalogServerOptions = {}) {
    const prefix = options.prefix ?? "";
    this.names = new Set([`${prefix}echo`, ...Array.from({ length: options.tools ?? 0 }, (_, i) => `${prefix}tool_${i + 1}`)]);
    this.delayMs = options.delayMs ?? 0;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.cacheScope = options.cacheScope ?? "public";
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  /** How many requests of `method` arrived. */
  count(method: string): number {
    return this.methods.get(method) ?? 0;
  }

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  /** Down and up again on the same port, every socket closed: the connection the client held is gone. */
  async restart(): Promise<void> {
    await this.close();
    await this.listen(this.port);
  }

  private async listen(port: number): Promise<void> {
    const handler = createMcpHandler(() => this.build(), { legacy: "stateless" });
    this.closeHandler = () => handler.close();
    this.notify = () => handler.notify.toolsChanged();
    const node = toNodeHandler(handler);
    const http = createServer((req, res) => {
      // Any request waits (an OPTIONS, a GET too): a round trip is paid whatever the method.
      const later = (handle: () => void) => (this.delayMs > 0 ? void setTimeout(handle, this.delayMs) : handle());
      if (req.method !== "POST") return later(() => void node(req, res));
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          res.writeHead(400).end("not JSON");
          return;
        }
        for (const message of Array.isArray(body) ? body : [body]) {
          const method = (message as { method?: unknown } | null)?.method;
          if (typeof method === "string") this.methods.set(method, (this.methods.get(method) ?? 0) + 1);
        }
        later(() => void node(req, res, body));
      });
    });
    this.http = http;
    this.port = await listenTracking(http, port, this.sockets);
  }

  /** Sends `notifications/tools/list_changed` on every open `subscriptions/listen` stream. */
  notifyToolsChanged(): void {
    this.notify?.();
  }

  async close(): Promise<void> {
    await this.closeHandler?.();
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = undefined;
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  }

  /** One instance per request, built from the current names and ttl. */
  private build(): McpServer {
    const server = new McpServer({ name: "catalog-fixture", version: "1.0.0" }, { cacheHints: { "tools/list": { ttlMs: this.ttlMs, cacheScope: this.cacheScope } } });
    for (const name of this.names) {
      server.registerTool(
        name,
        { description: `The ${name} tool: answers with its name and the text.`, inputSchema: z.object({ text: z.string().describe("Any text.") }), annotations: { readOnlyHint: true } },
        async ({ text }) => ({ content: [{ type: "text", text: `${name}: ${text}` }] }),
      );
    }
    return server;
  }
}

export function startCatalogServer(options: CatalogServerOptions = {}): Promise<CatalogServer> {
  return new CatalogServer(options).start();
}

/**
 * A low-level v2 server that lies about its output: it lists `measure` with an output schema
 * (`{ celsius: number }`, ttl 60 s) and answers with structured content that breaks it, which
 * only the client's own check can catch (an McpServer would check its own output first).
 */
export async function startMismatchServer(): Promise<{ url: URL; close(): Promise<void> }> {
  const build = () => {
    const server = new Server({ name: "mismatch", version: "1.0.0" }, { capabilities: { tools: {} }, cacheHints: { "tools/list": { ttlMs: 60_000 } } });
    const outputSchema = { type: "object" as const, properties: { celsius: { type: "number" } }, required: ["celsius"] };
    server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "measure", inputSchema: { type: "object" as const }, outputSchema }] }));
    server.setRequestHandler("tools/call", async () => ({ content: [{ type: "text" as const, text: "warm" }], structuredContent: { celsius: "warm" } }));
    return server;
  };
  const handler = createMcpHandler(build as never, { legacy: "stateless" });
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: new URL(`http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`),
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * A real reverse proxy on 127.0.0.1 (node:http) in front of a real MCP server, with faults planned
 * per request: what nginx, Envoy and Cloudflare answer when their upstream misbehaves. A fault
 * fires "before" forwarding (the server never sees the request) or "after" (the server ran the
 * tool and its answer is thrown away), so a test can count the server's executions.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export type ProxyFault =
  /** Answer `status` with `body` without forwarding. */
  | { kind: "status"; when: "before" | "after"; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  /** A 200 that is not MCP: a page, a JSON of another API, an empty body. */
  | { kind: "ok_body"; body: string; contentType: string }
  /** Hold the request and never answer. */
  | { kind: "stall" }
  /** Forward, pass the response's head (the stream has begun), hold back its events, then destroy the socket. */
  | { kind: "reset_mid_body" }
  /** Forward, pass the response's head, hold back its events, then end the response cleanly, without the answer. */
  | { kind: "end_mid_body" };

interface Plan {
  fault: ProxyFault;
  /** Which tools/call it hits: by the `key` argument, or the next one. */
  key?: string;
  count: number;
}

export interface ProxiedRequest {
  method: string;
  /** The JSON-RPC method of a POST, when it carries one. */
  rpc?: string;
  key?: string;
  fault?: ProxyFault["kind"];
}

export class FaultProxy {
  readonly seen: ProxiedRequest[] = [];
  port = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly plans: Plan[] = [];
  private readonly stalled = new Set<ServerResponse>();

  constructor(private readonly upstream: URL) {}

  /** The proxied MCP endpoint. */
  get url(): URL {
    return new URL(`${this.upstream.pathname}${this.upstream.search}`, `http://127.0.0.1:${this.port}`);
  }

  /** Plans `fault` for the next `count` tools/call requests (for one `key` argument, if given). */
  plan(fault: ProxyFault, options: { key?: string; count?: number } = {}): void {
    this.plans.push({ fault, count: options.count ?? 1, ...(options.key !== undefined ? { key: options.key } : {}) });
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private take(rpc: string | undefined, key: string | undefined): ProxyFault | undefined {
    if (rpc !== "tools/call") return undefined;
    const i = this.plans.findIndex((p) => p.key === undefined || p.key === key);
    if (i < 0) return undefined;
    const plan = this.plans[i]!;
    if (--plan.count <= 0) this.plans.splice(i, 1);
    return plan.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const { rpc, key } = describe(body);
    const fault = this.take(rpc, key);
    this.seen.push({ method: req.method ?? "GET", ...(rpc ? { rpc } : {}), ...(key ? { key } : {}), ...(fault ? { fault: fault.kind } : {}) });
    if (fault?.kind === "stall") {
      this.stalled.add(res);
      res.once("close", () => this.stalled.delete(res));
      return;
    }
    if (fault?.kind === "ok_body") {
      res.writeHead(200, { "content-type": fault.contentType }).end(fault.body);
      return;
    }
    if (fault?.kind === "status" && fault.when === "before") {
      answer(res, fault);
      return;
    }
    const upstream = await this.forward(req, body);
    if (fault?.kind === "status") {
      // The upstream ran the tool; its answer is dropped, as a proxy that lost it does.
      await drain(upstream);
      answer(res, fault);
      return;
    }
    res.writeHead(upstream.statusCode ?? 502, upstream.headers);
    if (fault?.kind === "reset_mid_body" || fault?.kind === "end_mid_body") {
      res.flushHeaders();
      // The server has answered (it ran the tool); the answer is lost on the way.
      await firstChunk(upstream);
      upstream.destroy();
      // A moment for the head to reach the client before the socket goes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (fault.kind === "reset_mid_body") res.socket?.destroy();
      else res.end();
      return;
    }
    upstream.pipe(res);
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<IncomingMessage> {
    const headers = { ...req.headers, host: this.upstream.host };
    return new Promise((resolve, reject) => {
      const out = request({ host: this.upstream.hostname, port: this.upstream.port, path: req.url, method: req.method, headers }, resolve);
      out.once("error", reject);
      // The client went away (a stream it gave up on): stop the upstream request too.
      req.socket.once("close", () => out.destroy());
      out.end(body);
    });
  }
}

function answer(res: ServerResponse, fault: Extract<ProxyFault, { kind: "status" }>): void {
  res.writeHead(fault.status, { "content-type": fault.contentType ?? "text/plain", ...fault.headers });
  res.end(fault.body ?? `proxy error ${fault.status}`);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

function drain(res: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    res.resume();
    res.once("end", resolve);
    res.once("close", resolve);
  });
}

/** The response's first chunk with data in it (an SSE stream's first event), or nothing if it ended. */
function firstChunk(res: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    res.once("data", (chunk: Buffer) => {
      res.pause();
      resolve(chunk);
    });
    res.once("end", () => resolve(undefined));
  });
}

function describe(body: Buffer): { rpc?: string; key?: string } {
  if (body.length === 0) return {};
  try {
    const m = JSON.parse(body.toString("utf8")) as { method?: unknown; params?: { arguments?: { key?: unknown } } };
    const rpc = typeof m.method === "string" ? m.method : undefined;
    const key = typeof m.params?.arguments?.key === "string" ? m.params.arguments.key : undefined;
    return { ...(rpc ? { rpc } : {}), ...(key ? { key } : {}) };
  } catch {
    return {};
  }
}

export async function startFaultProxy(upstream: URL): Promise<FaultProxy> {
  return new FaultProxy(upstream).start();
}

/** A Cloudflare-style 522 page: a doctype, styles and scripts around a short message. */
export const CLOUDFLARE_522 = `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US"> <!--<![endif]-->
<head>
<title>mcp.example.com | 522: Connection timed out</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
<style>body{margin:0;padding:0}${"#cf-wrapper .cf-section{display:block}".repeat(40)}</style>
<script>(function(){window._cf_chl_opt={cvId: '3',cType: 'non-interactive',cRay: '8c1f2e3d4a5b6c7d'};${"var a=1;".repeat(200)}})();</script>
</head>
<body>
<div id="cf-wrapper"><div id="cf-error-details" class="p-0">
<header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
<h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
<span class="inline-block">Connection timed out</span>
<span class="code-label">Error code 522</span></h1>
</header>
<div class="w-240 lg:w-full mx-auto mb-8 lg:px-8"><div class="clearfix">
<div class="w-1/2 md:w-full float-left pr-6 md:pb-10 md:pr-0 leading-relaxed">
<h2 class="text-3xl font-normal leading-1.3 mb-4">What happened?</h2>
<p>The initial connection between Cloudflare's network and the origin web server timed out. As a result, the web page can not be displayed.</p>
</div></div></div>
<script>${"document.getElementById('cf-footer');".repeat(50)}</script>
</div></div></body></html>`;

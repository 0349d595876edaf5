/**
 * A real reverse proxy on 127.0.0.1 (node:http) in front of a real MCP server, with faults planned
 * per request: what nginx, Envoy and Cloudflare answer when their upstream misbehaves. A fault
 * fires "before" forwarding (the server never sees the request) or "after" (the server ran the
 * tool and its answer is thrown away), so a test can count the server's executions.
 */
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export type ProxyFault =
  /** Answer `status` with `body` without forwarding. */
  | { kind: "status"; when: "before" | "after"; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  /** A 200 that is not MCP: a page, a JSON of another API, an empty body. */
  | { kind: "ok_body"; body: string; contentType: string }
  /** Hold the request and never answer. */
  | { kind: "stall" }
  /** Drop the connection without an answer and without forwarding: the server never sees the request. */
  | { kind: "reset" }
  /** Forward, and hold the server's answer back `ms` before passing it on: a slow upstream. */
  | { kind: "delay"; ms: number }
  /** Forward, pass the response's head (the stream has begun), hold back its events, then destroy the socket. */
  | { kind: "reset_mid_body" }
  /** Forward, pass the response's head, hold back its events, then end the response cleanly, without the answer. */
  | { kind: "end_mid_body" }
  /** Forward, pass the head and the stream's first event (a resumable server's priming event id), then destroy the socket. */
  | { kind: "reset_after_first_event" };

interface Plan {
  fault: ProxyFault;
  /** The JSON-RPC method it hits. @default "tools/call" */
  rpc?: string;
  /** Which tools/call it hits: by the `key` argument, or the next one. */
  key?: string;
  count: number;
}

export interface FaultProxyOptions {
  /**
   * Decides a fault for each tools/call that no `plan` claims, from its `key` argument: for a run
   * that deals faults by a rule rather than one by one.
   */
  decide?: (request: { key?: string }) => ProxyFault | undefined;
  /**
   * Decides a fault for every request (any method, a GET included) before the plans and
   * `decide`: an outage of the whole endpoint, as a gateway whose upstream is down answers 503
   * to `ping` and `initialize` as much as to tools/call.
   */
  outage?: (request: { rpc?: string }) => ProxyFault | undefined;
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
  // Keep-alive to the upstream, as a production proxy; idle sockets go well before the upstream's
  // own keep-alive timeout (5 s), so the proxy never meets that race itself.
  private readonly agent = new Agent({ keepAlive: true, timeout: 1_000 });

  constructor(
    private readonly upstream: URL,
    private readonly options: FaultProxyOptions = {},
  ) {}

  /** The proxied MCP endpoint. */
  get url(): URL {
    return new URL(`${this.upstream.pathname}${this.upstream.search}`, `http://127.0.0.1:${this.port}`);
  }

  /** Plans `fault` for the next `count` tools/call requests (for one `key` argument, if given), or requests of another `rpc` method ("GET": the next GETs). */
  plan(fault: ProxyFault, options: { key?: string; count?: number; rpc?: string } = {}): void {
    this.plans.push({ fault, count: options.count ?? 1, ...(options.key !== undefined ? { key: options.key } : {}), ...(options.rpc !== undefined ? { rpc: options.rpc } : {}) });
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
    this.agent.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private take(rpc: string | undefined, key: string | undefined): ProxyFault | undefined {
    const i = this.plans.findIndex((p) => (p.rpc ?? "tools/call") === rpc && (p.key === undefined || p.key === key));
    if (i < 0 && rpc !== "tools/call") return undefined;
    if (i < 0) return this.options.decide?.(key === undefined ? {} : { key });
    const plan = this.plans[i]!;
    if (--plan.count <= 0) this.plans.splice(i, 1);
    return plan.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const { rpc, key } = describe(body);
    // A GET (an event stream opened or resumed) takes the faults planned for rpc "GET".
    const fault = this.options.outage?.(rpc ? { rpc } : {}) ?? this.take(req.method === "GET" ? "GET" : rpc, key);
    this.seen.push({ method: req.method ?? "GET", ...(rpc ? { rpc } : {}), ...(key ? { key } : {}), ...(fault ? { fault: fault.kind } : {}) });
    if (fault?.kind === "stall") {
      this.stalled.add(res);
      res.once("close", () => this.stalled.delete(res));
      return;
    }
    if (fault?.kind === "reset") {
      res.socket?.destroy();
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
    const upstream = await this.forward(req, res, body);
    if (fault?.kind === "delay" && !(await heldFor(res, fault.ms))) return;
    if (fault?.kind === "status") {
      // The upstream ran the tool; its answer is dropped, as a proxy that lost it does.
      await drain(upstream);
      answer(res, fault);
      return;
    }
    if (fault?.kind === "reset_after_first_event") {
      const { "content-length": _length, ...headers } = upstream.headers;
      res.writeHead(upstream.statusCode ?? 502, { ...headers, "transfer-encoding": "chunked" });
      const chunk = await firstChunk(upstream);
      if (chunk) res.write(chunk);
      upstream.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === "reset_mid_body" || fault?.kind === "end_mid_body") {
      // The stream goes out chunked whatever its length upstream: a clean end must be a complete
      // response, not one short of its Content-Length (which leaves the client waiting for the rest).
      const { "content-length": _length, ...headers } = upstream.headers;
      res.writeHead(upstream.statusCode ?? 502, { ...headers, "transfer-encoding": "chunked" });
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
    res.writeHead(upstream.statusCode ?? 502, upstream.headers);
    // The upstream broke its answer off (a reset mid-stream): so does the proxy, as nginx does.
    upstream.once("close", () => {
      if (!upstream.complete) res.destroy();
    });
    upstream.pipe(res);
  }

  private forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<IncomingMessage> {
    const headers = { ...req.headers, host: this.upstream.host };
    return new Promise((resolve, reject) => {
      const out = request({ host: this.upstream.hostname, port: this.upstream.port, path: req.url, method: req.method, headers, agent: this.agent }, resolve);
      // Errors after the response came are the response's; later ones are settled already.
      out.on("error", reject);
      // The client went away (a stream it gave up on): stop the upstream request too. Watched on
      // the response, not the keep-alive socket, which outlives it and would gather listeners.
      res.once("close", () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(body);
    });
  }
}

function answer(res: ServerResponse, fault: Extract<ProxyFault, { kind: "status" }>): void {
  res.writeHead(fault.status, { "content-type": fault.contentType ?? "text/plain", ...fault.headers });
  res.end(fault.body ?? `proxy error ${fault.status}`);
}

/** Waits `ms`; false when the client went away meanwhile (its abort also ends the upstream request). */
function heldFor(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const gone = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", gone);
      resolve(true);
    }, ms);
    res.once("close", gone);
  });
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

export async function startFaultProxy(upstream: URL, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  return new FaultProxy(upstream, options).start();
}

export { CLOUDFLARE_522 } from "./pages.js";

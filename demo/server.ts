/**
 * The demo's MCP server: a real streamable-HTTP server on 127.0.0.1 whose tools fail the way
 * production servers do. Each fault is produced by real machinery: an HTTP 503 status, a
 * timer that outlives the client's timeout, a socket destroyed mid-call.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { MemoryIdempotencyStore, withIdempotency } from "../src/server/index.js";

export interface DemoServer {
  url: string;
  /** How many times each tool's handler ran. */
  executions: Map<string, number>;
  /** The idempotency key of every transfer request that reached the server, in order. */
  transferKeys: string[];
  close(): Promise<void>;
}

interface Options {
  name: string;
  /** search answers 503 this many times before it works. */
  searchFailures?: number;
  /** Register only these tools. */
  only?: string[];
}

export async function startDemoServer(options: Options): Promise<DemoServer> {
  const executions = new Map<string, number>();
  const ran = (tool: string) => executions.set(tool, (executions.get(tool) ?? 0) + 1);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  const inFlight = new Set<Socket>();
  let searchFailures = options.searchFailures ?? 0;
  const transferKeys: string[] = [];
  // One store for the server, not one per session: a repeat may come on another session.
  const keys = new MemoryIdempotencyStore();
  const transfer = withIdempotency(
    async () => {
      ran("transfer");
      // The money moved, then the connection died before the answer got out.
      for (const socket of inFlight) socket.destroy();
      return { content: [{ type: "text" as const, text: "transferred" }] };
    },
    { store: keys, scope: "transfer" },
  );

  const build = () => {
    const mcp = new McpServer({ name: options.name, version: "1.0.0" });
    const tools: Record<string, RegisteredTool> = {};
    tools.search = mcp.registerTool(
      "search",
      { description: "Search the product catalogue.", inputSchema: { query: z.string() }, annotations: { readOnlyHint: true } },
      async ({ query }) => {
        ran("search");
        return { content: [{ type: "text", text: `3 results for "${query}": MCP adapter, MCP gateway, MCP inspector` }] };
      },
    );
    tools.inventory = mcp.registerTool(
      "inventory",
      { description: "Stock level of a product.", inputSchema: { sku: z.string() }, annotations: { readOnlyHint: true } },
      async ({ sku }) => {
        ran("inventory");
        return { content: [{ type: "text", text: `${sku}: 42 in stock (${options.name})` }] };
      },
    );
    tools.slow_report = mcp.registerTool(
      "slow_report",
      { description: "Build the quarterly report (slow).", inputSchema: { quarter: z.string() } },
      async (_args, extra) => {
        ran("slow_report");
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000);
          extra.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: "text", text: "report ready" }] };
      },
    );
    tools.transfer = mcp.registerTool(
      "transfer",
      {
        description: "Transfer money between accounts.",
        // Not idempotent, but it takes a key: the toolkit makes one per call and hides it from the model.
        inputSchema: { from: z.string(), to: z.string(), amount: z.number(), idempotency_key: z.string() },
        annotations: { destructiveHint: true, idempotentHint: false },
      },
      async (args, extra) => {
        transferKeys.push(args.idempotency_key);
        return transfer(args, extra);
      },
    );
    tools.send_sms = mcp.registerTool(
      "send_sms",
      { description: "Send a text message.", inputSchema: { to: z.string(), text: z.string() } },
      async () => {
        ran("send_sms");
        return { content: [{ type: "text", text: "quota exceeded: 100 of 100 messages sent today" }], isError: true };
      },
    );
    tools.create_ticket = mcp.registerTool(
      "create_ticket",
      {
        description: "Open a support ticket.",
        inputSchema: { title: z.string(), priority: z.enum(["low", "normal", "high"]) },
      },
      async ({ title, priority }) => {
        ran("create_ticket");
        return { content: [{ type: "text", text: `ticket #1042 "${title}" opened (${priority})` }] };
      },
    );
    for (const [name, tool] of Object.entries(tools)) if (options.only && !options.only.includes(name)) tool.remove();
    return mcp;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.method === "POST" && searchFailures > 0 && /"name":"search"/.test(body)) {
      searchFailures--;
      res.writeHead(503, { "content-type": "text/plain" }).end("upstream search index is rebuilding");
      return;
    }
    const parsed = body ? (JSON.parse(body) as unknown) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === "string") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id: string): void => {
          sessions.set(id, created);
        },
      });
      transport = created;
      await build().connect(created);
    }
    inFlight.add(req.socket);
    try {
      await transport.handleRequest(req, res, parsed);
    } finally {
      inFlight.delete(req.socket);
    }
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    executions,
    transferKeys,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Task servers built on the v2 server package (per request, `createMcpHandler`), which has no
 * task runtime of its own, in this process so a test counts what reached them:
 * - `modern` (2026-07-28): every tools/call is answered the way the `io.modelcontextprotocol/tasks`
 *   extension does, a CreateTaskResult with `resultType: "task"`. The v2 server lets a handler
 *   send that; the v2 client cannot receive it, and this server pins that fact.
 * - `legacy` (2025-11-25): declares tool tasks but answers every tools/call at once, ignoring the
 *   `task` field, as a server that forwards capabilities it does not implement might.
 */
import { createServer, type Server as HttpServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface V2TaskServer {
  url: URL;
  /** POSTs received. */
  readonly posts: number;
  /** tools/call requests answered. */
  readonly calls: number;
  close(): Promise<void>;
}

export async function startV2TaskServer(era: "modern" | "legacy"): Promise<V2TaskServer> {
  let posts = 0;
  let calls = 0;
  const build = () => {
    const capabilities = era === "modern" ? { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } : { tools: {}, tasks: { requests: { tools: { call: {} } } } };
    const server = new Server({ name: `v2-tasks-${era}`, version: "1.0.0" }, { capabilities });
    server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "slow_job", description: "Runs as a task.", inputSchema: { type: "object" as const } }] }));
    server.setRequestHandler("tools/call", async () => {
      calls++;
      if (era === "legacy") return { content: [{ type: "text" as const, text: "ran at once" }] };
      const now = new Date().toISOString();
      // The extension's CreateTaskResult; the SDK's own types know no `resultType: "task"`.
      return { resultType: "task", taskId: `task-${calls}`, status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 100 } as never;
    });
    return server;
  };
  const handler = createMcpHandler(build, { legacy: era === "modern" ? "reject" : "stateless" });
  const node = toNodeHandler(handler);
  const http: HttpServer = createServer((req, res) => {
    if (req.method === "POST") posts++;
    void node(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    get posts() {
      return posts;
    },
    get calls() {
      return calls;
    },
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

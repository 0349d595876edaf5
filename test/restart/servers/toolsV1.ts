/**
 * The restart suite's two tools on a v1 SDK server (`@modelcontextprotocol/sdk`), used over
 * HTTP (v1Http.ts) and stdio (stdio.ts):
 * - `read` (read-only, idempotent): waits `ms`, then answers;
 * - `write` (not idempotent): records its execution under the caller's `id` first, then waits
 *   `ms` and answers, so a kill during the wait leaves a write that ran but never answered.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { recordExecution } from "../ledger.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function buildRestartServerV1(ledger: string | undefined): McpServer {
  const server = new McpServer({ name: "restart-v1", version: "1.0.0" });
  server.registerTool(
    "read",
    { description: "Reads (waits ms, then answers).", inputSchema: { id: z.string(), ms: z.number() }, annotations: { readOnlyHint: true, idempotentHint: true } },
    async ({ id, ms }) => {
      await sleep(ms);
      return { content: [{ type: "text", text: `read ${id}` }] };
    },
  );
  server.registerTool(
    "write",
    { description: "Writes once per id (not idempotent).", inputSchema: { id: z.string(), ms: z.number() }, annotations: { readOnlyHint: false, idempotentHint: false } },
    async ({ id, ms }) => {
      recordExecution(ledger, id);
      await sleep(ms);
      return { content: [{ type: "text", text: `wrote ${id}` }] };
    },
  );
  return server;
}

/**
 * A `fastmcp` server over its HTTP stream transport (its default setup, which keeps a
 * resumable event store), in a process of its own. Env: RESTART_PORT, RESTART_MODE (`stateful`
 * or `stateless`), RESTART_LEDGER. On SIGTERM it stops through `server.stop()`.
 */
import { FastMCP } from "fastmcp";
import { z } from "zod";
import { recordExecution } from "../ledger.js";

const port = Number(process.env.RESTART_PORT);
const stateless = process.env.RESTART_MODE === "stateless";
const ledger = process.env.RESTART_LEDGER;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const quiet = { debug() {}, error() {}, info() {}, log() {}, warn() {} };
const server = new FastMCP({ name: "restart-fastmcp", version: "1.0.0", logger: quiet });
const parameters = z.object({ id: z.string(), ms: z.number() });
server.addTool({
  name: "read",
  description: "Reads (waits ms, then answers).",
  parameters,
  annotations: { readOnlyHint: true, idempotentHint: true },
  execute: async ({ id, ms }) => {
    await sleep(ms);
    return `read ${id}`;
  },
});
server.addTool({
  name: "write",
  description: "Writes once per id (not idempotent).",
  parameters,
  annotations: { readOnlyHint: false, idempotentHint: false },
  execute: async ({ id, ms }) => {
    recordExecution(ledger, id);
    await sleep(ms);
    return `wrote ${id}`;
  },
});
await server.start({ transportType: "httpStream", httpStream: { port, host: "127.0.0.1", endpoint: "/mcp", ...(stateless ? { stateless: true } : {}) } });

process.on("SIGTERM", () => {
  void server.stop().finally(() => process.exit(0));
});

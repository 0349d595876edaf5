/**
 * Already using @langchain/mcp-adapters? Keep it, and wrap its tools: `wrapTool` adds our
 * classification, retry policy and timeout, and turns the adapters' thrown ToolException
 * into text the model can act on (the JSON-RPC code is read back from the exception).
 * Run: npx tsx examples/wrap-existing-tools.ts
 */
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
// In your project: import { wrapTool, type McpEvent } from "langchain-mcp-errors";
import { wrapTool, type McpEvent } from "../src/index.js";

// A low-level MCP server, so get_invoice can answer with JSON-RPC errors (McpServer would turn
// them into isError results). Its database fails over once (-32603); a bad id is -32602.
const server = new Server({ name: "billing", version: "1.0.0" }, { capabilities: { tools: {} } });
const idSchema = { type: "object" as const, properties: { id: { type: "string" } }, required: ["id"] };
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "get_invoice", description: "Read an invoice.", inputSchema: idSchema },
    { name: "send_invoice", description: "Email an invoice to the customer.", inputSchema: idSchema },
  ],
}));
let failovers = 1;
server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
  const id = String(params.arguments?.id);
  if (params.name === "send_invoice") return { content: [{ type: "text", text: `customer of ${id} has no email address` }], isError: true };
  if (!/^INV-\d+$/.test(id)) throw new McpError(ErrorCode.InvalidParams, `id must look like INV-1234, got '${id}'`);
  if (failovers-- > 0) throw new McpError(ErrorCode.InternalError, "database failover in progress");
  return { content: [{ type: "text", text: `${id}: 120.00 EUR, paid` }] };
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "example", version: "1.0.0" });
await client.connect(clientSide);

const adapterTools = await loadMcpTools("billing", client);
const getInvoice = adapterTools.find((t) => t.name === "get_invoice")!;
const sendInvoice = adapterTools.find((t) => t.name === "send_invoice")!;

// Unwrapped, every failure is a thrown ToolException: one of them ends an agent run.
const thrown = await sendInvoice.invoke({ id: "INV-7" }).catch((e: Error) => e);
console.log(`adapter tool:    threw ${(thrown as Error).name}: ${(thrown as Error).message}`);

// Reading an invoice is harmless to repeat, so an internal_error (outcome unknown) may be retried.
const onEvent = (e: McpEvent) => {
  if (e.type === "retry") console.log(`  ↻ ${e.toolName} retried after ${e.error.reason}`);
};
const safeGet = wrapTool(getInvoice, { serverName: "billing", idempotent: true, retry: { retries: 2, minTimeout: 50 }, onEvent });
// Emailing twice is not harmless: idempotent false (the default) never repeats an unknown outcome.
const safeSend = wrapTool(sendInvoice, { serverName: "billing", idempotent: false, retry: { retries: 2 } });

console.log(`wrapped isError: ${String(await safeSend.invoke({ id: "INV-7" }))}`);
console.log(`wrapped -32602:  ${String(await safeGet.invoke({ id: "7" }))}`);
console.log(`wrapped -32603:  ${String(await safeGet.invoke({ id: "INV-7" }))}`);
// In an agent: createAgent({ model, tools: [safeGet, safeSend] }); a failure is an error ToolMessage.

await client.close();
await server.close();

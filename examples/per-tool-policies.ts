/**
 * Per-tool policies: how many retries, how long to wait, whether a repeat is safe, and who
 * answers when a tool keeps failing. Layers apply from least to most specific: toolkit →
 * server → glob keys → exact tool name → `<server>/<tool>`.
 * Run: npx tsx examples/per-tool-policies.ts
 */
// In your project: import { McpToolkit, type McpToolkitConfig } from "langchain-mcp-errors";
import { McpToolkit, type McpToolkitConfig } from "../src/index.js";
import { startDemoServer } from "../demo/server.js";

// search answers HTTP 503 twice before it works; transfer drops the connection after moving money.
const shop = await startDemoServer({ name: "shop", searchFailures: 2, only: ["search", "transfer", "slow_report"] });
const warehouse = await startDemoServer({ name: "warehouse", only: ["inventory"] });

const config: McpToolkitConfig = {
  servers: {
    shop: { transport: "http", url: shop.url, retry: { retries: 3 } }, // server layer: shop tools get 3 retries
    // No retry of its own, so the toolkit's applies. trustAnnotations: its readOnlyHint makes inventory idempotent.
    warehouse: { transport: "http", url: warehouse.url, trustAnnotations: true },
  },
  retry: { retries: 1, minTimeout: 50, maxTimeout: 1000, randomize: false }, // toolkit layer: the default for every tool (maxTimeout: a refused call waits up to 1 s for its server to listen again)
  timeoutMs: 20_000,
  tools: {
    "shop/*": { timeoutMs: 10_000 }, // a glob over <server>/<tool>
    search: { idempotent: true }, // an exact tool name: a repeated search is harmless
    transfer: { idempotent: false }, // moving money twice is not, whatever the annotations say
    // <server>/<tool> is the most specific key; a fallback function answers when retries cannot help.
    "shop/slow_report": { timeoutMs: 300, fallback: async (args) => `Yesterday's cached report for ${String(args.quarter)}.` },
  },
  // Events show each decision as it happens: feed them to your logs or metrics.
  onEvent: (e) => {
    if (e.type === "retry") console.log(`  ↻ ${e.toolName}: attempt ${e.attempt} failed (${e.error.reason}); retrying in ${e.delayMs} ms`);
    if (e.type === "fallback") console.log(`  ⤷ ${e.toolName}: ${e.error.reason}; the ${e.fallback} fallback answered`);
  },
};
const toolkit = await McpToolkit.connect(config);

console.log("Resolved policies:");
for (const tool of toolkit.getTools()) {
  // policyOf shows what every layer of your config added up to for this tool.
  const p = toolkit.policyOf(tool.name)!;
  console.log(`  ${tool.metadata.serverName}/${tool.name}: retries=${p.retry.retries} timeoutMs=${p.timeoutMs} idempotent=${p.idempotent} fallback=${typeof p.fallback}`);
}

const call = async (name: string, args: Record<string, unknown>) => {
  console.log(`\n${name}(${JSON.stringify(args)})`);
  const text = String(await toolkit.getTool(name)!.invoke(args));
  console.log(`  → ${text.replaceAll("\n", "\n    ")}`);
};

try {
  await call("search", { query: "mcp" }); // 503 is `not_sent`: retried (3 retries from the server layer)
  // Outcome unknown on a write that is not idempotent: repeated only because it carries an idempotency key
  // (its schema has one; the model never sees it), and the server replays the first result.
  await call("transfer", { from: "acct-1", to: "acct-2", amount: 250 });
  console.log(`  (transfer ran ${shop.executions.get("transfer")} time on the server)`);
  await call("slow_report", { quarter: "Q3" }); // times out at 300 ms, the fallback function answers
  await warehouse.close(); // the warehouse goes down: inventory (idempotent) gets the toolkit's single retry
  await call("inventory", { sku: "MCP-1" });
} finally {
  await toolkit.close();
  await Promise.allSettled([shop.close(), warehouse.close()]); // closing twice is harmless
}

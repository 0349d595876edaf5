/**
 * `npm run demo`: an agent (createAgent with a scripted fake model, so no API key is
 * needed) calls MCP tools that fail in realistic ways, and the terminal tells the story of
 * each call: what the model asked, each attempt, fallbacks and the circuit, and the exact
 * text the model then read.
 *
 * Flags: `--json` prints the events as JSON lines; `--model provider:name` uses a real model
 * through initChatModel when its API key is set and its package is installed.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel, initChatModel } from "langchain";
import { McpToolkit, type McpEvent, type McpToolErrorJSON } from "../src/index.js";
import { bold, describeEvent, dim, header, modelRead, table } from "./render.js";
import { startDemoServer } from "./server.js";

const argv = process.argv.slice(2);
const json = argv.includes("--json");
const modelFlag = argv.includes("--model") ? argv[argv.indexOf("--model") + 1] : undefined;
const out = (line: string) => {
  if (!json) console.log(line);
};

/** The calls the scripted model makes, one per turn, and how it reacts to what it reads. */
const SCRIPT: { name: string; args: Record<string, unknown> }[] = [
  { name: "search", args: { query: "mcp adapter" } },
  { name: "slow_report", args: { quarter: "Q3" } },
  { name: "transfer", args: { from: "acct-1", to: "acct-2", amount: 250 } },
  { name: "send_sms", args: { to: "+15550100", text: "Your order shipped" } },
  { name: "create_ticket", args: { title: "Refund request", priority: "urgent!!" } },
  { name: "create_ticket", args: { title: "Refund request", priority: "high" } },
  { name: "inventory", args: { sku: "MCP-1" } },
  { name: "inventory", args: { sku: "MCP-2" } },
];

async function chooseModel() {
  if (modelFlag) {
    if (!process.env.OPENAI_API_KEY && !process.env.ANTHROPIC_API_KEY) {
      console.error("--model needs OPENAI_API_KEY or ANTHROPIC_API_KEY; using the scripted model instead.");
    } else {
      try {
        return await initChatModel(modelFlag);
      } catch (error) {
        console.error(`Could not load ${modelFlag} (${(error as Error).message}); using the scripted model instead.`);
      }
    }
  }
  let model = fakeModel();
  SCRIPT.forEach((call, i) => {
    model = model.respondWithTools([{ ...call, id: `call_${i + 1}` }]);
  });
  return model.respond(new AIMessage("Done: search worked after retries; the transfer went through once, retried under its idempotency key."));
}

async function main(): Promise<void> {
  const shop = await startDemoServer({ name: "shop", searchFailures: 2, only: ["search", "slow_report", "transfer", "send_sms", "create_ticket"] });
  const warehouse = await startDemoServer({ name: "warehouse", only: ["inventory"] });
  const mirror = await startDemoServer({ name: "warehouse-mirror", only: ["inventory"] });
  let pending: McpEvent[] = [];

  const toolkit = await McpToolkit.connect({
    servers: {
      shop: { transport: "http", url: shop.url, trustAnnotations: true },
      warehouse: { transport: "http", url: warehouse.url, trustAnnotations: true, fallback: "mirror", breaker: { failureThreshold: 1 } },
      mirror: { transport: "http", url: mirror.url, exposeTools: false },
    },
    // maxTimeout: how long a call waits for a refused server to listen again (5 s by default); the warehouse stays down, so 1 s keeps the demo short.
    retry: { retries: 2, minTimeout: 100, maxTimeout: 1000, randomize: false },
    tools: { slow_report: { timeoutMs: 400 } },
    onEvent: (e) => {
      pending.push(e);
      if (json) console.log(JSON.stringify("error" in e && e.error ? { ...e, error: e.error.toJSON() } : e));
    },
  });

  out(bold("langchain-mcp-errors demo: an agent against MCP tools that fail the way real servers do"));
  out(dim(`MCP servers on 127.0.0.1: shop ${shop.url}, warehouse (fallback: mirror). Model: ${modelFlag ?? "scripted fake model"}.`));

  const agent = createAgent({ model: await chooseModel(), tools: toolkit.getTools() });
  let step = 0;
  let warehouseDown = false;
  const tally = { calls: 0, retries: 0, recovered: 0, permanent: 0, unknown: 0 };
  const stream = await agent.stream({ messages: [{ role: "user", content: "Run the morning checks." }] }, { streamMode: "updates", recursionLimit: 40 });
  for await (const update of stream) {
    for (const node of Object.values(update as Record<string, { messages?: BaseMessage[] }>)) {
      for (const message of node?.messages ?? []) {
        if (AIMessage.isInstance(message) && message.tool_calls?.length) {
          for (const tc of message.tool_calls) {
            out(header(++step, tc.name, tc.args));
            if (tc.name === "inventory" && !warehouseDown) {
              warehouseDown = true;
              await warehouse.close();
              out(dim("    (the warehouse server has just gone down)"));
            }
          }
          pending = pending.filter((e) => e.type !== "call");
        } else if (ToolMessage.isInstance(message)) {
          for (const e of pending) {
            const line = describeEvent(e);
            if (line) out(line);
          }
          const retries = pending.filter((e) => e.type === "retry").length;
          const error = message.status === "error" ? (message.artifact as McpToolErrorJSON) : undefined;
          tally.calls++;
          tally.retries += retries;
          if (!error && (retries > 0 || pending.some((e) => e.type === "fallback"))) tally.recovered++;
          if (error && !error.transient) tally.permanent++;
          if (error?.outcome === "unknown") tally.unknown++;
          pending = [];
          out(modelRead(String(message.content), message.status !== "error"));
        } else if (AIMessage.isInstance(message)) {
          out(`\n${bold("The model's answer:")} ${String(message.content)}`);
        }
      }
    }
  }

  out(`\n${bold("Summary")}`);
  out(
    table([
      ["tool calls", tally.calls],
      ["retries", tally.retries],
      ["recovered by a retry or a fallback", tally.recovered],
      ["failed permanently (no retry)", tally.permanent],
      ["failed with outcome unknown", tally.unknown],
      ["executions of the non-idempotent transfer", shop.executions.get("transfer") ?? 0],
      ["transfer sends under its one idempotency key", shop.transferKeys.length],
    ]),
  );
  const transferKeys = new Set(shop.transferKeys);
  if (shop.transferKeys.length > 1 && transferKeys.size === 1) {
    out(dim(`  The transfer's reply was lost after it ran; it was retried under its key ${[...transferKeys][0]}, and the server answered the first result: it ran once.`));
  }

  await toolkit.close();
  await Promise.allSettled([shop.close(), mirror.close(), warehouseDown ? Promise.resolve() : warehouse.close()]);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

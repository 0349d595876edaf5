/**
 * Evaluating an agent under failing tools before production, with the `chaos` option: the same
 * 20 questions, once against a calm server and once with 40% of the tool's attempts failing in
 * the shapes production brings (503s, connections reset mid-answer, the tool's own errors). The
 * faults are injected at the transport, so the toolkit's retries and the model's text meet them
 * as they would meet the real ones; `seed` makes the run repeatable.
 * Run: npx tsx examples/chaos-eval.ts (no API key: the model is scripted).
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
// In your project: import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig } from "langchain-mcp-errors";
import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig } from "../src/index.js";
import { startDemoServer } from "../demo/server.js";

const QUESTIONS = 20;
const server = await startDemoServer({ name: "shop", only: ["search"] });

interface Outcome {
  answered: number;
  errorsSeen: Record<string, number>;
  injected: Record<string, number>;
  retries: number;
}

/** Runs the 20 questions through an agent on a toolkit with `extra` settings; what happened. */
async function evaluate(extra: Partial<McpToolkitConfig>): Promise<Outcome> {
  const outcome: Outcome = { answered: 0, errorsSeen: {}, injected: {}, retries: 0 };
  const count = (into: Record<string, number>, key: string) => (into[key] = (into[key] ?? 0) + 1);
  const onEvent = (e: McpEvent) => {
    if (e.type !== "retry" && e.type !== "error") return;
    const chaos = (e.error.data as { chaos?: string } | undefined)?.chaos;
    if (chaos) count(outcome.injected, chaos);
    if (e.type === "retry") outcome.retries++;
  };
  const toolkit = await McpToolkit.connect({
    servers: { shop: { transport: "http", url: server.url, trustAnnotations: true } },
    retry: { retries: 2, minTimeout: 20, maxRetryAfterMs: 0 },
    onEvent,
    ...extra,
  });
  try {
    for (let i = 0; i < QUESTIONS; i++) {
      // A scripted model: it searches once, then answers from what the tool gave it.
      const model = fakeModel()
        .respondWithTools([{ name: "search", args: { query: `item ${i}` }, id: `call_${i}` }])
        .respond((messages: BaseMessage[]) => new AIMessage(String(messages.filter((m) => ToolMessage.isInstance(m)).at(-1)?.content)));
      const agent = createAgent({ model, tools: toolkit.getTools() });
      const result = await agent.invoke({ messages: [{ role: "user", content: `Find item ${i}.` }] });
      const reply = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m)) as ToolMessage;
      if (reply.status === "error") count(outcome.errorsSeen, (reply.artifact as McpToolErrorJSON).reason);
      else outcome.answered++;
    }
  } finally {
    await toolkit.close();
  }
  return outcome;
}

const show = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";

try {
  const calm = await evaluate({});
  const mix = { rate: 0.4, faults: [{ kind: "http_503" as const, weight: 2, retryAfterS: 0 }, "reset_after" as const, "is_error" as const], seed: 7 };
  const stormy = await evaluate({ chaos: mix });
  for (const [name, o] of [["calm", calm], ["chaos", stormy]] as const) {
    console.log(`${name}: ${o.answered}/${QUESTIONS} answered from the tool; faults injected: ${show(o.injected)}; retries: ${o.retries}; errors the model read: ${show(o.errorsSeen)}`);
  }
  // The retries absorb the transport's faults; the tool's own errors reach the model, which must cope.
  console.log(`retries absorbed ${stormy.retries} of the faults; the model saw ${QUESTIONS - stormy.answered} failed searches, each one readable line`);
} finally {
  await server.close();
}

/**
 * OpenTelemetry: the trace of a retried call, exported to the console. The toolkit uses only
 * `@opentelemetry/api`; the application registers the SDK (here by hand; `NodeSDK` from
 * `@opentelemetry/sdk-node` does the same and exports over OTLP). With nothing registered,
 * the toolkit records nothing and costs nothing.
 * Run: npx tsx examples/otel-trace.ts
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, ConsoleSpanExporter, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { ToolMessage } from "@langchain/core/messages";
// In your project: import { McpToolkit } from "langchain-mcp-errors";
import { McpToolkit } from "../src/index.js";
import { startDemoServer } from "../demo/server.js";

// The console exporter prints every span as it ends; the in-memory one lets us draw the tree below.
const memory = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter()), new SimpleSpanProcessor(memory)] });
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()); // so spans nest across awaits
propagation.setGlobalPropagator(new W3CTraceContextPropagator()); // writes `traceparent` into each request's _meta

// search answers HTTP 503 once ("upstream search index is rebuilding"), then works.
const shop = await startDemoServer({ name: "shop", searchFailures: 1, only: ["search"] });
const toolkit = await McpToolkit.connect({
  servers: { shop: { transport: "http", url: shop.url, trustAnnotations: true } },
  retry: { minTimeout: 50, randomize: false },
});

try {
  const reply = (await toolkit.getTool("search")!.invoke({ type: "tool_call", id: "call_1", name: "search", args: { query: "mcp" } })) as ToolMessage;
  console.log(`\nthe model read: ${String(reply.content)}\n`);
  printTree(memory.getFinishedSpans());
} finally {
  await toolkit.close();
  await shop.close();
  await provider.shutdown();
}

/** The exported spans as a tree: the call span, its events, and one child span per attempt. */
function printTree(spans: ReadableSpan[]): void {
  const call = spans.find((s) => s.name.startsWith("execute_tool"))!;
  const a = call.attributes;
  console.log(`${call.name}: ${String(a["langchain_mcp.attempts"])} attempts, tool call ${String(a["gen_ai.tool.call.id"])}, circuit ${String(a["langchain_mcp.circuit.state"])}`);
  for (const event of call.events) {
    const e = event.attributes ?? {};
    console.log(`  • ${event.name}: retry after ${String(e["error.type"])}, waited ${String(e["langchain_mcp.retry.delay_ms"])} ms`);
  }
  const attempts = spans.filter((s) => s.parentSpanContext?.spanId === call.spanContext().spanId);
  for (const span of attempts.sort((x, y) => Number(x.attributes["langchain_mcp.attempt"]) - Number(y.attributes["langchain_mcp.attempt"]))) {
    const s = span.attributes;
    const result = s["error.type"] ? `${String(s["error.type"])} (HTTP ${String(s["http.response.status_code"])})` : "ok";
    console.log(`  └ ${span.name} #${String(s["langchain_mcp.attempt"])}: ${result}; ${String(s["network.transport"])} to ${String(s["server.address"])}:${String(s["server.port"])}, MCP ${String(s["mcp.protocol.version"])}`);
  }
  console.log(`\nEach attempt's request carried its own span in _meta.traceparent (00-${call.spanContext().traceId}-<attempt span id>-01).`);
}

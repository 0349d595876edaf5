/**
 * OpenTelemetry against a real streamable-HTTP server: the SDK's in-memory exporters receive
 * what an application's backend would, and a server of the test's own records the `_meta`
 * of every tools/call it serves.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Histogram } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit } from "../../src/index.js";
import { EVENTS, METRICS, OURS, SEMCONV } from "../../src/telemetry/attributes.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { registerSdk, type TestSdk } from "./sdk.js";

const cleanups = closeAfterEach();

/** A server whose `lookup` tool records the `_meta` of each request it serves. */
function recordingServer(seen: (Record<string, unknown> | undefined)[]): McpServer {
  const server = new McpServer({ name: "recorder", version: "1.0.0" });
  server.registerTool("lookup", { description: "Looks a key up.", inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } }, async ({ key }, extra) => {
    seen.push(extra._meta as Record<string, unknown> | undefined);
    return { content: [{ type: "text", text: `value of ${key}` }] };
  });
  return server;
}

async function connect(http: HttpFixture, secret = "tok-123456789abcdef"): Promise<McpToolkit> {
  const toolkit = await McpToolkit.connect({
    servers: { kv: { transport: "http", url: http.url.href, headers: { Authorization: `Bearer ${secret}` }, trustAnnotations: true } },
    retry: { retries: 2, minTimeout: 20, randomize: false },
  });
  cleanups.push(() => toolkit.close());
  return toolkit;
}

describe("without an OpenTelemetry SDK", () => {
  it("sends no trace context and records nothing", async () => {
    const seen: (Record<string, unknown> | undefined)[] = [];
    const http = await startHttpFixture({ build: () => recordingServer(seen) });
    cleanups.push(() => http.close());
    const toolkit = await connect(http);
    const reply = (await toolkit.getTool("lookup")!.invoke({ type: "tool_call", id: "c0", name: "lookup", args: { key: "a" } })) as ToolMessage;
    expect(reply.content).toBe("value of a");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.traceparent).toBeUndefined();
  });
});

describe("with an OpenTelemetry SDK registered", () => {
  let sdk: TestSdk;
  beforeAll(() => {
    sdk = registerSdk();
  });
  afterAll(async () => {
    await sdk.shutdown();
  });
  beforeEach(() => sdk.reset());

  it("traces a retried call: one call span, two attempt spans, the retry event and the attempt's traceparent in _meta", async () => {
    const seen: (Record<string, unknown> | undefined)[] = [];
    const http = await startHttpFixture({ build: () => recordingServer(seen) });
    cleanups.push(() => http.close());
    const toolkit = await connect(http);
    http.failNext(503, { body: "upstream rebuilding" });

    const reply = (await toolkit.getTool("lookup")!.invoke({ type: "tool_call", id: "call_42", name: "lookup", args: { key: "b" } })) as ToolMessage;
    expect(reply.content).toBe("value of b");

    const spans = sdk.spans();
    const calls = spans.filter((s) => s.name === "execute_tool lookup");
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(call.attributes).toMatchObject({
      [SEMCONV.GEN_AI_OPERATION_NAME]: "execute_tool",
      [SEMCONV.GEN_AI_TOOL_NAME]: "lookup",
      [SEMCONV.GEN_AI_TOOL_CALL_ID]: "call_42",
      [SEMCONV.GEN_AI_TOOL_DESCRIPTION]: "Looks a key up.",
      [SEMCONV.MCP_METHOD_NAME]: "tools/call",
      [OURS.SERVER_NAME]: "kv",
      [OURS.ATTEMPTS]: 2,
      [OURS.CIRCUIT_STATE]: "closed",
    });
    expect(call.attributes[SEMCONV.ERROR_TYPE]).toBeUndefined();
    expect(call.status.code).not.toBe(SpanStatusCode.ERROR);

    const retry = call.events.find((e) => e.name === EVENTS.RETRY);
    expect(retry?.attributes).toMatchObject({ [OURS.ATTEMPT]: 1, [SEMCONV.ERROR_TYPE]: "service_unavailable", [OURS.RETRY_DELAY_MS]: 20 });

    const attempts = spans.filter((s) => s.name === "tools/call lookup").sort((a, b) => Number(a.attributes[OURS.ATTEMPT]) - Number(b.attributes[OURS.ATTEMPT]));
    expect(attempts).toHaveLength(2);
    for (const a of attempts) {
      expect(a.kind).toBe(SpanKind.CLIENT);
      expect(a.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(a.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(a.attributes).toMatchObject({
        [SEMCONV.MCP_METHOD_NAME]: "tools/call",
        [SEMCONV.GEN_AI_OPERATION_NAME]: "execute_tool",
        [SEMCONV.GEN_AI_TOOL_NAME]: "lookup",
        [SEMCONV.NETWORK_TRANSPORT]: "tcp",
        [SEMCONV.NETWORK_PROTOCOL_NAME]: "http",
        [SEMCONV.SERVER_ADDRESS]: "127.0.0.1",
        [SEMCONV.SERVER_PORT]: http.port,
      });
      expect(a.attributes[SEMCONV.MCP_SESSION_ID]).toEqual(expect.any(String));
      expect(a.attributes[SEMCONV.MCP_PROTOCOL_VERSION]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const [first, second] = attempts as [(typeof attempts)[0], (typeof attempts)[0]];
    expect(first.attributes).toMatchObject({ [SEMCONV.ERROR_TYPE]: "service_unavailable", [SEMCONV.HTTP_RESPONSE_STATUS_CODE]: 503 });
    expect(first.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringContaining("upstream rebuilding") });
    expect(second.attributes[SEMCONV.ERROR_TYPE]).toBeUndefined();

    // The 503 never reached the MCP server; the request it served carried the second attempt's context.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.traceparent).toBe(`00-${second.spanContext().traceId}-${second.spanContext().spanId}-01`);

    const perAttempt = await sdk.points(METRICS.OPERATION_DURATION);
    expect(perAttempt.map((p) => p.attributes[SEMCONV.ERROR_TYPE] ?? "ok").sort()).toEqual(["ok", "service_unavailable"]);
    for (const p of perAttempt) expect(p.attributes[SEMCONV.MCP_SESSION_ID]).toBeUndefined();
    const perCall = await sdk.points(METRICS.CALL_DURATION);
    expect(perCall).toHaveLength(1);
    expect(perCall[0]!.attributes).toMatchObject({ [OURS.SERVER_NAME]: "kv", [SEMCONV.GEN_AI_TOOL_NAME]: "lookup", [OURS.RESULT]: "ok" });
    expect((perCall[0]!.value as Histogram).count).toBe(1);
    const retries = await sdk.points(METRICS.RETRIES);
    expect(retries.map((p) => [p.attributes[SEMCONV.ERROR_TYPE], p.value])).toEqual([["service_unavailable", 1]]);
  });

  it("records a circuit that opens: the span event, the call's circuit state and the gauge", async () => {
    const http = await startHttpFixture({ build: () => recordingServer([]) });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: { kv: { transport: "http", url: http.url.href, breaker: { failureThreshold: 1, halfOpenAfterMs: 60_000 } } },
      retry: { retries: 0 },
    });
    cleanups.push(() => toolkit.close());
    http.failNext(503);

    const reply = (await toolkit.getTool("lookup")!.invoke({ type: "tool_call", id: "c3", name: "lookup", args: { key: "d" } })) as ToolMessage;
    expect(reply.status).toBe("error");
    const call = sdk.spans().find((s) => s.name === "execute_tool lookup")!;
    expect(call.attributes[OURS.CIRCUIT_STATE]).toBe("open");
    expect(call.events.find((e) => e.name === EVENTS.CIRCUIT)?.attributes).toEqual({ [OURS.SERVER_NAME]: "kv", [OURS.CIRCUIT_STATE]: "open" });
    const gauge = await sdk.points(METRICS.CIRCUIT_STATE);
    expect(gauge.map((p) => [p.attributes[OURS.SERVER_NAME], p.value])).toEqual([["kv", 2]]);
  });

  it("marks a failed call with error.type, outcome and a redacted status message", async () => {
    const secret = "tok-abcdef0123456789";
    const http = await startHttpFixture({ build: () => recordingServer([]) });
    cleanups.push(() => http.close());
    const toolkit = await connect(http, secret);
    http.failNext(400, { count: 1, body: `bad request, token ${secret}` });

    const reply = (await toolkit.getTool("lookup")!.invoke({ type: "tool_call", id: "c2", name: "lookup", args: { key: "c" } })) as ToolMessage;
    expect(reply.status).toBe("error");
    const call = sdk.spans().find((s) => s.name === "execute_tool lookup")!;
    expect(call.attributes).toMatchObject({ [SEMCONV.ERROR_TYPE]: "http_error", [OURS.OUTCOME]: "not_sent", [OURS.TRANSIENT]: false, [OURS.ATTEMPTS]: 1 });
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.status.message).not.toContain(secret);
    const perCall = await sdk.points(METRICS.CALL_DURATION);
    expect(perCall.some((p) => p.attributes[OURS.RESULT] === "error" && p.attributes[SEMCONV.ERROR_TYPE] === "http_error")).toBe(true);
  });

  it("traces a hedged call: one call span, a span for each attempt with its own traceparent, and the hedge events", async () => {
    const seen: (Record<string, unknown> | undefined)[] = [];
    let calls = 0;
    let cancelled = false;
    const http = await startHttpFixture({
      build: () => {
        const server = new McpServer({ name: "hedged", version: "1.0.0" });
        server.registerTool("lookup", { description: "Looks a key up.", inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } }, async ({ key }, extra) => {
          seen.push(extra._meta as Record<string, unknown> | undefined);
          // The first request stalls until it is cancelled; the hedge answers.
          if (++calls === 1) {
            await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
            cancelled = true;
          }
          return { content: [{ type: "text", text: `value of ${key}` }] };
        });
        return server;
      },
    });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: { kv: { transport: "http", url: http.url.href, trustAnnotations: true } },
      tools: { lookup: { hedge: { delayMs: 50 } } },
    });
    cleanups.push(() => toolkit.close());

    const reply = (await toolkit.getTool("lookup")!.invoke({ type: "tool_call", id: "h1", name: "lookup", args: { key: "e" } })) as ToolMessage;
    expect(reply.content).toBe("value of e");
    await expect.poll(() => cancelled).toBe(true);

    const spans = sdk.spans();
    const call = spans.filter((s) => s.name === "execute_tool lookup");
    expect(call).toHaveLength(1);
    const attempts = spans.filter((s) => s.name === "tools/call lookup").sort((a, b) => Number(a.attributes[OURS.ATTEMPT]) - Number(b.attributes[OURS.ATTEMPT]));
    expect(attempts.map((a) => a.attributes[OURS.ATTEMPT])).toEqual([1, 2]);
    for (const a of attempts) expect(a.parentSpanContext?.spanId).toBe(call[0]!.spanContext().spanId);
    // The cancelled attempt's span ends as cancelled; each request carried its own attempt's context.
    expect(attempts[0]!.attributes[SEMCONV.ERROR_TYPE]).toBe("cancelled");
    expect(attempts[1]!.attributes[SEMCONV.ERROR_TYPE]).toBeUndefined();
    expect(seen.map((m) => m?.traceparent)).toEqual(attempts.map((a) => `00-${a.spanContext().traceId}-${a.spanContext().spanId}-01`));
    const hedges = call[0]!.events.filter((e) => e.name === EVENTS.HEDGE).map((e) => [e.attributes?.[OURS.ATTEMPT], e.attributes?.[OURS.HEDGE_OUTCOME]]);
    expect(hedges).toEqual([
      [2, "sent"],
      [2, "won"],
      [1, "lost"],
    ]);
  });
});

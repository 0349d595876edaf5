/**
 * SEP-3304 (proposed): JSON-RPC error -32023 RateLimited, its `data` typed as
 * `{ retryAfterMs, limit?, remaining? }`; over HTTP it comes with a 429 whose Retry-After it
 * overrides (RL-9). Real v2 and v1 servers throw it from their tools/call handler; the toolkit
 * reads `rate_limited`, keeps the wait in `retryAfterMs`, and retries no sooner than that.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ProtocolError, Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import type { McpToolErrorJSON, RetryEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { startV2Http } from "../servers/v2/http.js";
import { toolkitFor } from "../network/helpers.js";
import { rejectionOf } from "./helpers.js";

const cleanups = closeAfterEach();
const TOOL = { name: "search", description: "Searches; limited to a few calls a minute.", inputSchema: { type: "object" as const, properties: { q: { type: "string" } } } };

/** How many calls the server refused and answered, shared by the per-request server instances. */
interface Limits {
  /** Calls to refuse before answering. */
  refuse: number;
  refused: number;
  answered: number;
}

/** A low-level v2 server whose tools/call throws RateLimited while `limits.refuse` lasts. */
function v2Limited(limits: Limits, data: unknown): Server {
  const server = new Server({ name: "limited-v2", version: "2.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [TOOL] }));
  server.setRequestHandler("tools/call", async () => {
    if (limits.refused < limits.refuse) {
      limits.refused++;
      throw new ProtocolError(-32023, "Too many searches", data);
    }
    limits.answered++;
    return { content: [{ type: "text" as const, text: "found 3" }] };
  });
  return server;
}

/** The same on the v1 SDK, throwing McpError. */
function v1Limited(limits: Limits, data: unknown): V1Server {
  const server = new V1Server({ name: "limited-v1", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    if (limits.refused < limits.refuse) {
      limits.refused++;
      throw new McpError(-32023, "Too many searches", data);
    }
    limits.answered++;
    return { content: [{ type: "text" as const, text: "found 3" }] };
  });
  return server;
}

async function v2Endpoint(limits: Limits, data: unknown) {
  const http = await startV2Http({ mode: "modern", build: () => v2Limited(limits, data) });
  cleanups.push(() => http.close());
  return http;
}

const retries = (events: { type: string }[]) => events.filter((e): e is RetryEvent => e.type === "retry");

describe("-32023 RateLimited from a real v2 server (2026-07-28 era)", () => {
  it("retries no sooner than data.retryAfterMs, then succeeds", async () => {
    const limits = { refuse: 1, refused: 0, answered: 0 };
    const http = await v2Endpoint(limits, { retryAfterMs: 300, limit: 5, remaining: 0 });
    const { call, events } = await toolkitFor(http.url);
    const started = performance.now();
    expect(await call("search", { q: "x" })).toEqual({ status: "success", content: "found 3" });
    // A lower bound only: the wait the server asked for was kept.
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(limits).toEqual({ refuse: 1, refused: 1, answered: 1 });
    const [retry] = retries(events);
    expect(retry!.delayMs).toBeGreaterThanOrEqual(300);
    expect(retry!.error).toMatchObject({ reason: "rate_limited", kind: "protocol", code: -32023, retryAfterMs: 300, transient: true, outcome: "not_sent" });
  });

  it("carries the wait and the quota in the error when the retries run out", async () => {
    const limits = { refuse: 99, refused: 0, answered: 0 };
    const http = await v2Endpoint(limits, { retryAfterMs: 20, limit: 5, remaining: 0 });
    const { call } = await toolkitFor(http.url, {}, { retry: { retries: 1, minTimeout: 5, maxTimeout: 5_000, randomize: false } });
    const reply = await call("search", { q: "x" });
    expect(reply.error).toMatchObject({ reason: "rate_limited", code: -32023, retryAfterMs: 20, attempts: 2 } satisfies Partial<McpToolErrorJSON>);
    expect(reply.error!.message).toBe("Too many searches (limit 5, 0 remaining)");
    expect(limits.refused).toBe(2);
  });

  it("classifies the v2 client's own ProtocolError the same, without any context", async () => {
    const limits = { refuse: 1, refused: 0, answered: 0 };
    const http = await v2Endpoint(limits, { retryAfterMs: 1500 });
    const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    cleanups.push(() => client.close());
    const error = await rejectionOf(client.callTool({ name: "search", arguments: {} }));
    expect(error).toMatchObject({ name: "ProtocolError", code: -32023, data: { retryAfterMs: 1500 } });
    expect(normalize(error)).toMatchObject({ reason: "rate_limited", transient: true, outcome: "not_sent", code: -32023, retryAfterMs: 1500 });
  });
});

describe("-32023 RateLimited from a real v1 server (2025 era)", () => {
  it("reads a -32023 without data.retryAfterMs as a code it cannot read: server_error, outcome unknown, not repeated", async () => {
    // SEP-3304: -32023 is also seen in the wild meaning other things; only its stated wait makes it RateLimited.
    const limits = { refuse: 1, refused: 0, answered: 0 };
    const http = await startHttpFixture({ build: () => v1Limited(limits, undefined) });
    cleanups.push(() => http.close());
    const { call, events } = await toolkitFor(http.url);
    expect((await call("search", { q: "x" })).error).toMatchObject({ reason: "server_error", code: -32023, transient: false, outcome: "unknown", attempts: 1 });
    expect(limits).toMatchObject({ refused: 1, answered: 0 });
    expect(retries(events)).toEqual([]);
  });

  it("honours data.retryAfterMs over the 2025 transport too", async () => {
    const limits = { refuse: 1, refused: 0, answered: 0 };
    const http = await startHttpFixture({ build: () => v1Limited(limits, { retryAfterMs: 250 }) });
    cleanups.push(() => http.close());
    const { call, events } = await toolkitFor(http.url);
    expect(await call("search", { q: "x" })).toMatchObject({ status: "success" });
    expect(retries(events)[0]!.delayMs).toBeGreaterThanOrEqual(250);
    expect(retries(events)[0]!.error.retryAfterMs).toBe(250);
  });
});

describe("HTTP 429 carrying -32023 (SEP-3304 over HTTP)", () => {
  it("waits data.retryAfterMs, not the Retry-After header, when both are given (RL-9)", async () => {
    const limits = { refuse: 0, refused: 0, answered: 0 };
    const http = await v2Endpoint(limits, undefined);
    const { call, events } = await toolkitFor(http.url);
    const body = { jsonrpc: "2.0", id: null, error: { code: -32023, message: "Too many requests", data: { retryAfterMs: 200, limit: 60, remaining: 0 } } };
    http.failNext(429, 1, { headers: { "retry-after": "60" }, contentType: "application/json", body: JSON.stringify(body) });
    // The header's 60 s would be the longest wait maxRetryAfterMs allows: the body's 200 ms wins.
    expect(await call("search", { q: "x" })).toEqual({ status: "success", content: "found 3" });
    const [retry] = retries(events);
    expect(retry!.error).toMatchObject({ reason: "rate_limited", status: 429, code: -32023, retryAfterMs: 200 });
    expect(retry!.error.message).toBe("HTTP 429: Too many requests (limit 60, 0 remaining)");
    expect(retry!.delayMs).toBeGreaterThanOrEqual(200);
    expect(retry!.delayMs).toBeLessThan(60_000);
  });
});

/**
 * The MCP Error Registry (draft) and SEP-3304 (draft) behind the one classification, each code
 * thrown by a real v2 server (`@modelcontextprotocol/server`) over HTTP on 127.0.0.1, with the
 * attempts counted on the server: -32023 only with `data.retryAfterMs`, -32024 Unavailable and
 * its `notProcessed` promise, -32026 StaleState tried once, the 2026-07-28 rule for unknown
 * codes, and a JSON-RPC body that governs over its HTTP status.
 */
import { ProtocolError, Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { McpToolErrorJSON, RetryEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startV2Http } from "../servers/v2/http.js";
import { toolkitFor } from "../network/helpers.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();

/** `write` is not idempotent; `read` is annotated read-only and idempotent (trusted where the test says). */
const TOOLS = [
  { name: "write", description: "Writes a record.", inputSchema: { type: "object" as const, properties: {} } },
  { name: "read", description: "Reads a page.", inputSchema: { type: "object" as const, properties: {} }, annotations: { readOnlyHint: true, idempotentHint: true } },
];

/** What the server refuses with, how often, and what it saw: shared by the per-request instances. */
interface Plan {
  code: number;
  data?: unknown;
  message?: string;
  refuse: number;
  refused: number;
  answered: number;
}

const plan = (code: number, data: unknown, refuse = 1): Plan => ({ code, data, refuse, refused: 0, answered: 0 });

async function endpoint(p: Plan) {
  const http = await startV2Http({
    mode: "modern",
    build: () => {
      const server = new Server({ name: "registry-v2", version: "2.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
      server.setRequestHandler("tools/call", async () => {
        if (p.refused < p.refuse) {
          p.refused++;
          throw new ProtocolError(p.code, p.message ?? "Refused", p.data);
        }
        p.answered++;
        return { content: [{ type: "text" as const, text: "done" }] };
      });
      return server;
    },
  });
  cleanups.push(() => http.close());
  return http;
}

const retries = (events: { type: string }[]) => events.filter((e): e is RetryEvent => e.type === "retry");
const RETRY = { retries: 3, minTimeout: 5, maxTimeout: 5_000, randomize: false };

describe("-32023 RateLimited (SEP-3304)", () => {
  it("is rate_limited with data.retryAfterMs, waits at least that long with jitter on, and succeeds", async () => {
    const p = plan(-32023, { retryAfterMs: 250 });
    const { call, events } = await toolkitFor((await endpoint(p)).url, {}, { retry: { ...RETRY, randomize: true } });
    expect(await call("write", {})).toEqual({ status: "success", content: "done" });
    expect(p).toMatchObject({ refused: 1, answered: 1 });
    const [retry] = retries(events);
    expect(retry!.error).toMatchObject({ reason: "rate_limited", code: -32023, retryAfterMs: 250, transient: true, outcome: "not_sent" });
    // The jitter only adds: never earlier than asked, at most 10 % later.
    expect(retry!.delayMs).toBeGreaterThanOrEqual(250);
    expect(retry!.delayMs).toBeLessThanOrEqual(275);
  });

  it("without data.retryAfterMs is an unknown code: server_error, outcome unknown, not retried even for a trusted idempotent tool", async () => {
    const p = plan(-32023, { reason: "quota" }, 9);
    const { call } = await toolkitFor((await endpoint(p)).url, { trustAnnotations: true }, { retry: RETRY });
    const reply = await call("read", {});
    expect(reply.error).toMatchObject({ reason: "server_error", code: -32023, transient: false, outcome: "unknown", attempts: 1 } satisfies Partial<McpToolErrorJSON>);
    expect(p.refused).toBe(1);
  });

  it("fails at once, naming the wait, when data.retryAfterMs is past maxRetryAfterMs", async () => {
    const p = plan(-32023, { retryAfterMs: 90_000 }, 9);
    const { call } = await toolkitFor((await endpoint(p)).url, {}, { retry: RETRY });
    const clock = stopwatch();
    const reply = await call("write", {});
    clock.within(10_000, "a call asked to wait 90 s, past maxRetryAfterMs");
    // Believed up to the bound: the server is held back 60 s at most, and the text says it asked for more.
    expect(reply.error).toMatchObject({ reason: "rate_limited", retryAfterMs: 60_000, data: { askedRetryAfterMs: 90_000 }, attempts: 1 });
    expect(reply.error!.message).toContain("The server asked to wait 90 s, longer than the retry policy allows (maxRetryAfterMs 60000 ms): calls to it are held back for 60 s at most.");
    expect(p.refused).toBe(1);
  });

  it("honours a wait past maxTimeout but within maxRetryAfterMs (the bound is the new option)", async () => {
    const p = plan(-32023, { retryAfterMs: 400 });
    const { call, events } = await toolkitFor((await endpoint(p)).url, {}, { retry: { ...RETRY, maxTimeout: 50 } });
    expect(await call("write", {})).toMatchObject({ status: "success" });
    expect(retries(events)[0]!.delayMs).toBeGreaterThanOrEqual(400);
    const refused = plan(-32023, { retryAfterMs: 400 }, 9);
    const limited = await toolkitFor((await endpoint(refused)).url, {}, { retry: { ...RETRY, maxRetryAfterMs: 300 } });
    expect((await limited.call("write", {})).error).toMatchObject({ reason: "rate_limited", attempts: 1 });
    expect(refused.refused).toBe(1);
  });
});

describe("-32024 Unavailable (Error Registry)", () => {
  it("with notProcessed is not_sent: a tool that is not idempotent is re-sent, and its data.reason is in the message", async () => {
    const p = plan(-32024, { reason: "maintenance", notProcessed: true });
    const { call, events } = await toolkitFor((await endpoint(p)).url, {}, { retry: RETRY });
    expect(await call("write", {})).toEqual({ status: "success", content: "done" });
    expect(p).toMatchObject({ refused: 1, answered: 1 });
    const [retry] = retries(events);
    expect(retry!.error).toMatchObject({ reason: "service_unavailable", kind: "protocol", code: -32024, transient: true, outcome: "not_sent" });
    expect(retry!.error.message).toContain("(maintenance)");
  });

  it("without notProcessed is outcome unknown: transient, but a tool that is not idempotent is not repeated", async () => {
    const p = plan(-32024, { reason: "overloaded" }, 9);
    const { call } = await toolkitFor((await endpoint(p)).url, {}, { retry: RETRY });
    const reply = await call("write", {});
    expect(reply.error).toMatchObject({ reason: "service_unavailable", code: -32024, transient: true, outcome: "unknown", attempts: 1 });
    expect(reply.error!.message).toContain("(overloaded)");
    expect(p.refused).toBe(1);
  });
});

describe("-32026 StaleState (Error Registry)", () => {
  it("is stale_state, not_sent, and retried once: the second attempt succeeds", async () => {
    const p = plan(-32026, { kind: "cursor" });
    const { call, events } = await toolkitFor((await endpoint(p)).url, {}, { retry: RETRY });
    expect(await call("write", {})).toEqual({ status: "success", content: "done" });
    expect(p).toMatchObject({ refused: 1, answered: 1 });
    expect(retries(events)[0]!.error).toMatchObject({ reason: "stale_state", kind: "protocol", code: -32026, transient: true, outcome: "not_sent", message: "Refused (stale cursor)" });
  });

  it("is tried once only, whatever the retry count", async () => {
    const p = plan(-32026, { kind: "task" }, 9);
    const { call } = await toolkitFor((await endpoint(p)).url, {}, { retry: { ...RETRY, retries: 5 } });
    const reply = await call("write", {});
    expect(reply.error).toMatchObject({ reason: "stale_state", attempts: 2 });
    expect(p.refused).toBe(2);
  });
});

describe("unknown codes on the 2026-07-28 era", () => {
  it("a code in -32020..-32099 nobody registered is not retried, even for a trusted idempotent tool", async () => {
    const p = plan(-32050, undefined, 9);
    const { call } = await toolkitFor((await endpoint(p)).url, { trustAnnotations: true }, { retry: RETRY });
    expect((await call("read", {})).error).toMatchObject({ reason: "server_error", code: -32050, transient: false, outcome: "unknown", attempts: 1 });
    expect(p.refused).toBe(1);
  });

  it("the same code with data.retryAfterMs is retried after the wait", async () => {
    const p = plan(-32050, { retryAfterMs: 30 });
    const { call } = await toolkitFor((await endpoint(p)).url, {}, { retry: RETRY });
    expect(await call("write", {})).toMatchObject({ status: "success" });
    expect(p).toMatchObject({ refused: 1, answered: 1 });
  });

  it("-32005 means only what errorCodes says: a plain server error, or the configured reason", async () => {
    const plain = plan(-32005, undefined, 9);
    const first = await toolkitFor((await endpoint(plain)).url, { trustAnnotations: true }, { retry: RETRY });
    // A server error may be repeated for a trusted idempotent tool (transient, outcome unknown).
    expect((await first.call("read", {})).error).toMatchObject({ reason: "server_error", code: -32005, transient: true, attempts: 4 });
    const mapped = plan(-32005, undefined, 1);
    const second = await toolkitFor((await endpoint(mapped)).url, { errorCodes: { [-32005]: { reason: "rate_limited" } } }, { retry: RETRY });
    expect(await second.call("write", {})).toMatchObject({ status: "success" });
    expect(mapped).toMatchObject({ refused: 1, answered: 1 });
  });
});

describe("a JSON-RPC body governs over its HTTP status", () => {
  const body = (code: number, data: unknown) => JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message: "Unavailable", data } });

  it("a 503 whose body is -32024 without notProcessed is outcome unknown (a bare 503 is not_sent), and not repeated", async () => {
    const p = plan(0, undefined, 0);
    const http = await endpoint(p);
    const { call } = await toolkitFor(http.url, {}, { retry: RETRY });
    http.failNext(503, 1, { contentType: "application/json", body: body(-32024, { reason: "draining" }) });
    const reply = await call("write", {});
    expect(reply.error).toMatchObject({ reason: "service_unavailable", status: 503, code: -32024, outcome: "unknown", attempts: 1 });
    expect(reply.error!.message).toContain("(draining)");
    expect(p.answered).toBe(0);
  });

  it("a 503 whose body is -32024 with notProcessed is re-sent for a tool that is not idempotent", async () => {
    const p = plan(0, undefined, 0);
    const http = await endpoint(p);
    const { call, events } = await toolkitFor(http.url, {}, { retry: RETRY });
    http.failNext(503, 1, { contentType: "application/json", body: body(-32024, { reason: "draining", notProcessed: true }) });
    expect(await call("write", {})).toEqual({ status: "success", content: "done" });
    expect(retries(events)[0]!.error).toMatchObject({ reason: "service_unavailable", status: 503, code: -32024, outcome: "not_sent" });
    expect(p.answered).toBe(1);
  });

  it("a 500 whose body is -32026 is stale_state, tried once", async () => {
    const p = plan(0, undefined, 0);
    const http = await endpoint(p);
    const { call, events } = await toolkitFor(http.url, {}, { retry: RETRY });
    http.failNext(500, 1, { contentType: "application/json", body: body(-32026, { kind: "cursor" }) });
    expect(await call("write", {})).toMatchObject({ status: "success" });
    expect(retries(events)[0]!.error).toMatchObject({ reason: "stale_state", status: 500, code: -32026, outcome: "not_sent" });
  });
});

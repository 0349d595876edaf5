/**
 * A server's bulkhead (`maxConcurrent`, `maxQueue`): a burst of parallel calls reaches the
 * server at most `maxConcurrent` at a time; the rest wait their turn within their timeout and
 * their caller's signal; past the queue a call fails at once, bulkhead_full, unsent.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** A server whose `work` tool takes `ms` and records how many ran at once. */
function countingServer(seen: { now: number; most: number; ran: number }) {
  const server = new McpServer({ name: "counting", version: "1.0.0" });
  const work = async ({ ms }: { ms: number }) => {
    seen.now++;
    seen.ran++;
    seen.most = Math.max(seen.most, seen.now);
    await new Promise((resolve) => setTimeout(resolve, ms));
    seen.now--;
    return { content: [{ type: "text" as const, text: "done" }] };
  };
  server.registerTool("work", { description: "Works for ms.", inputSchema: { ms: z.number() }, annotations: { readOnlyHint: true } }, work);
  server.registerTool("long", { description: "Works for ms, under a long timeout.", inputSchema: { ms: z.number() }, annotations: { readOnlyHint: true } }, work);
  return server;
}

async function toolkitWith(server: Record<string, unknown>, toolkit: Record<string, unknown> = {}) {
  const seen = { now: 0, most: 0, ran: 0 };
  const http = later(await startHttpFixture({ build: () => countingServer(seen) }));
  const events: McpEvent[] = [];
  const kit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, ...server } }, onEvent: (e) => events.push(e), ...toolkit }));
  return { kit, seen, events };
}

describe("a bulkhead", () => {
  it("lets at most maxConcurrent calls reach the server at once; the others wait their turn and all succeed", async () => {
    const { kit, seen } = await toolkitWith({ maxConcurrent: 2 });
    const replies = await Promise.all(Array.from({ length: 8 }, () => replyOf(kit.getTool("work"), { ms: 100 })));
    expect(replies.every((r) => r.error === undefined)).toBe(true);
    expect(seen.ran).toBe(8);
    expect(seen.most).toBe(2);
  });

  it("fails a call past maxQueue at once as bulkhead_full, unsent, not retried, and the breaker does not count it", async () => {
    const { kit, seen, events } = await toolkitWith({ maxConcurrent: 1, maxQueue: 1, breaker: { failureThreshold: 1 } });
    const replies = await Promise.all([replyOf(kit.getTool("work"), { ms: 300 }), replyOf(kit.getTool("work"), { ms: 10 }), replyOf(kit.getTool("work"), { ms: 10 })]);
    expect(replies.map((r) => r.error?.reason)).toEqual([undefined, undefined, "bulkhead_full"]);
    expect(replies[2]!.error).toMatchObject({ outcome: "not_sent", attempts: 1 });
    expect(replies[2]!.content).toContain("maxConcurrent 1");
    expect(seen.ran).toBe(2);
    expect(events.filter((e) => e.type === "retry" || e.type === "circuit_open")).toEqual([]);
  });

  it("ends a wait for a turn at the call's timeout (request_timeout, unsent) and at once on the caller's abort (cancelled)", async () => {
    const { kit, seen } = await toolkitWith({ maxConcurrent: 1 }, { timeoutMs: 2_000, retry: { retries: 0 } });
    const busy = replyOf(kit.getTool("work"), { ms: 1_500 });
    const controller = new AbortController();
    const aborted = replyOf(kit.getTool("work"), { ms: 10 }, controller.signal);
    const timedOut = replyOf(kit.getTool("work"), { ms: 10 });
    setTimeout(() => controller.abort(new Error("the user left")), 100);
    const [, cancelled] = await Promise.all([busy, aborted]);
    expect(cancelled.error).toMatchObject({ reason: "cancelled", outcome: "not_sent" });
    // The third call got its turn when the first ended (1.5 s), within its 2 s.
    expect((await timedOut).error).toBeUndefined();
    expect(seen.ran).toBe(2);
  });

  it("times a queued call out when no turn comes within its own timeout: request_timeout, unsent", async () => {
    const { kit, seen } = await toolkitWith({ maxConcurrent: 1 }, { timeoutMs: 400, retry: { retries: 0 }, tools: { long: { timeoutMs: 10_000 } } });
    const busy = replyOf(kit.getTool("long"), { ms: 1_500 });
    const queued = await replyOf(kit.getTool("work"), { ms: 10 });
    expect(queued.error).toMatchObject({ reason: "request_timeout", outcome: "not_sent" });
    expect(queued.content).toContain("waiting for a turn");
    expect((await busy).error).toBeUndefined();
    expect(seen.ran).toBe(1);
  });
});

/**
 * The server helper's three rules (SEP-3182's semantics), on a real v1 SDK server driven by the
 * SDK's own client sending keys, and the way our client reads each answer.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fromResult } from "../../src/errors/fromResult.js";
import { isSafeToRetry } from "../../src/errors/safeRepeat.js";
import { IDEMPOTENCY_KEY_META, MemoryIdempotencyStore, withIdempotency } from "../../src/server/index.js";
import { connectInMemory } from "../servers/memory.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

/** A `pay` tool that counts its runs, fails when asked to, and waits for `gate` when one is set. */
async function payServer() {
  const state = { runs: 0, gate: undefined as Promise<void> | undefined };
  const pay = withIdempotency(async (args: { to: string; amount: number; fail?: boolean }) => {
    state.runs++;
    await state.gate;
    if (args.fail) throw new Error(`card declined (run ${state.runs})`);
    return { content: [{ type: "text" as const, text: `paid ${args.amount} to ${args.to} (run ${state.runs})` }] };
  });
  const mcp = new McpServer({ name: "pay", version: "1.0.0" });
  mcp.registerTool("pay", { inputSchema: { to: z.string(), amount: z.number(), fail: z.boolean().optional(), idempotency_key: z.string().optional() } }, (args, extra) => pay(args, extra));
  const { client, close } = await connectInMemory(mcp);
  closers.push(close);
  const call = (args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    client.callTool({ name: "pay", arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
  return { state, call };
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe("withIdempotency", () => {
  it("answers a repeat of a key with equal arguments by the first result, without running again", async () => {
    const { state, call } = await payServer();
    const first = await call({ to: "ann", amount: 5, idempotency_key: "k1" });
    // The same arguments in another order are equal.
    const again = await call({ amount: 5, idempotency_key: "k1", to: "ann" });
    expect(text(first)).toBe("paid 5 to ann (run 1)");
    expect(text(again)).toBe("paid 5 to ann (run 1)");
    expect(again._meta).toMatchObject({ "langchain-mcp-errors/idempotency": { status: "replayed" } });
    expect(state.runs).toBe(1);
  });

  it("replays a failure too", async () => {
    const { state, call } = await payServer();
    const first = await call({ to: "bob", amount: 1, fail: true, idempotency_key: "k2" });
    const again = await call({ to: "bob", amount: 1, fail: true, idempotency_key: "k2" });
    expect(first.isError).toBe(true);
    expect(text(first)).toContain("card declined (run 1)");
    expect(again).toMatchObject({ isError: true });
    expect(text(again)).toBe(text(first));
    expect(state.runs).toBe(1);
  });

  it("refuses a key whose first call is still running at once; our client reads it as not_sent and transient, safe to retry", async () => {
    const { state, call } = await payServer();
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    const first = call({ to: "cy", amount: 2 }, { [IDEMPOTENCY_KEY_META]: "k3" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await call({ to: "cy", amount: 2 }, { [IDEMPOTENCY_KEY_META]: "k3" });
    expect(refused.isError).toBe(true);
    const error = fromResult(refused, { toolName: "pay" })!;
    expect(error).toMatchObject({ reason: "service_unavailable", outcome: "not_sent", transient: true, retryAfterMs: 250 });
    expect(isSafeToRetry(error)).toBe(true);
    open();
    expect(text(await first)).toBe("paid 2 to cy (run 1)");
    expect(text(await call({ to: "cy", amount: 2 }, { [IDEMPOTENCY_KEY_META]: "k3" }))).toBe("paid 2 to cy (run 1)");
    expect(state.runs).toBe(1);
  });

  it("refuses a key used again with other arguments as a conflict: not_sent, permanent", async () => {
    const { state, call } = await payServer();
    await call({ to: "dee", amount: 3, idempotency_key: "k4" });
    const conflict = await call({ to: "dee", amount: 300, idempotency_key: "k4" });
    const error = fromResult(conflict, { toolName: "pay" })!;
    expect(error).toMatchObject({ reason: "invalid_request", outcome: "not_sent", transient: false });
    expect(isSafeToRetry(error)).toBe(false);
    expect(state.runs).toBe(1);
  });

  it("frees the key of a call that failed because it was cancelled, so that a repeat runs it", async () => {
    let runs = 0;
    const hold = withIdempotency(async (_args: { idempotency_key?: string }, extra: { signal: AbortSignal }) => {
      runs++;
      if (runs > 1) return { content: [{ type: "text" as const, text: `done, run ${runs}` }] };
      await new Promise((_resolve, reject) => extra.signal.addEventListener("abort", () => reject(new Error("stopped"))));
      return { content: [] };
    });
    const mcp = new McpServer({ name: "hold", version: "1.0.0" });
    mcp.registerTool("hold", { inputSchema: { idempotency_key: z.string().optional() } }, (args, extra) => hold(args, extra));
    const { client, close } = await connectInMemory(mcp);
    closers.push(close);
    const abort = new AbortController();
    const first = client.callTool({ name: "hold", arguments: { idempotency_key: "k5" } }, undefined, { signal: abort.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = (await client.callTool({ name: "hold", arguments: { idempotency_key: "k5" } })) as CallToolResult;
    expect(text(again)).toBe("done, run 2");
  });

  it("runs every call without a key", async () => {
    const { state, call } = await payServer();
    await call({ to: "eve", amount: 1 });
    await call({ to: "eve", amount: 1 });
    expect(state.runs).toBe(2);
  });
});

describe("MemoryIdempotencyStore", () => {
  it("forgets a key past its ttl, and the oldest key past maxKeys", async () => {
    const store = new MemoryIdempotencyStore({ maxKeys: 2 });
    expect(store.claim("a", "f", 1)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(store.claim("a", "f", 60_000)).toBeUndefined();
    expect(store.claim("a", "f", 60_000)).toMatchObject({ fingerprint: "f" });
    store.claim("b", "f", 60_000);
    store.claim("c", "f", 60_000);
    expect(store.size).toBe(2);
    expect(store.claim("a", "g", 60_000)).toBeUndefined();
  });
});

/**
 * Idempotency keys end to end: a real v1 SDK server whose `transfer` tool is wrapped in
 * `withIdempotency`, behind a real reverse proxy that answers 502 after forwarding (the server ran
 * the write, its answer was lost). The toolkit repeats the write under the same key, the server
 * answers the first result, and the write ran once.
 */
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { idempotencyCapability, MemoryIdempotencyStore, withIdempotency } from "../../src/server/index.js";
import { closeLater, server, toolkitFor } from "../network/helpers.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { startV2Http } from "../servers/v2/http.js";

interface Bank {
  /** Executions of the write, by its memo. */
  ran: Map<string, number>;
  /** The key of every send that reached the server, in order. */
  keys: (string | undefined)[];
}

/** A server with a `transfer` write: its key in an `idempotency_key` argument, or (`viaMeta`) only in `_meta` on a server that declares the capability. */
async function bankServer(viaMeta = false) {
  const bank: Bank = { ran: new Map(), keys: [] };
  const store = new MemoryIdempotencyStore();
  const transfer = withIdempotency(
    async (args: { memo: string; amount: number }) => {
      bank.ran.set(args.memo, (bank.ran.get(args.memo) ?? 0) + 1);
      return { content: [{ type: "text" as const, text: `moved ${args.amount} (${args.memo})` }] };
    },
    { store },
  );
  const http = await server({
    build: () => {
      const mcp = new McpServer({ name: "bank", version: "1.0.0" }, viaMeta ? { capabilities: { experimental: idempotencyCapability } } : {});
      const inputSchema: Record<string, z.ZodType> = viaMeta ? { memo: z.string(), amount: z.number() } : { memo: z.string(), amount: z.number(), idempotency_key: z.string() };
      mcp.registerTool("transfer", { description: "Move money.", inputSchema }, async (args, extra) => {
        bank.keys.push((args as { idempotency_key?: string }).idempotency_key ?? (extra._meta?.["langchain-mcp-errors/idempotencyKey"] as string | undefined));
        return transfer(args as { memo: string; amount: number }, extra);
      });
      return mcp;
    },
  });
  const proxy = closeLater(await startFaultProxy(http.url));
  const agent = await toolkitFor(proxy.url);
  return { bank, proxy, http, ...agent };
}

describe("a write that takes an idempotency key, behind a proxy that answers 502 after forwarding", () => {
  it("is repeated under the same key; the server answers the first result and the write runs once", async () => {
    const { bank, proxy, call, events } = await bankServer();
    proxy.plan({ kind: "status", when: "after", status: 502, body: "Bad Gateway" });
    const reply = await call("transfer", { memo: "rent", amount: 250 });
    expect(reply).toMatchObject({ status: "success", content: "moved 250 (rent)" });
    expect(bank.ran.get("rent")).toBe(1);
    expect(bank.keys).toHaveLength(2);
    expect(bank.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(bank.keys[1]).toBe(bank.keys[0]);
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ error: { reason: "server_error", outcome: "unknown", status: 502, data: { idempotencyKey: bank.keys[0] } } });
  });

  it("keeps one key over every send of a call, and makes a new one for the next call", async () => {
    const { bank, proxy, call } = await bankServer();
    proxy.plan({ kind: "status", when: "after", status: 502 }, { count: 2 });
    expect(await call("transfer", { memo: "a", amount: 1 })).toMatchObject({ status: "success" });
    expect(await call("transfer", { memo: "b", amount: 2 })).toMatchObject({ status: "success" });
    expect(bank.keys).toHaveLength(4);
    expect(new Set(bank.keys.slice(0, 3)).size).toBe(1);
    expect(bank.keys[3]).not.toBe(bank.keys[0]);
    expect([bank.ran.get("a"), bank.ran.get("b")]).toEqual([1, 1]);
  });

  it("tells beforeToolCall the call's key, the same on each attempt, and sends it whatever arguments the hook returns", async () => {
    const { bank, proxy, toolkit } = await bankServer();
    await toolkit.close();
    const seen: (string | undefined)[] = [];
    const { call } = await toolkitFor(proxy.url, {}, {
      beforeToolCall: (context) => {
        seen.push(context.idempotencyKey);
        return { args: { ...context.args, memo: "hooked" } };
      },
    });
    proxy.plan({ kind: "status", when: "after", status: 502 });
    expect(await call("transfer", { memo: "x", amount: 1 })).toMatchObject({ status: "success", content: "moved 1 (hooked)" });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen).toEqual([bank.keys[0], bank.keys[1]]);
    expect(bank.ran.get("hooked")).toBe(1);
  });

  it("hides the key's property from the model: the toolkit makes the key", async () => {
    const { toolkit } = await bankServer();
    const schema = toolkit.getTool("transfer")!.schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(["amount", "memo"]);
    expect(schema.required).not.toContain("idempotency_key");
  });

  it("sends the key in _meta to a server that declares the capability, and repeats any of its tools", async () => {
    const { bank, proxy, call } = await bankServer(true);
    proxy.plan({ kind: "status", when: "after", status: 502 });
    expect(await call("transfer", { memo: "meta", amount: 3 })).toMatchObject({ status: "success", content: "moved 3 (meta)" });
    expect(bank.ran.get("meta")).toBe(1);
    expect(bank.keys).toHaveLength(2);
    expect(bank.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(bank.keys[1]).toBe(bank.keys[0]);
  });

  it("keeps the outcome unknown when a later send is refused unsent and the retries run out: the write may have happened", async () => {
    const { bank, proxy, call } = await bankServer();
    proxy.plan({ kind: "status", when: "after", status: 502 });
    proxy.plan({ kind: "status", when: "before", status: 503, body: "Service Unavailable" }, { count: 2 });
    const reply = await call("transfer", { memo: "lost", amount: 5 });
    expect(bank.ran.get("lost")).toBe(1);
    expect(reply.error).toMatchObject({ reason: "service_unavailable", outcome: "unknown", attempts: 3, data: { idempotencyKey: bank.keys[0] } });
    expect(reply.content).toContain("outcome is unknown");
  });

  it("gives a fallback server the primary's key: a replica sharing the store answers the first result", async () => {
    const { bank, proxy, http, toolkit } = await bankServer();
    await toolkit.close();
    const { call } = await toolkitFor(proxy.url, { fallback: "replica", retry: { retries: 0 } }, { servers: { remote: { transport: "http", url: proxy.url.href, fallback: "replica", retry: { retries: 0 } }, replica: { transport: "http", url: http.url.href, exposeTools: false } } });
    proxy.plan({ kind: "status", when: "after", status: 502 });
    const reply = await call("transfer", { memo: "fb", amount: 6 });
    expect(reply.status).toBe("success");
    expect(reply.content).toContain("moved 6 (fb)");
    expect(reply.content).toContain("fallback server 'replica'");
    expect(bank.ran.get("fb")).toBe(1);
    expect(bank.keys).toHaveLength(2);
    expect(bank.keys[1]).toBe(bank.keys[0]);
  });

  it("does not repeat the write when its policy turns the key off (idempotencyKey: false)", async () => {
    const { bank, proxy, toolkit } = await bankServer(true);
    await toolkit.close();
    const { call } = await toolkitFor(proxy.url, {}, { tools: { transfer: { idempotencyKey: false } } });
    proxy.plan({ kind: "status", when: "after", status: 502 });
    const reply = await call("transfer", { memo: "off", amount: 4 });
    expect(reply.error).toMatchObject({ reason: "server_error", outcome: "unknown", attempts: 1 });
    expect(bank.ran.get("off")).toBe(1);
  });
});

describe("a keyed write on a v2 SDK server that outlives the call's timeout", () => {
  it("is retried under its key: refused while still running (in_progress), then answered with its one result", async () => {
    let runs = 0;
    const slowTransfer = withIdempotency(async (args: { memo: string }) => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { content: [{ type: "text" as const, text: `moved (${args.memo}, run ${runs})` }] };
    });
    const http = closeLater(
      await startV2Http({
        build: () => {
          const mcp = new V2McpServer({ name: "bank-v2", version: "2.0.0" }, { capabilities: { experimental: idempotencyCapability } });
          mcp.registerTool("transfer", { description: "Move money, slowly.", inputSchema: z.object({ memo: z.string() }) }, (args, ctx) => slowTransfer(args, ctx));
          return mcp;
        },
      }),
    );
    const { call, events } = await toolkitFor(http.url, { timeoutMs: 100 }, { retry: { retries: 4, minTimeout: 5, maxTimeout: 5_000, randomize: false } });
    const reply = await call("transfer", { memo: "slow" });
    expect(reply).toMatchObject({ status: "success", content: "moved (slow, run 1)" });
    expect(runs).toBe(1);
    const reasons = events.flatMap((e) => (e.type === "retry" ? [e.error.reason] : []));
    expect(reasons[0]).toBe("request_timeout");
    expect(reasons).toContain("service_unavailable");
  });
});

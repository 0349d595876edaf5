/**
 * Idempotency keys kept on a real redis-server (Unix socket, temp dir), shared by two replicas of
 * a tool: one on ioredis, one on node-redis. A repeat that lands on the other replica still finds
 * the first call's claim or its result.
 */
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore, withIdempotency } from "../../src/server/index.js";
import { RedisProcess, redisServerFound } from "../fleet/redis.js";

const skip = !redisServerFound && process.env.CI !== "true";

describe.skipIf(skip)("RedisIdempotencyStore", () => {
  let redis: RedisProcess;
  let io: Redis;
  let node: ReturnType<typeof createClient>;
  let run = 0;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
    io = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
    io.on("error", () => undefined);
    node = createClient({ socket: { path: redis.socket, reconnectStrategy: () => 100 } });
    node.on("error", () => undefined);
    await node.connect();
  });

  afterAll(async () => {
    io?.disconnect();
    await node?.quit().catch(() => undefined);
    await redis?.stop();
  });

  /** Two replicas of one `pay` tool, one per client, counting runs together; `gate` holds a run. */
  function replicas() {
    const state = { runs: 0, gate: undefined as Promise<void> | undefined };
    const pay = async (args: { amount: number; idempotency_key?: string }) => {
      state.runs++;
      await state.gate;
      return { content: [{ type: "text", text: `paid ${args.amount}, run ${state.runs}` }] };
    };
    const keyPrefix = `test${++run}:`;
    const a = withIdempotency(pay, { store: new RedisIdempotencyStore(io, { keyPrefix }) });
    const b = withIdempotency(pay, { store: new RedisIdempotencyStore(node, { keyPrefix }) });
    return { state, a, b };
  }

  it("replays on one replica the result the other kept", async () => {
    const { state, a, b } = replicas();
    const first = await a({ amount: 5, idempotency_key: "k" }, {});
    const again = await b({ amount: 5, idempotency_key: "k" }, {});
    expect(first).toMatchObject({ content: [{ text: "paid 5, run 1" }] });
    expect(again).toMatchObject({ content: [{ text: "paid 5, run 1" }], _meta: { "langchain-mcp-errors/idempotency": { status: "replayed" } } });
    expect(state.runs).toBe(1);
  });

  it("refuses a key still running on the other replica, and a key reused with other arguments", async () => {
    const { state, a, b } = replicas();
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    const first = a({ amount: 7, idempotency_key: "k" }, {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await b({ amount: 7, idempotency_key: "k" }, {})).toMatchObject({ isError: true, _meta: { "langchain-mcp-errors/idempotency": { status: "in_progress" } } });
    open();
    await first;
    expect(await b({ amount: 8, idempotency_key: "k" }, {})).toMatchObject({ isError: true, _meta: { "langchain-mcp-errors/idempotency": { status: "conflict" } } });
    expect(state.runs).toBe(1);
  });

  it("forgets a key after its ttl", async () => {
    const state = { runs: 0 };
    const pay = withIdempotency(async () => ({ content: [{ type: "text", text: `run ${++state.runs}` }] }), { store: new RedisIdempotencyStore(io, { keyPrefix: `test${++run}:` }), ttlMs: 30 });
    await pay({ idempotency_key: "k" }, {});
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await pay({ idempotency_key: "k" }, {})).toMatchObject({ content: [{ text: "run 2" }] });
  });
});

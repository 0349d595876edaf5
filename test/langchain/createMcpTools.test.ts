/**
 * `createMcpTools` builds a toolkit the caller never sees; what it returns must let the caller
 * close that toolkit (with `sharedState` it refreshes from Redis until closed), and stay usable
 * as the array of tools it always was.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createMcpTools, type McpToolErrorJSON } from "../../src/index.js";
import { RedisProcess, redisServerFound } from "../fleet/redis.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";
import { eventually } from "../errors/helpers.js";

const cleanups = closeAfterEach();

async function fixtureClient() {
  const { client, close } = await connectInMemory(buildFixtureServer(newState()));
  cleanups.push(close);
  return client;
}

describe("createMcpTools", () => {
  it("returns an array of tools, with a close() that is not one of its elements", async () => {
    const tools = await createMcpTools(await fixtureClient());
    cleanups.push(() => tools.close());
    expect(Array.isArray(tools)).toBe(true);
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(typeof tools.close).toBe("function");
    expect(Object.keys(tools)).toEqual(tools.map((_, i) => String(i)));
    expect([...tools]).toHaveLength(tools.length);
    expect(await tools.find((t) => t.name === "echo")!.invoke({ text: "hi" })).toBe("hi");
  });

  it("close() ends the tools (they answer closed) and leaves the user's client open", async () => {
    const client = await fixtureClient();
    const tools = await createMcpTools(client);
    await tools.close();
    await tools.close();
    const echo = tools.find((t) => t.name === "echo")!;
    const reply = (await echo.invoke({ type: "tool_call", id: "c", name: "echo", args: { text: "x" } })) as { artifact: McpToolErrorJSON };
    expect(reply.artifact.reason).toBe("closed");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

// Outside CI a missing redis-server skips this test; in CI (which installs it) it fails it.
const noRedis = !redisServerFound && process.env.CI !== "true";

describe.skipIf(noRedis)("createMcpTools with sharedState on a real redis-server", () => {
  it("refreshes from Redis until close(), then sends nothing more", async () => {
    const redis = await new RedisProcess().start();
    cleanups.push(() => redis.stop());
    const mine = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
    const admin = new Redis({ path: redis.socket, maxRetriesPerRequest: 1 });
    cleanups.push(async () => void mine.disconnect(), async () => void admin.disconnect());
    /** The scripts Redis itself has run (EVALSHA and EVAL), from its command statistics. */
    const scripts = async () => [...(await admin.info("commandstats")).matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);

    const tools = await createMcpTools(await fixtureClient(), { sharedState: { redis: mine, refreshMs: 10 } });
    await eventually(async () => expect(await scripts()).toBeGreaterThan(5));

    await tools.close();
    // Redis answers one connection's commands in order: once this ping on the toolkit's client is
    // answered, every refresh the toolkit queued before close() has run (on a busy machine
    // several may have been queued), and nothing after it is the toolkit's of before.
    expect(await mine.ping()).toBe("PONG");
    const atClose = await scripts();
    // Thirty refresh periods: a toolkit nobody closed went on refreshing all along.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await scripts()).toBe(atClose);
    // The Redis client is the application's: still open.
    expect(await mine.ping()).toBe("PONG");
  });
});
